package replication

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

func TestFromAPIKeepsUnsetOptionsNull(t *testing.T) {
	t.Parallel()
	var job pveapi.ReplicationJob
	if err := json.Unmarshal([]byte(`{"id":"100-2","type":"local","guest":100,"jobnum":2,"target":"pve2","source":"pve1","digest":"d"}`), &job); err != nil {
		t.Fatal(err)
	}
	var m jobModel
	m.fromAPI(&job)
	if m.ID.ValueString() != "100-2" || m.VMID.ValueInt64() != 100 || m.JobNumber.ValueInt64() != 2 ||
		m.Target.ValueString() != "pve2" || m.Source.ValueString() != "pve1" {
		t.Errorf("model = %+v", m)
	}
	// PVE's defaults (schedule */15, no rate limit, enabled) stay null.
	if !m.Schedule.IsNull() || !m.Rate.IsNull() || !m.Comment.IsNull() || !m.Disable.IsNull() {
		t.Errorf("unset options not null: %+v", m)
	}
	if err := json.Unmarshal([]byte(`{"id":"100-2","target":"pve2","rate":"12.5","disable":0,"schedule":"*/30","comment":"c"}`), &job); err != nil {
		t.Fatal(err)
	}
	m.fromAPI(&job)
	if m.Rate.ValueFloat64() != 12.5 || m.Disable.IsNull() || m.Disable.ValueBool() || m.Schedule.ValueString() != "*/30" || m.Comment.ValueString() != "c" {
		t.Errorf("set options: %+v", m)
	}
}

func TestUpdateParams(t *testing.T) {
	t.Parallel()
	state := jobModel{
		Schedule: types.StringValue("*/15"), Comment: types.StringValue("old"),
		Rate: types.Float64Value(10), Disable: types.BoolNull(),
	}
	plan := jobModel{
		Schedule: types.StringValue("*/5"), Comment: types.StringNull(),
		Rate: types.Float64Null(), Disable: types.BoolValue(true),
	}
	set, remove := updateParams(&state, &plan)
	if set.Get("schedule") != "*/5" || set.Get("disable") != "1" || len(set) != 2 {
		t.Errorf("set = %v", set)
	}
	if !slices.Equal(remove, []string{"comment", "rate"}) {
		t.Errorf("remove = %v", remove)
	}
	set, remove = updateParams(&plan, &plan)
	if len(set) != 0 || len(remove) != 0 {
		t.Errorf("no change gives %v %v", set, remove)
	}
}

func TestFirstFreeJobNumber(t *testing.T) {
	t.Parallel()
	jobs := []pveapi.ReplicationJob{{ID: "100-0"}, {ID: "100-1"}, {ID: "100-3"}, {ID: "101-2"}, {ID: "1000-2"}}
	if got := firstFreeJobNumber(jobs, 100); got != 2 {
		t.Errorf("guest 100: %d", got)
	}
	if got := firstFreeJobNumber(jobs, 101); got != 0 {
		t.Errorf("guest 101: %d", got)
	}
}

func TestFollowedGuest(t *testing.T) {
	t.Parallel()
	s := types.StringValue
	if !followedGuest(s("pve2"), s("pve1"), s("pve2")) {
		t.Error("a job turned around after its guest moved to pve2 is not recognised")
	}
	for _, tc := range [][3]types.String{
		{s("pve2"), s("pve2"), s("pve1")},          // as declared
		{s("pve2"), s("pve3"), s("pve1")},          // changed outside Terraform
		{types.StringNull(), s("pve1"), s("pve2")}, // import: nothing declared
	} {
		if followedGuest(tc[0], tc[1], tc[2]) {
			t.Errorf("%v taken for a turned-around job", tc)
		}
	}
}
