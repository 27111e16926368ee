package guestops

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// driverModel is the smallest guest model the driver can run on.
type driverModel struct {
	Node       types.String   `tfsdk:"node"`
	VMID       types.Int64    `tfsdk:"vmid"`
	Pool       types.String   `tfsdk:"pool"`
	Protection types.Bool     `tfsdk:"protection"`
	Timeouts   timeouts.Value `tfsdk:"timeouts"`
}

func driverSchema(ctx context.Context) schema.Schema {
	return schema.Schema{Attributes: map[string]schema.Attribute{
		"node":       schema.StringAttribute{Required: true},
		"vmid":       schema.Int64Attribute{Required: true},
		"pool":       schema.StringAttribute{Optional: true},
		"protection": schema.BoolAttribute{Optional: true},
		"timeouts":   timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
	}}
}

// recordingHooks implements the hooks the tests reach; any other hook
// panics through the nil embedded interface, which fails the test.
type recordingHooks struct {
	Hooks[driverModel]
	applied, afterDelete int
}

func (h *recordingHooks) Attributes(m *driverModel) Attributes {
	return Attributes{Node: &m.Node, Pool: &m.Pool, VMID: m.VMID, Protection: m.Protection, Timeouts: m.Timeouts}
}

func (h *recordingHooks) ApplyUpdate(context.Context, tfsdk.Config, string, int, *driverModel, *driverModel, *diag.Diagnostics) (ConfigChange, bool) {
	h.applied++
	return ConfigChange{}, true
}

func (h *recordingHooks) AfterDelete(context.Context, *driverModel, *diag.Diagnostics) {
	h.afterDelete++
}

// driverState is a state (or plan) holding m.
func driverState(t *testing.T, m driverModel) tfsdk.State {
	t.Helper()
	ctx := context.Background()
	s := driverSchema(ctx)
	m.Timeouts = timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{
		"create": types.StringType, "update": types.StringType, "delete": types.StringType,
	})}
	state := tfsdk.State{Schema: s, Raw: tftypes.NewValue(s.Type().TerraformType(ctx), nil)}
	if diags := state.Set(ctx, &m); diags.HasError() {
		t.Fatalf("state: %v", diags)
	}
	return state
}

// A protected guest is refused before any request is sent (the client
// has no address), and the kind's cleanup still runs, to decide on its own.
func TestDriverDeleteRefusesProtectedGuest(t *testing.T) {
	t.Parallel()
	hooks := &recordingHooks{}
	d := Driver[driverModel]{API: API{Client: &pveapi.Client{}, Kind: Container, Locks: &fwutil.GuestLocks{}}, Hooks: hooks}
	state := driverState(t, driverModel{Node: types.StringValue("pve1"), VMID: types.Int64Value(300), Protection: types.BoolValue(true)})
	resp := &resource.DeleteResponse{State: state}
	d.Delete(context.Background(), resource.DeleteRequest{State: state}, resp)

	if len(resp.Diagnostics) != 1 || resp.Diagnostics[0].Summary() != "Container Is Protected" {
		t.Fatalf("diagnostics %v, want only the protection error", resp.Diagnostics)
	}
	if withPath, ok := resp.Diagnostics[0].(diag.DiagnosticWithPath); !ok || !withPath.Path().Equal(path.Root("protection")) {
		t.Errorf("the error is not on protection: %v", resp.Diagnostics[0])
	}
	if hooks.afterDelete != 1 {
		t.Errorf("AfterDelete ran %d times, want once", hooks.afterDelete)
	}
}

// W10: an update waits for the provider's other work on the guest; a
// deadline that ends the wait is an error, the config is never touched
// and state stays as it was.
func TestDriverUpdateWaitsForTheGuestLockW10(t *testing.T) {
	t.Parallel()
	hooks := &recordingHooks{}
	api := API{Client: &pveapi.Client{}, Kind: Container, Locks: &fwutil.GuestLocks{}}
	d := Driver[driverModel]{API: api, Hooks: hooks}
	unlock, err := api.LockGuest(context.Background(), 301)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()

	prior := driverState(t, driverModel{Node: types.StringValue("pve1"), VMID: types.Int64Value(301)})
	planned := driverState(t, driverModel{Node: types.StringValue("pve2"), VMID: types.Int64Value(301)})
	req := resource.UpdateRequest{
		Plan:  tfsdk.Plan(planned),
		State: prior,
	}
	resp := &resource.UpdateResponse{State: tfsdk.State{Schema: prior.Schema, Raw: prior.Raw.Copy()}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d.Update(ctx, req, resp)

	if !resp.Diagnostics.HasError() || resp.Diagnostics[0].Summary() != "Timed Out Waiting For Container" {
		t.Fatalf("diagnostics %v, want the wait for the guest to end with an error", resp.Diagnostics)
	}
	if hooks.applied != 0 {
		t.Errorf("the config was written %d times while another operation held the guest", hooks.applied)
	}
	if !resp.State.Raw.Equal(prior.Raw) {
		t.Errorf("state changed to %v, want the prior state", resp.State.Raw)
	}
}
