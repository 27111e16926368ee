package wire_test

import (
	"reflect"
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/schema"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// The zone types are the schema's type enum but faucet.
func TestSDNZoneTypesAreSchemaTypes(t *testing.T) {
	t.Parallel()
	m, _, _ := schema.Default().Lookup("POST", "/cluster/sdn/zones")
	p, _ := m.Param("type")
	want := map[string]bool{}
	for _, e := range p.Enum {
		want[e] = true
	}
	delete(want, "faucet")
	for _, name := range wire.SDNZoneTypeNames() {
		if !want[name] {
			t.Errorf("type %s not in the schema's %v", name, p.Enum)
		}
		delete(want, name)
	}
	if len(want) > 0 {
		t.Errorf("schema types %v missing from the table", want)
	}
}

var sdnKinds = map[wire.SDNOptionKind]string{
	wire.SDNString: "string", wire.SDNBool: "boolean", wire.SDNInt: "integer", wire.SDNNodeList: "string",
}

// checkSDNOptions checks options against the 9.1 POST and PUT schemas of
// path and 8.4's POST (Since9).
func checkSDNOptions(t *testing.T, what, path, putPath string, options []wire.SDNOption) {
	t.Helper()
	pve84, _ := schema.ForRelease("8.4")
	post91, _, _ := schema.Default().Lookup("POST", path)
	put91, _, _ := schema.Default().Lookup("PUT", putPath)
	post84, _, _ := pve84.Lookup("POST", path)
	seen := map[string]bool{}
	for _, o := range options {
		if seen[o.Key] {
			t.Errorf("%s: %s twice", what, o.Key)
		}
		seen[o.Key] = true
		p, ok := post91.Param(o.Key)
		if !ok {
			t.Errorf("%s: %s not in POST %s", what, o.Key, path)
			continue
		}
		if p.Type != sdnKinds[o.Kind] {
			t.Errorf("%s: %s is %s in the schema", what, o.Key, p.Type)
		}
		if len(o.Enum) > 0 && !reflect.DeepEqual(o.Enum, p.Enum) {
			t.Errorf("%s: %s enum %v, schema %v", what, o.Key, o.Enum, p.Enum)
		}
		if _, in84 := post84.Param(o.Key); in84 == o.Since9 {
			t.Errorf("%s: %s Since9=%v but in 8.4's schema: %v", what, o.Key, o.Since9, in84)
		}
		if _, inPut := put91.Param(o.Key); !inPut {
			t.Errorf("%s: %s not in PUT %s", what, o.Key, putPath)
		}
		if o.Description == "" {
			t.Errorf("%s: %s has no description", what, o.Key)
		}
	}
}

// Every option of every zone type, vnet and subnet is in PVE's schemas
// with the table's kind; lock-token is 9.x only.
func TestSDNOptionsMatchSchema(t *testing.T) {
	t.Parallel()
	for _, zt := range wire.SDNZoneTypes {
		var options []wire.SDNOption
		for _, o := range zt.Options {
			options = append(options, o.SDNOption)
		}
		checkSDNOptions(t, "zone "+zt.Name, "/cluster/sdn/zones", "/cluster/sdn/zones/z1", options)
	}
	checkSDNOptions(t, "vnet", "/cluster/sdn/vnets", "/cluster/sdn/vnets/v1", wire.SDNVnetOptions)
	checkSDNOptions(t, "subnet", "/cluster/sdn/vnets/v1/subnets", "/cluster/sdn/vnets/v1/subnets/z-10.0.0.0-24", wire.SDNSubnetOptions)
}

// The types' required options (pve-network Zones/*Plugin.pm options(),
// optional => 0).
func TestSDNZoneRequiredOptions(t *testing.T) {
	t.Parallel()
	want := map[string][]string{"simple": nil, "vlan": {"bridge"}, "qinq": {"bridge", "tag"}, "vxlan": nil, "evpn": {"vrf-vxlan", "controller"}}
	for _, zt := range wire.SDNZoneTypes {
		var got []string
		for _, o := range zt.Options {
			if o.Required {
				got = append(got, o.Key)
			}
		}
		if !reflect.DeepEqual(got, want[zt.Name]) {
			t.Errorf("%s: required %v, want %v", zt.Name, got, want[zt.Name])
		}
	}
	if got := wire.SDNZoneTypesTaking("bridge-disable-mac-learning"); !reflect.DeepEqual(got, []string{"vlan", "qinq", "evpn"}) {
		t.Errorf("bridge-disable-mac-learning taken by %v", got)
	}
}

func TestSDNIDsAndCIDR(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{"lab": true, "a1": true, "a": false, "1ab": false, "abcdefgh": true, "abcdefghi": false, "a-b": false} {
		if wire.IsSDNZoneID(s) != want {
			t.Errorf("IsSDNZoneID(%q) = %v", s, !want)
		}
	}
	for s, want := range map[string]string{"10.0.0.0/24": "10.0.0.0/24", "fd00::/64": "fd00::/64"} {
		if got, ok := wire.CanonicalCIDR(s); !ok || got != want {
			t.Errorf("CanonicalCIDR(%q) = %q, %v", s, got, ok)
		}
	}
	if got, ok := wire.CanonicalCIDR("10.0.0.1/24"); ok || got != "10.0.0.0/24" {
		t.Errorf("host bits: %q %v", got, ok)
	}
	if got := wire.SplitSDNNodeList("pve2, pve1;pve3"); !reflect.DeepEqual(got, []string{"pve2", "pve1", "pve3"}) {
		t.Errorf("split %v", got)
	}
}
