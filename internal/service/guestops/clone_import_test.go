package guestops

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// PVE does not record what a guest was cloned from: a source set on an
// imported guest is recorded, a known source that changes or goes replaces.
func TestCloneSourceReplacesOnlyAKnownSource(t *testing.T) {
	t.Parallel()
	attrTypes := map[string]attr.Type{"source_vmid": types.Int64Type}
	source := func(vmid int64) types.Object {
		return types.ObjectValueMust(attrTypes, map[string]attr.Value{"source_vmid": types.Int64Value(vmid)})
	}
	none := types.ObjectNull(attrTypes)
	existing := tftypes.NewValue(tftypes.String, "a guest")
	for _, tc := range []struct {
		name        string
		state, plan types.Object
		replace     bool
	}{
		{"set after import", none, source(9000), false},
		{"changed", source(9000), source(9001), true},
		{"removed", source(9000), none, true},
	} {
		req := planmodifier.ObjectRequest{
			Path:        path.Root("clone"),
			State:       tfsdk.State{Raw: existing},
			Plan:        tfsdk.Plan{Raw: existing},
			StateValue:  tc.state,
			PlanValue:   tc.plan,
			ConfigValue: tc.plan,
		}
		var resp planmodifier.ObjectResponse
		resp.PlanValue = tc.plan
		knownSourceReplaces("clone source").PlanModifyObject(context.Background(), req, &resp)
		if resp.RequiresReplace != tc.replace {
			t.Errorf("%s: RequiresReplace = %v, want %v", tc.name, resp.RequiresReplace, tc.replace)
		}
	}
}
