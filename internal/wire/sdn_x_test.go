package wire_test

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/schema"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

var sdnFamilies = []wire.SDNPluginFamily{wire.SDNControllers, wire.SDNIPAMs, wire.SDNDNSServers}

// Each family's types are in its POST schema's type enum (controllers:
// all but faucet, which has no options and no function).
func TestSDNPluginTypesAreSchemaTypes(t *testing.T) {
	t.Parallel()
	for _, f := range sdnFamilies {
		m, _, _ := schema.Default().Lookup("POST", f.Path)
		p, ok := m.Param("type")
		if !ok {
			t.Fatalf("POST %s has no type", f.Path)
		}
		want := map[string]bool{}
		for _, e := range p.Enum {
			want[e] = true
		}
		for _, name := range f.TypeNames() {
			if !want[name] {
				t.Errorf("%s: type %s not in the schema's %v", f.Kind, name, p.Enum)
			}
			delete(want, name)
		}
		delete(want, "faucet")
		if len(want) > 0 {
			t.Errorf("%s: schema types %v missing from the table", f.Kind, want)
		}
		if _, ok := m.Param(f.IDKey); !ok {
			t.Errorf("%s: POST has no %s", f.Kind, f.IDKey)
		}
	}
}

// Every option is in the 9.1 schemas of POST and PUT with the table's
// kind; Since9 options are missing from 8.4's POST and the others present.
func TestSDNPluginOptionsMatchSchema(t *testing.T) {
	t.Parallel()
	pve84, _ := schema.ForRelease("8.4")
	kinds := map[wire.SDNPluginOptionKind]string{
		wire.SDNPluginString: "string", wire.SDNPluginBool: "boolean", wire.SDNPluginInt: "integer", wire.SDNPluginList: "string",
	}
	for _, f := range sdnFamilies {
		post91, _, _ := schema.Default().Lookup("POST", f.Path)
		put91, _, _ := schema.Default().Lookup("PUT", f.Path+"/x1")
		post84, _, _ := pve84.Lookup("POST", f.Path)
		for _, ty := range f.Types {
			seen := map[string]bool{}
			for _, o := range ty.Options {
				if seen[o.Key] {
					t.Errorf("%s %s: %s twice", f.Kind, ty.Name, o.Key)
				}
				seen[o.Key] = true
				p, ok := post91.Param(o.Key)
				if !ok {
					t.Errorf("%s %s: %s not in POST %s", f.Kind, ty.Name, o.Key, f.Path)
					continue
				}
				if p.Type != kinds[o.Kind] {
					t.Errorf("%s %s: %s is %s in the schema", f.Kind, ty.Name, o.Key, p.Type)
				}
				if _, ok := put91.Param(o.Key); !ok {
					t.Errorf("%s %s: %s not in PUT", f.Kind, ty.Name, o.Key)
				}
				if _, in84 := post84.Param(o.Key); in84 == o.Since9 {
					t.Errorf("%s %s: %s Since9=%v but in 8.4's schema: %v", f.Kind, ty.Name, o.Key, o.Since9, in84)
				}
			}
		}
	}
}

// Required and sensitive keys per type, from the plugins' options().
func TestSDNPluginRequiredAndSensitive(t *testing.T) {
	t.Parallel()
	required := map[string][]string{
		"controller/evpn": {"asn"}, "controller/bgp": {"asn", "node", "peers"},
		"controller/isis": {"isis-domain", "isis-ifaces", "isis-net", "node"},
		"ipam/netbox":     {"token", "url"}, "ipam/phpipam": {"section", "token", "url"},
		"dns/powerdns": {"key", "url"},
	}
	sensitive := map[string][]string{"ipam/netbox": {"token"}, "ipam/phpipam": {"token"}, "dns/powerdns": {"key"}}
	for _, f := range sdnFamilies {
		for _, ty := range f.Types {
			var r, s []string
			for _, o := range ty.Options {
				if o.Required {
					r = append(r, o.Key)
				}
				if o.Sensitive {
					s = append(s, o.Key)
				}
			}
			sort.Strings(r)
			name := f.Kind + "/" + ty.Name
			if !reflect.DeepEqual(r, required[name]) {
				t.Errorf("%s: required %v, want %v", name, r, required[name])
			}
			if !reflect.DeepEqual(s, sensitive[name]) {
				t.Errorf("%s: sensitive %v, want %v", name, s, sensitive[name])
			}
		}
	}
}

// The patterns the table checks agree with PVE's: the isis-net pattern
// (IsisPlugin.pm pve_verify_sdn_isis_net) and fingerprints.
func TestSDNPluginPatterns(t *testing.T) {
	t.Parallel()
	isis, _ := wire.SDNControllers.Types[2].Option("isis-net")
	re := wire.SDNPluginPattern(isis.SDNPluginOption)
	for s, ok := range map[string]bool{
		"49.0001.1921.6800.1002.00": true, "49.0001.1921.6800.00": true, "49.0001.1921.00": false, "49-0001.1921.6800.1002.00": false,
	} {
		if re.MatchString(s) != ok {
			t.Errorf("isis-net %q: match %v, want %v", s, !ok, ok)
		}
	}
	fp, _ := wire.SDNIPAMs.Types[1].Option("fingerprint")
	if !wire.SDNPluginPattern(fp.SDNPluginOption).MatchString(strings.Repeat("ab:", 31) + "cd") {
		t.Error("a fingerprint is refused")
	}
}

// Ids: controllers take '-' and '_' and at most 64 characters; IPAMs and
// DNS ids only letters and digits.
func TestSDNPluginIDs(t *testing.T) {
	t.Parallel()
	for id, ok := range map[string]bool{"evpn1": true, "my-ctl_2": true, "a": false, "1abc": false, "ab-": false, strings.Repeat("a", 64): true, strings.Repeat("a", 65): false} {
		if wire.IsSDNControllerID(id) != ok {
			t.Errorf("controller id %q: %v, want %v", id, !ok, ok)
		}
	}
	for id, ok := range map[string]bool{"netbox1": true, "pve": true, "my-ipam": false, "a": false, "x_y": false} {
		if wire.IsSDNPluginID(id) != ok {
			t.Errorf("ipam id %q: %v, want %v", id, !ok, ok)
		}
	}
}

// W5: a GET answers numbers and booleans as numbers or strings; lists come
// as PVE stored them (split_list separators); secrets and bookkeeping keys
// are dropped.
func TestSDNPluginOptionsFromAPI(t *testing.T) {
	t.Parallel()
	bgp, _ := wire.SDNControllers.Type("bgp")
	got := wire.SDNPluginOptionsFromAPI(bgp, map[string]any{
		"controller": "b1", "type": "bgp", "digest": "d", "asn": float64(65000), "peers": "10.0.0.2; 10.0.0.1 ,10.0.0.3",
		"ebgp": "1", "bgp-multipath-as-path-relax": float64(0), "node": "pve1", "pending": map[string]any{"asn": 1},
	})
	want := map[string]string{"asn": "65000", "peers": "10.0.0.1,10.0.0.2,10.0.0.3", "ebgp": "1", "bgp-multipath-as-path-relax": "0", "node": "pve1"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	netbox, _ := wire.SDNIPAMs.Type("netbox")
	got = wire.SDNPluginOptionsFromAPI(netbox, map[string]any{"ipam": "nb", "type": "netbox", "url": "https://nb/api", "token": "s3cret"})
	if !reflect.DeepEqual(got, map[string]string{"url": "https://nb/api"}) {
		t.Errorf("netbox: %v", got)
	}
}
