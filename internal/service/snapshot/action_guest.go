package snapshot

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// What the guest actions share: the guest they act on, found by VMID in
// the cluster (a VM or a container), and the provider's guest lock, held
// for the whole action so no resource of this configuration works on the
// guest meanwhile.

// guestAttributes are the attributes naming an action's guest.
func guestAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"vmid": schema.Int64Attribute{
			MarkdownDescription: "The VMID of the VM or container to act on.",
			Required:            true,
			Validators:          []validator.Int64{int64validator.Between(wire.MinVMID, wire.MaxVMID)},
		},
		"node": schema.StringAttribute{
			MarkdownDescription: "The node the guest is on. When not set, the guest is looked up in the cluster by its VMID; when set, the guest must be on that node.",
			Optional:            true,
			Validators:          []validator.String{fwutil.Format(wire.IsNodeName, "must be a node name")},
		},
	}
}

// actionGuest is the guest an action acts on.
type actionGuest struct {
	node string
	vmid int
	kind kind
}

func (g actionGuest) String() string {
	return fmt.Sprintf("%s %d on node %s", g.kind.noun, g.vmid, g.node)
}

// Title is String at the start of a sentence.
func (g actionGuest) Title() string {
	return fmt.Sprintf("%s %d on node %s", g.kind.title(), g.vmid, g.node)
}

// findGuest locates the guest named by vmid and node (may be null).
func findGuest(ctx context.Context, client *pveapi.Client, node types.String, vmid types.Int64, diags *diag.Diagnostics) (actionGuest, bool) {
	id := int(vmid.ValueInt64())
	guest, found, err := client.LocateGuest(ctx, id)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Find Guest", err)
		return actionGuest{}, false
	}
	if !found {
		diags.AddAttributeError(path.Root("vmid"), "Guest Not Found", fmt.Sprintf("No guest with VMID %d exists in the cluster.", id))
		return actionGuest{}, false
	}
	k, ok := kindOf(guest.Type)
	if !ok {
		diags.AddAttributeError(path.Root("vmid"), "Guest Not Found", fmt.Sprintf("VMID %d is a %s, not a VM or container.", id, guest.Type))
		return actionGuest{}, false
	}
	if want := node.ValueString(); want != "" && guest.Node != want {
		diags.AddAttributeError(path.Root("node"), "Guest On Another Node", fmt.Sprintf(
			"%s %d is on node %s, not %s.", k.title(), id, guest.Node, want))
		return actionGuest{}, false
	}
	return actionGuest{node: guest.Node, vmid: id, kind: k}, true
}

// guestActionBase is what both actions hold from the provider.
type guestActionBase struct {
	client *pveapi.Client
	locks  *fwutil.GuestLocks
}

func (b *guestActionBase) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		b.client, b.locks = pd.Client, pd.GuestLocks
	}
}

// hold takes the provider's lock on the guest.
func (b *guestActionBase) hold(ctx context.Context, g actionGuest, diags *diag.Diagnostics) (func(), bool) {
	unlock, err := b.locks.Lock(ctx, g.vmid)
	if err != nil {
		diags.AddError("Timed Out Waiting For "+g.kind.title(), fmt.Sprintf(
			"Another operation of this provider on %s did not finish in time: %v.", g, err))
		return nil, false
	}
	return unlock, true
}

// runTask waits for a task, reporting progress, and adds its failure.
func (b *guestActionBase) runTask(ctx context.Context, resp *action.InvokeResponse, upid, what, summary string) bool {
	if resp.SendProgress != nil {
		resp.SendProgress(action.InvokeProgressEvent{Message: "Waiting for the PVE task: " + what + "..."})
	}
	return fwutil.SettleTask(ctx, b.client, upid, what, summary, &resp.Diagnostics)
}

// progress reports a message while the action runs.
func progress(resp *action.InvokeResponse, format string, args ...any) {
	if resp.SendProgress != nil {
		resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf(format, args...)})
	}
}
