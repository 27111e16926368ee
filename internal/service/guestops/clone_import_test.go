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

// A creation source only says how a guest is made: set on an imported
// guest, changed or removed, it is recorded and never replaces the guest
// (W5); a known source that changes or goes says so with a warning.
func TestCloneSourceIsOnlyRecorded(t *testing.T) {
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
		warns       bool
	}{
		{"set after import", none, source(9000), false},
		{"changed", source(9000), source(9001), true},
		{"removed", source(9000), none, true},
		{"unchanged", source(9000), source(9000), false},
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
		sourceRecorded("clone").PlanModifyObject(context.Background(), req, &resp)
		if resp.RequiresReplace {
			t.Errorf("%s: the source replaces the guest", tc.name)
		}
		if warns := len(resp.Diagnostics.Warnings()) == 1; warns != tc.warns {
			t.Errorf("%s: warns = %v, want %v (%v)", tc.name, warns, tc.warns, resp.Diagnostics)
		}
	}
}
