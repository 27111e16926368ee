package snapshot

import (
	"context"
	"fmt"
	"net/url"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// Operations of the pve_guest_power action, named as PVE's
// .../status/{action} (both kinds have each of them).
var powerOperations = []string{pveapi.QemuStart, pveapi.QemuShutdown, pveapi.QemuStop, pveapi.QemuReboot, pveapi.QemuSuspend, pveapi.QemuResume}

// defaultShutdownTimeout is how long a shutdown waits for the guest
// before stopping it, seconds (pve-container's default for its shutdown).
const defaultShutdownTimeout = 60

var (
	_ action.ActionWithConfigure      = (*powerAction)(nil)
	_ action.ActionWithValidateConfig = (*powerAction)(nil)
)

// NewPowerAction is the pve_guest_power constructor registered with the
// provider.
func NewPowerAction() action.Action { return &powerAction{} }

type powerAction struct{ guestActionBase }

type powerActionModel struct {
	VMID      types.Int64  `tfsdk:"vmid"`
	Node      types.String `tfsdk:"node"`
	Operation types.String `tfsdk:"operation"`
	Timeout   types.Int64  `tfsdk:"timeout"`
}

func (a *powerAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_guest_power"
}

func (a *powerAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	attrs := guestAttributes()
	attrs["operation"] = schema.StringAttribute{
		MarkdownDescription: "`start`; `shutdown` (asks the guest OS to shut down and stops the guest when it has not after `timeout`); " +
			"`stop` (at once, like pulling the plug); `reboot`; `suspend` (pauses a VM, freezes a container); `resume`.",
		Required:   true,
		Validators: []validator.String{stringvalidator.OneOf(powerOperations...)},
	}
	attrs["timeout"] = schema.Int64Attribute{
		MarkdownDescription: fmt.Sprintf("Seconds a `shutdown` or `reboot` waits for the guest OS before the guest is stopped; defaults to %d.",
			defaultShutdownTimeout),
		Optional:   true,
		Validators: []validator.Int64{int64validator.AtLeast(0)},
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Starts, shuts down, stops, reboots, suspends or resumes a VM or container, with `terraform apply -invoke` or " +
			"from a resource's `action_trigger`. Needs Terraform 1.14 or later. The action does not change what Terraform manages: " +
			"a `pve_vm` or `pve_container` declares with `started` (true by default) whether the guest runs, and its next plan puts " +
			"the guest back in that state; the action says so when it leaves the guest otherwise.",
		Attributes: attrs,
	}
}

func (a *powerAction) ValidateConfig(ctx context.Context, req action.ValidateConfigRequest, resp *action.ValidateConfigResponse) {
	var m powerActionModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || m.Operation.IsUnknown() || m.Timeout.IsNull() {
		return
	}
	if op := m.Operation.ValueString(); op != pveapi.QemuShutdown && op != pveapi.QemuReboot {
		resp.Diagnostics.AddAttributeError(path.Root("timeout"), "Attribute Not Used",
			fmt.Sprintf("timeout only applies to operation = \"shutdown\" or \"reboot\", not %q.", op))
	}
}

func (a *powerAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m powerActionModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	g, ok := findGuest(ctx, a.client, m.Node, m.VMID, &resp.Diagnostics)
	if !ok {
		return
	}
	unlock, ok := a.hold(ctx, g, &resp.Diagnostics)
	if !ok {
		return
	}
	defer unlock()

	op := m.Operation.ValueString()
	timeout := defaultShutdownTimeout
	if !m.Timeout.IsNull() {
		timeout = int(m.Timeout.ValueInt64())
	}
	params := url.Values{}
	switch op {
	case pveapi.QemuShutdown:
		// PVE stops the guest itself when the shutdown has not ended
		// after timeout (forceStop).
		params.Set("timeout", strconv.Itoa(timeout))
		params.Set("forceStop", pveapi.FormBool(true))
	case pveapi.QemuReboot:
		params.Set("timeout", strconv.Itoa(timeout))
	}
	summary := "Unable To " + titleWord(op) + " " + g.kind.title()
	upid, err := a.client.GuestStatusAction(ctx, g.node, g.kind.guestType, g.vmid, op, params)
	switch {
	case err == nil:
	case (op == pveapi.QemuStart || op == pveapi.QemuResume) && pveapi.IsCTAlreadyRunning(err),
		(op == pveapi.QemuShutdown || op == pveapi.QemuStop) && pveapi.IsCTNotRunning(err):
		// A container already where the operation would take it.
		progress(resp, "%s already is where %s would take it.", g.Title(), op)
		return
	default:
		fwutil.AddAPIError(&resp.Diagnostics, summary, err)
		return
	}
	if !a.runTask(ctx, resp, upid, op+" of "+g.String(), summary) {
		return
	}
	switch op {
	case pveapi.QemuStart, pveapi.QemuResume:
		progress(resp, "%s is running. A resource managing it with started = false plans to stop it again at its next plan.", g.Title())
	case pveapi.QemuShutdown, pveapi.QemuStop:
		progress(resp, "%s is stopped. A resource managing it with started = true (the default) plans to start it again at its "+
			"next plan; declare started = false to keep it stopped.", g.Title())
	case pveapi.QemuSuspend:
		progress(resp, "%s is suspended. A resource managing it with started = true (the default) may plan to resume it at its next plan.", g.Title())
	default:
		progress(resp, "%s rebooted.", g.Title())
	}
}

func titleWord(op string) string {
	if op == "" {
		return op
	}
	return string(op[0]-'a'+'A') + op[1:]
}
