package sdn

import (
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// The PUT of a plugin object sets what changed or is new, deletes what the
// plan dropped, and leaves unknown values and secrets alone.
func TestPluginDelta(t *testing.T) {
	t.Parallel()
	state := pluginDeclared{opts: map[string]string{"asn": "65000", "peers": "10.0.0.1", "ebgp": "1", "node": "pve1"}}
	plan := pluginDeclared{
		opts:    map[string]string{"asn": "65001", "peers": "10.0.0.1", "loopback": "lo0"},
		unknown: map[string]bool{"node": true},
	}
	d := pluginDelta(wire.SDNControllers, state, plan)
	set := map[string]string{}
	for _, k := range d.SetKeys() {
		set[k], _ = d.Get(k)
	}
	if !reflect.DeepEqual(set, map[string]string{"asn": "65001", "loopback": "lo0"}) || !reflect.DeepEqual(d.Deleted(), []string{"ebgp"}) {
		t.Errorf("set %v, delete %v", set, d.Deleted())
	}
}

// A fabric and a fabric node map to and from PVE's form: numbers as
// numbers, interfaces keyed by name with only the options they have, and
// back as property strings sorted by name in PVE's key order.
func TestFabricModelMapping(t *testing.T) {
	t.Parallel()
	f := fabricFromAPI(pveapi.SDNFabric{ID: "fab1", Protocol: "openfabric", Options: map[string]string{"ip_prefix": "10.0.0.0/24", "hello_interval": "3"}})
	if f.SDNID.ValueString() != "fabric/fab1" || f.HelloInterval.ValueInt64() != 3 || !f.CsnpInterval.IsNull() || !f.IP6Prefix.IsNull() {
		t.Errorf("fabric %+v", f)
	}
	if got := fabricOptions(f); !reflect.DeepEqual(got, map[string]string{"ip_prefix": "10.0.0.0/24", "hello_interval": "3"}) {
		t.Errorf("options %v", got)
	}
	n := fabricNodeFromAPI(pveapi.SDNFabricNode{Fabric: "fab1", Node: "pve1", Protocol: "openfabric", IP: "10.0.0.1",
		Interfaces: []string{"name=ens20,hello_multiplier=3", "name=ens19,ip=10.0.1.1/31"}})
	want := map[string]fabricNodeIface{
		"ens19": {IP: types.StringValue("10.0.1.1/31"), IP6: types.StringNull(), HelloMultiplier: types.Int64Null()},
		"ens20": {IP: types.StringNull(), IP6: types.StringNull(), HelloMultiplier: types.Int64Value(3)},
	}
	if n.SDNID.ValueString() != "fabric-node/fab1/pve1" || n.ID.ValueString() != "fab1/pve1" || !n.IP6.IsNull() || !reflect.DeepEqual(n.Interfaces, want) {
		t.Errorf("node %+v", n)
	}
	if got := nodeInterfaces("openfabric", n.Interfaces); !reflect.DeepEqual(got, []string{"name=ens19,ip=10.0.1.1/31", "name=ens20,hello_multiplier=3"}) {
		t.Errorf("interfaces %v", got)
	}
}
