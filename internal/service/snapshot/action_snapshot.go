package snapshot

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
)

// Snapshot operations of the pve_guest_snapshot action.
const (
	snapshotCreate   = "create"
	snapshotRollback = "rollback"
	snapshotDelete   = "delete"
)

var (
	_ action.ActionWithConfigure      = (*snapshotAction)(nil)
	_ action.ActionWithValidateConfig = (*snapshotAction)(nil)
)

// NewSnapshotAction is the pve_guest_snapshot constructor registered with
// the provider.
func NewSnapshotAction() action.Action { return &snapshotAction{} }

type snapshotAction struct{ guestActionBase }

type snapshotActionModel struct {
	VMID        types.Int64  `tfsdk:"vmid"`
	Node        types.String `tfsdk:"node"`
	Operation   types.String `tfsdk:"operation"`
	Name        types.String `tfsdk:"name"`
	Description types.String `tfsdk:"description"`
	VMState     types.Bool   `tfsdk:"vmstate"`
	Start       types.Bool   `tfsdk:"start"`
}

func (a *snapshotAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_guest_snapshot"
}

func (a *snapshotAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	attrs := guestAttributes()
	attrs["operation"] = schema.StringAttribute{
		MarkdownDescription: "`create` takes the snapshot, `rollback` returns the guest to it (everything since is lost), `delete` deletes it.",
		Required:            true,
		Validators:          []validator.String{stringvalidator.OneOf(snapshotCreate, snapshotRollback, snapshotDelete)},
	}
	attrs["name"] = schema.StringAttribute{
		MarkdownDescription: "The snapshot's name: a letter, then letters, digits, `_` or `-`, 2 to 40 characters; `current`, a VM's `pending` and a container's `vzdump` are reserved.",
		Required:            true,
	}
	attrs["description"] = schema.StringAttribute{
		MarkdownDescription: "The new snapshot's description (`create` only).",
		Optional:            true,
	}
	attrs["vmstate"] = schema.BoolAttribute{
		MarkdownDescription: "Save a running VM's RAM with the snapshot (`create` of a VM only); a rollback to it resumes the VM running.",
		Optional:            true,
	}
	attrs["start"] = schema.BoolAttribute{
		MarkdownDescription: "Start the guest after the rollback (`rollback` only). A VM snapshot with RAM always resumes running.",
		Optional:            true,
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Takes, rolls back to or deletes a snapshot of a VM or container, with `terraform apply -invoke` or from a " +
			"resource's `action_trigger` (for example a snapshot before each update of a guest). Needs Terraform 1.14 or later; " +
			"with older versions use `pve_vm_snapshot` or `pve_container_snapshot`. A rollback changes the guest's configuration " +
			"back to the snapshot's: the next plan of a resource managing the guest shows the difference and changes it back.",
		Attributes: attrs,
	}
}

func (a *snapshotAction) ValidateConfig(ctx context.Context, req action.ValidateConfigRequest, resp *action.ValidateConfigResponse) {
	var m snapshotActionModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || m.Operation.IsUnknown() {
		return
	}
	op := m.Operation.ValueString()
	onlyFor := func(attr string, v interface{ IsNull() bool }, want string) {
		if !v.IsNull() && op != want {
			resp.Diagnostics.AddAttributeError(path.Root(attr), "Attribute Not Used",
				fmt.Sprintf("%s only applies to operation = %q, not %q.", attr, want, op))
		}
	}
	onlyFor("description", m.Description, snapshotCreate)
	onlyFor("vmstate", m.VMState, snapshotCreate)
	onlyFor("start", m.Start, snapshotRollback)
	if name := m.Name.ValueString(); !m.Name.IsUnknown() && !m.Name.IsNull() && !validSnapshotName(name) {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Invalid Snapshot Name",
			fmt.Sprintf("name must be a letter, then letters, digits, '_' or '-', 2 to 40 characters, and not current, got %q.", name))
	}
}

// validSnapshotName accepts what either kind accepts; the kind's own
// reserved name is PVE's to refuse, as the kind is known at invoke time.
func validSnapshotName(s string) bool {
	return vmKind.validName(s) || containerKind.validName(s)
}

func (a *snapshotAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m snapshotActionModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	g, ok := findGuest(ctx, a.client, m.Node, m.VMID, &resp.Diagnostics)
	if !ok {
		return
	}
	name := m.Name.ValueString()
	if !g.kind.validName(name) {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Invalid Snapshot Name",
			fmt.Sprintf("%q is reserved by PVE for a %s's snapshots.", name, g.kind.noun))
		return
	}
	if m.VMState.ValueBool() && g.kind.container {
		resp.Diagnostics.AddAttributeError(path.Root("vmstate"), "No RAM Snapshot For A Container",
			fmt.Sprintf("%s is a container: its snapshots never hold RAM. Leave vmstate out.", g))
		return
	}
	unlock, ok := a.hold(ctx, g, &resp.Diagnostics)
	if !ok {
		return
	}
	defer unlock()

	var upid string
	var err error
	var what string
	switch m.Operation.ValueString() {
	case snapshotCreate:
		what = fmt.Sprintf("taking snapshot %s of %s", name, g)
		upid, err = a.client.CreateSnapshot(ctx, g.node, g.kind.guestType, g.vmid, name, m.Description.ValueString(), m.VMState.ValueBool())
	case snapshotRollback:
		what = fmt.Sprintf("rolling %s back to snapshot %s", g, name)
		upid, err = a.client.RollbackSnapshot(ctx, g.node, g.kind.guestType, g.vmid, name, m.Start.ValueBool())
	case snapshotDelete:
		what = fmt.Sprintf("deleting snapshot %s of %s", name, g)
		upid, err = a.client.DeleteSnapshot(ctx, g.node, g.kind.guestType, g.vmid, name)
	}
	summary := "Unable To " + titleOp(m.Operation.ValueString()) + " Snapshot"
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, summary, err)
		return
	}
	if !a.runTask(ctx, resp, upid, what, summary) {
		return
	}
	switch m.Operation.ValueString() {
	case snapshotCreate:
		progress(resp, "Took snapshot %s of %s.", name, g)
	case snapshotRollback:
		progress(resp, "Rolled %s back to snapshot %s. A resource managing it plans, at its next plan, to change back "+
			"whatever the snapshot's configuration differs in from its declared one, and to start or stop the guest as its started declares.", g, name)
	case snapshotDelete:
		progress(resp, "Deleted snapshot %s of %s.", name, g)
	}
}

func titleOp(op string) string {
	switch op {
	case snapshotRollback:
		return "Roll Back To"
	case snapshotDelete:
		return "Delete"
	}
	return "Take"
}
