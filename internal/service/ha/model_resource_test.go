package ha

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

func TestHAResourceFromAPI(t *testing.T) {
	t.Parallel()
	two := pveapi.IntOrString(2)
	no := pveapi.Bool01(false)
	var m haResourceModel
	m.haResourceFromAPI(&pveapi.HAResource{SID: "ct:101", Type: "ct", State: "enabled", MaxRestart: &two, Failback: &no})
	if m.SID.ValueString() != "ct:101" || m.Type.ValueString() != "ct" || m.VMID.ValueInt64() != 101 || m.ID.ValueString() != "ct:101" {
		t.Fatalf("ids: %+v", m)
	}
	// 'enabled' is PVE's alias of 'started'.
	if m.State.ValueString() != "started" {
		t.Errorf("state %v, want started", m.State)
	}
	if m.MaxRestart.ValueInt64() != 2 || !m.MaxRelocate.IsNull() || m.Failback.IsNull() || m.Failback.ValueBool() {
		t.Errorf("options: %+v", m)
	}
	// Options PVE does not hold are null, never PVE's defaults.
	m.haResourceFromAPI(&pveapi.HAResource{SID: "vm:100", Type: "vm"})
	if !m.State.IsNull() || !m.MaxRestart.IsNull() || !m.Failback.IsNull() || !m.Comment.IsNull() || !m.Group.IsNull() {
		t.Errorf("absent options not null: %+v", m)
	}
}

func TestHAResourceUpdateSetsAndDeletes(t *testing.T) {
	t.Parallel()
	prior := haResourceModel{
		State: types.StringValue("started"), Comment: types.StringValue("web"), MaxRestart: types.Int64Value(1),
		MaxRelocate: types.Int64Null(), Failback: types.BoolValue(true), Group: types.StringNull(),
	}
	plan := prior
	if _, _, needed := haResourceUpdate(&prior, &plan); needed {
		t.Fatal("no change needs an update")
	}
	plan.State = types.StringValue("stopped")
	plan.Comment = types.StringNull()
	plan.MaxRelocate = types.Int64Value(0)
	plan.Failback = types.BoolNull()
	set, del, needed := haResourceUpdate(&prior, &plan)
	if !needed || set.State == nil || *set.State != "stopped" || set.MaxRelocate == nil || *set.MaxRelocate != 0 {
		t.Fatalf("set %+v", set)
	}
	if set.Comment != nil || set.MaxRestart != nil || set.Failback != nil {
		t.Errorf("unchanged or deleted options sent: %+v", set)
	}
	if len(del) != 2 || del[0] != "comment" || del[1] != "failback" {
		t.Errorf("delete %v, want [comment failback]", del)
	}
}

func TestHAStatusFromAPI(t *testing.T) {
	t.Parallel()
	yes := pveapi.Bool01(true)
	entries := []pveapi.HAStatusEntry{
		{ID: "quorum", Type: "quorum", Node: "pve1", Status: "OK", Quorate: &yes},
		{ID: "master", Type: "master", Node: "pve2", Status: "pve2 (active, Wed Dec  2 13:39:51 2026)"},
		{ID: "fencing", Type: "fencing", Node: "pve2", Status: "armed (CRM watchdog active)", ArmedState: "armed"},
		{ID: "lrm:pve1", Type: "lrm", Node: "pve1", Status: "pve1 (active, watchdog active, ...)"},
		{ID: "service:vm:100", Type: "service", SID: "vm:100", Node: "pve1", State: "started", CRMState: "started", RequestState: "started"},
		{ID: "service:ct:101", Type: "service", SID: "ct:101", State: "queued", RequestState: "stopped"},
	}
	var ms pveapi.HAManagerStatus
	ms.ManagerStatus.NodeStatus = map[string]string{"pve1": "online", "pve2": "online", "pve3": "fence"}
	ms.LRMStatus = map[string]pveapi.HALRMStat{"pve1": {Mode: "active", State: "active"}}
	m := statusFromAPI(entries, &ms)
	if !m.Quorate.ValueBool() || m.MasterNode.ValueString() != "pve2" || m.ArmedState.ValueString() != "armed" {
		t.Fatalf("manager: %+v", m)
	}
	if len(m.Nodes) != 3 || m.Nodes[0].LRMState.ValueString() != "active" || m.Nodes[2].CRMState.ValueString() != "fence" || !m.Nodes[2].Status.IsNull() {
		t.Errorf("nodes: %+v", m.Nodes)
	}
	if len(m.Resources) != 2 || m.Resources[0].SID.ValueString() != "ct:101" || !m.Resources[0].CRMState.IsNull() ||
		m.Resources[0].Type.ValueString() != "ct" || m.Resources[1].VMID.ValueInt64() != 100 {
		t.Errorf("resources: %+v", m.Resources)
	}
}
