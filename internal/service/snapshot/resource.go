package snapshot

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

var (
	_ resource.Resource                = (*snapshotResource)(nil)
	_ resource.ResourceWithConfigure   = (*snapshotResource)(nil)
	_ resource.ResourceWithImportState = (*snapshotResource)(nil)
)

// NewVMSnapshotResource is the pve_vm_snapshot constructor registered
// with the provider.
func NewVMSnapshotResource() resource.Resource {
	return fwutil.WithIdentity(&snapshotResource{kind: vmKind}, resourceIdentity)
}

// NewContainerSnapshotResource is the pve_container_snapshot constructor
// registered with the provider.
func NewContainerSnapshotResource() resource.Resource {
	return fwutil.WithIdentity(&snapshotResource{kind: containerKind}, resourceIdentity)
}

// resourceIdentity is a snapshot's key: its guest and its name. As with
// the import id, the node may be left out and is then looked up.
var resourceIdentity = fwutil.Identity{
	Attributes: []fwutil.IdentityAttribute{
		{Name: "vmid", Int: true, Description: "The guest's VMID, as `vmid`."},
		{Name: "name", Description: "The snapshot's name, as `name`."},
		{Name: "node", Optional: true, Description: "The node the guest is on, as `node`. Optional at import: the guest is " +
			"looked up in the cluster by its VMID; when given, the guest must be on that node."},
	},
	ImportID: func(v map[string]string) string {
		if v["node"] == "" {
			return v["vmid"] + "/" + v["name"]
		}
		return v["node"] + "/" + v["vmid"] + "/" + v["name"]
	},
}

type snapshotResource struct {
	kind   kind
	client *pveapi.Client
	locks  *fwutil.GuestLocks
}

type snapshotModel struct {
	ID          types.String `tfsdk:"id"`
	Node        types.String `tfsdk:"node"`
	VMID        types.Int64  `tfsdk:"vmid"`
	Name        types.String `tfsdk:"name"`
	Description types.String `tfsdk:"description"`
	VMState     types.Bool   `tfsdk:"vmstate"`
	Parent      types.String `tfsdk:"parent"`
	SnapTime    types.Int64  `tfsdk:"snaptime"`
}

// containerModel is snapshotModel without vmstate, which a container's
// snapshot has not.
type containerModel struct {
	ID          types.String `tfsdk:"id"`
	Node        types.String `tfsdk:"node"`
	VMID        types.Int64  `tfsdk:"vmid"`
	Name        types.String `tfsdk:"name"`
	Description types.String `tfsdk:"description"`
	Parent      types.String `tfsdk:"parent"`
	SnapTime    types.Int64  `tfsdk:"snaptime"`
}

func (r *snapshotResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + r.kind.resource
}

func (r *snapshotResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	noun := r.kind.noun
	attrs := map[string]schema.Attribute{
		"id": schema.StringAttribute{
			MarkdownDescription: "The snapshot's id, `NODE/VMID/NAME`.",
			Computed:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		},
		"node": schema.StringAttribute{
			MarkdownDescription: fmt.Sprintf("The node the %s is on. Changing it replaces the snapshot.", noun),
			Required:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators:          []validator.String{fwutil.Format(wire.IsNodeName, "must be a node name")},
		},
		"vmid": schema.Int64Attribute{
			MarkdownDescription: fmt.Sprintf("The VMID of the %s to snapshot, for example `pve_%s.NAME.vmid`. Changing it replaces the snapshot.",
				noun, map[bool]string{false: "vm", true: "container"}[r.kind.container]),
			Required:      true,
			PlanModifiers: []planmodifier.Int64{int64planmodifier.RequiresReplace()},
			Validators:    []validator.Int64{int64validator.Between(wire.MinVMID, wire.MaxVMID)},
		},
		"name": schema.StringAttribute{
			MarkdownDescription: "The snapshot's name: a letter, then letters, digits, `_` or `-`, 2 to 40 characters; " +
				reservedNames(r.kind) + " are reserved. Changing it replaces the snapshot.",
			Required:      true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators: []validator.String{fwutil.Format(func(s string) bool { return wire.IsSnapshotName(s, r.kind.container) },
				"must be a letter, then letters, digits, '_' or '-', 2 to 40 characters, and not a name PVE reserves ("+reservedList(r.kind)+")")},
		},
		"description": schema.StringAttribute{
			MarkdownDescription: "Free-text description of the snapshot. Changed in place.",
			Optional:            true,
			Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
		},
		"parent": schema.StringAttribute{
			MarkdownDescription: "The snapshot this one was taken on top of; null for the first. PVE changes it when the parent is deleted.",
			Computed:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		},
		"snaptime": schema.Int64Attribute{
			MarkdownDescription: "When the snapshot was taken, Unix seconds.",
			Computed:            true,
			PlanModifiers:       []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
		},
	}
	if !r.kind.container {
		attrs["vmstate"] = schema.BoolAttribute{
			MarkdownDescription: "Save the VM's RAM with the snapshot, so a rollback resumes it running. The VM must be running when the " +
				"snapshot is taken. Changing it replaces the snapshot. Defaults to `false`.",
			Optional:      true,
			Computed:      true,
			Default:       booldefault.StaticBool(false),
			PlanModifiers: []planmodifier.Bool{boolplanmodifier.RequiresReplace()},
		}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: fmt.Sprintf("A snapshot of a %s. Creating the resource takes the snapshot, destroying it deletes the snapshot; "+
			"the provider never rolls the %s back (use the `pve_guest_snapshot` action with Terraform 1.14 or later, or PVE). "+
			"The snapshot records the %s's state when it was taken: later changes to the %s do not touch it.\n\n"+
			"**Changes that replace the snapshot:** `node`, `vmid`, `name`%s.",
			noun, noun, noun, noun, map[bool]string{false: ", `vmstate`", true: ""}[r.kind.container]),
		Attributes: attrs,
	}
}

// reservedNames lists the names PVE keeps for itself, in Markdown.
func reservedNames(k kind) string {
	if k.container {
		return "`current` and `vzdump`"
	}
	return "`current` and `pending`"
}

// reservedList lists the names PVE keeps for itself, in plain text.
func reservedList(k kind) string {
	if k.container {
		return "current, vzdump"
	}
	return "current, pending"
}

func (r *snapshotResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		r.client, r.locks = pd.Client, pd.GuestLocks
	}
}

// get reads the model from a plan or state, whichever kind's model it is.
func (r *snapshotResource) get(ctx context.Context, get func(context.Context, any) diag.Diagnostics, diags *diag.Diagnostics) snapshotModel {
	if !r.kind.container {
		var m snapshotModel
		diags.Append(get(ctx, &m)...)
		return m
	}
	var c containerModel
	diags.Append(get(ctx, &c)...)
	return snapshotModel{ID: c.ID, Node: c.Node, VMID: c.VMID, Name: c.Name, Description: c.Description, Parent: c.Parent, SnapTime: c.SnapTime}
}

// value is m as the kind's model, for setting state.
func (r *snapshotResource) value(m snapshotModel) any {
	if !r.kind.container {
		return m
	}
	return containerModel{ID: m.ID, Node: m.Node, VMID: m.VMID, Name: m.Name, Description: m.Description, Parent: m.Parent, SnapTime: m.SnapTime}
}

func (r *snapshotResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	plan := r.get(ctx, req.Plan.Get, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	node, vmid, name := plan.Node.ValueString(), int(plan.VMID.ValueInt64()), plan.Name.ValueString()
	unlock, ok := r.hold(ctx, vmid, &resp.Diagnostics)
	if !ok {
		return
	}
	defer unlock()

	if plan.VMState.ValueBool() && !r.checkRunning(ctx, node, vmid, &resp.Diagnostics) {
		return
	}
	upid, err := r.client.CreateSnapshot(ctx, node, r.kind.guestType, vmid, name, plan.Description.ValueString(), plan.VMState.ValueBool())
	if err != nil {
		r.addGuestError(&resp.Diagnostics, "Unable To Create Snapshot", node, vmid, err)
		return
	}
	if !fwutil.SettleTask(ctx, r.client, upid, fmt.Sprintf("snapshot %s of %s %d", name, r.kind.noun, vmid), "Unable To Create Snapshot", &resp.Diagnostics) {
		return
	}
	if r.readBack(ctx, &plan, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, r.value(plan))...)
	}
}

// checkRunning refuses vmstate for a VM that is not running: PVE would
// take the snapshot without the RAM.
func (r *snapshotResource) checkRunning(ctx context.Context, node string, vmid int, diags *diag.Diagnostics) bool {
	status, err := r.client.GuestStatus(ctx, node, r.kind.guestType, vmid)
	if err != nil {
		r.addGuestError(diags, "Unable To Read VM Status", node, vmid, err)
		return false
	}
	if status.PowerState() != pveapi.PowerRunning {
		diags.AddAttributeError(path.Root("vmstate"), "VM Not Running", fmt.Sprintf(
			"vmstate saves the RAM of a running VM, but VM %d is %s. Start it first, or leave vmstate out.", vmid, status.PowerState()))
		return false
	}
	return true
}

// addGuestError reports err, naming a guest that does not exist plainly.
func (r *snapshotResource) addGuestError(diags *diag.Diagnostics, summary, node string, vmid int, err error) {
	if pveapi.IsNotFound(err) {
		diags.AddAttributeError(path.Root("vmid"), summary, fmt.Sprintf("No %s %d exists on node %s.", r.kind.noun, vmid, node))
		return
	}
	fwutil.AddAPIError(diags, summary, err)
}

// hold waits until no other resource of this provider works on vmid.
func (r *snapshotResource) hold(ctx context.Context, vmid int, diags *diag.Diagnostics) (func(), bool) {
	unlock, err := r.locks.Lock(ctx, vmid)
	if err != nil {
		diags.AddError("Timed Out Waiting For "+r.kind.title(), fmt.Sprintf(
			"Another operation of this provider on %s %d did not finish in time: %v. Apply again once it is done.", r.kind.noun, vmid, err))
		return nil, false
	}
	return unlock, true
}

// readBack reads the snapshot after a write.
func (r *snapshotResource) readBack(ctx context.Context, m *snapshotModel, diags *diag.Diagnostics) bool {
	node, vmid, name := m.Node.ValueString(), int(m.VMID.ValueInt64()), m.Name.ValueString()
	snap, found, err := r.client.FindSnapshot(ctx, node, r.kind.guestType, vmid, name)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read Snapshot After Writing It", err)
		return false
	}
	if !found {
		fwutil.AddVanishedAfterWrite(diags, "Snapshot", fmt.Sprintf("Snapshot %s of %s %d", name, r.kind.noun, vmid))
		return false
	}
	r.fromAPI(m, node, vmid, snap)
	return true
}

// fromAPI sets m from what PVE reports. A description PVE reformatted
// (trailing newlines, a container's final newline) keeps the configured
// text.
func (r *snapshotResource) fromAPI(m *snapshotModel, node string, vmid int, snap pveapi.Snapshot) {
	m.ID = types.StringValue(snapshotID(node, vmid, snap.Name))
	m.Node = types.StringValue(node)
	m.VMID = types.Int64Value(int64(vmid))
	m.Name = types.StringValue(snap.Name)
	switch {
	case !m.Description.IsNull() && !m.Description.IsUnknown() &&
		wire.SnapshotDescriptionKept(m.Description.ValueString(), r.kind.container) == snap.Description:
	case snap.Description == "":
		m.Description = types.StringNull()
	case r.kind.container:
		// pve-container ends every line with a newline; the last one is
		// its, not the description's.
		m.Description = types.StringValue(strings.TrimSuffix(snap.Description, "\n"))
	default:
		m.Description = types.StringValue(snap.Description)
	}
	if !r.kind.container {
		m.VMState = types.BoolValue(snap.VMState)
	}
	m.Parent = types.StringNull()
	if snap.Parent != "" {
		m.Parent = types.StringValue(snap.Parent)
	}
	m.SnapTime = types.Int64Value(snap.SnapTime)
}

func (r *snapshotResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	state := r.get(ctx, req.State.Get, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	node, vmid, name := state.Node.ValueString(), int(state.VMID.ValueInt64()), state.Name.ValueString()
	snap, found, err := r.client.FindSnapshot(ctx, node, r.kind.guestType, vmid, name)
	if pveapi.IsNotFound(err) {
		// The guest is gone, and its snapshots with it.
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read Snapshot", err)
		return
	}
	if !found {
		resp.State.RemoveResource(ctx)
		return
	}
	r.fromAPI(&state, node, vmid, snap)
	resp.Diagnostics.Append(resp.State.Set(ctx, r.value(state))...)
}

func (r *snapshotResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	plan := r.get(ctx, req.Plan.Get, &resp.Diagnostics)
	state := r.get(ctx, req.State.Get, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	node, vmid, name := plan.Node.ValueString(), int(plan.VMID.ValueInt64()), plan.Name.ValueString()
	if !plan.Description.Equal(state.Description) {
		unlock, ok := r.hold(ctx, vmid, &resp.Diagnostics)
		if !ok {
			return
		}
		defer unlock()
		if err := r.client.UpdateSnapshotDescription(ctx, node, r.kind.guestType, vmid, name, plan.Description.ValueString()); err != nil {
			fwutil.AddAttributeAPIError(&resp.Diagnostics, path.Root("description"), "Unable To Update Snapshot", err)
			return
		}
	}
	if r.readBack(ctx, &plan, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, r.value(plan))...)
	}
}

func (r *snapshotResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	state := r.get(ctx, req.State.Get, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	node, vmid, name := state.Node.ValueString(), int(state.VMID.ValueInt64()), state.Name.ValueString()
	unlock, ok := r.hold(ctx, vmid, &resp.Diagnostics)
	if !ok {
		return
	}
	defer unlock()
	// A snapshot or guest already gone is what Delete wants. Deleting a
	// snapshot never rolls the guest back.
	upid, err := r.client.DeleteSnapshot(ctx, node, r.kind.guestType, vmid, name)
	if pveapi.IsNotFound(err) || pveapi.IsSnapshotNotFound(err) {
		return
	}
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Delete Snapshot", err)
		return
	}
	result, err := r.client.WaitTask(ctx, upid)
	if pveapi.IsNotFound(err) || pveapi.IsSnapshotNotFound(err) {
		return
	}
	fwutil.ReportTask(result, err, fmt.Sprintf("deleting snapshot %s of %s %d", name, r.kind.noun, vmid), "Unable To Delete Snapshot", &resp.Diagnostics)
}

func (r *snapshotResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	wantNode, vmid, name, err := r.kind.parseImportID(req.ID)
	if err != nil {
		resp.Diagnostics.AddError("Invalid Import ID", err.Error())
		return
	}
	node, ok := r.kind.locateGuest(ctx, r.client, wantNode, vmid, &resp.Diagnostics, path.Root("vmid"))
	if !ok {
		return
	}
	snap, found, err := r.client.FindSnapshot(ctx, node, r.kind.guestType, vmid, name)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read Snapshot", err)
		return
	}
	if !found {
		resp.Diagnostics.AddError("Snapshot Not Found", fmt.Sprintf("%s %d on node %s has no snapshot %q.", r.kind.title(), vmid, node, name))
		return
	}
	m := snapshotModel{Description: types.StringNull()}
	r.fromAPI(&m, node, vmid, snap)
	resp.Diagnostics.Append(resp.State.Set(ctx, r.value(m))...)
}
