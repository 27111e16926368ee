package mapping

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

func pciModel(t *testing.T, entries map[string]map[string]attr.Value) model {
	t.Helper()
	k := kinds["pci"]
	elems := map[string]attr.Value{}
	for node, attrs := range entries {
		full := map[string]attr.Value{}
		for name, typ := range k.entryAttrTypes() {
			if typ == types.Int64Type {
				full[name] = types.Int64Null()
			} else {
				full[name] = types.StringNull()
			}
		}
		for name, v := range attrs {
			full[name] = v
		}
		obj, d := types.ObjectValue(k.entryAttrTypes(), full)
		if d.HasError() {
			t.Fatal(d)
		}
		elems[node] = obj
	}
	mp, d := types.MapValue(k.entryType(), elems)
	if d.HasError() {
		t.Fatal(d)
	}
	return model{ID: types.StringValue("gpu"), Description: types.StringNull(), Map: mp,
		Mdev: types.BoolNull(), LiveMigrationCapable: types.BoolNull()}
}

// Entries go out ordered by node, node first, PVE's keys in order; the
// read parses them back to the same map.
func TestEntriesRoundTrip(t *testing.T) {
	t.Parallel()
	k := kinds["pci"]
	m := pciModel(t, map[string]map[string]attr.Value{
		"pve2": {"path": types.StringValue("0000:02:00"), "id": types.StringValue("10de:2204"), "subsystem_id": types.StringValue("1458:403b")},
		"pve1": {"path": types.StringValue("0000:01:00.0"), "id": types.StringValue("10de:2204"), "iommu_group": types.Int64Value(12),
			"description": types.StringValue("slot 1")},
	})
	m.Mdev = types.BoolValue(true)
	params := k.createParams(m)
	want := []string{
		"node=pve1,path=0000:01:00.0,id=10de:2204,iommugroup=12,description=slot 1",
		"node=pve2,path=0000:02:00,id=10de:2204,subsystem-id=1458:403b",
	}
	if !reflect.DeepEqual(params["map"], want) || params.Get("mdev") != "1" || params.Has("description") || params.Has("live-migration-capable") {
		t.Fatalf("create params = %v", params)
	}
	var back model
	one := pveapi.Bool01(true)
	// PVE keeps what was sent; a UI-made entry has its keys in any order.
	api := &pveapi.Mapping{Map: []string{want[1], "id=10de:2204,iommugroup=12,node=pve1,path=0000:01:00.0,description=slot 1"}, Mdev: &one}
	if err := k.fromAPI(&back, api); err != nil {
		t.Fatal(err)
	}
	if !back.Map.Equal(m.Map) || !back.Mdev.Equal(m.Mdev) || !back.Description.IsNull() || !back.LiveMigrationCapable.IsNull() {
		t.Fatalf("read back %v, want %v", back, m)
	}
}

// A mapping with two entries for one node (PVE allows that for PCI and
// USB) does not fit a map keyed by node: the read says so.
func TestFromAPIRefusesTwoEntriesForOneNode(t *testing.T) {
	t.Parallel()
	var m model
	err := kinds["usb"].fromAPI(&m, &pveapi.Mapping{Map: []string{"node=pve1,id=0529:0001", "node=pve1,id=0529:0002"}})
	if err == nil || !strings.Contains(err.Error(), "more than one entry for node pve1") {
		t.Fatalf("err = %v", err)
	}
	if err := kinds["dir"].fromAPI(&m, &pveapi.Mapping{Map: []string{"node=pve1,path=/srv,mode=x"}}); err == nil {
		t.Fatalf("unknown key accepted")
	}
}

// An update sends every entry (PVE requires map on each update) and
// deletes the options no longer declared.
func TestUpdateParamsDeletes(t *testing.T) {
	t.Parallel()
	k := kinds["pci"]
	entry := map[string]map[string]attr.Value{"pve1": {"path": types.StringValue("0000:01:00.0"), "id": types.StringValue("10de:2204")}}
	prior := pciModel(t, entry)
	prior.Description = types.StringValue("old")
	prior.Mdev = types.BoolValue(false)
	prior.LiveMigrationCapable = types.BoolValue(true)
	plan := pciModel(t, entry)
	plan.LiveMigrationCapable = types.BoolValue(false)
	params, del := k.updateParams(prior, plan)
	if !reflect.DeepEqual(del, []string{"description", "mdev"}) || params.Get("live-migration-capable") != "0" ||
		len(params["map"]) != 1 {
		t.Fatalf("params %v delete %v", params, del)
	}
}
