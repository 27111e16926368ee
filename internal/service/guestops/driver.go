package guestops

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// Default timeouts of a guest resource's operations when the configuration
// sets none.
const (
	DefaultCreateTimeout = 20 * time.Minute
	DefaultUpdateTimeout = 20 * time.Minute
	DefaultDeleteTimeout = 10 * time.Minute
)

// Attributes are what the driver reads of a guest model: the attributes
// every guest has. Node and Pool point into the model, which the driver
// updates with what PVE reports; the rest are copies taken when the
// Attributes were.
type Attributes struct {
	Node *types.String
	Pool *types.String
	VMID types.Int64
	// Name is the planned name: a VM's name, a container's hostname.
	Name types.String
	// Description points into the model: a flow that keeps a marker in
	// the guest's description sets it there.
	Description       *types.String
	Protection        types.Bool
	Started           types.Bool
	PurgeRemovedDisks types.Bool
	RebootAfterUpdate types.Bool
	Timeouts          timeouts.Value
	Clone             *CloneModel
	Restore           *RestoreModel
	// Origin points into the model: what the guest was made from, kept
	// after its source attributes are removed (see Origin).
	Origin *Origin
}

func (a Attributes) vmid() int { return int(a.VMID.ValueInt64()) }

// inherits tells whether the guest was made from a source whose undeclared
// settings it keeps: a clone or a restore.
func (a Attributes) inherits() bool { return a.KnownOrigin() != OriginNone }

// PrivateSetter is the part of a response's private state a refresh may
// record into.
type PrivateSetter interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// PrivateGetter is the part of a request's private state a refresh or
// a plan reads.
type PrivateGetter interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

// ConfigChange is what the config step of an update did.
type ConfigChange struct {
	// Written tells that a config request was sent: changes may wait for a
	// restart.
	Written bool
	// Detached are the volumes the request detached, by slot, for a purge
	// that has to wait until power is settled.
	Detached map[string]string
}

// Hooks are the steps of a guest resource's flows that depend on its kind
// and that every kind has. A step reports its failures in diags; one that
// returns a bool stops the flow with false. The steps only some kinds have
// are the optional interfaces below: a kind implements one when it has
// something to do there, and the flow skips it otherwise.
type Hooks[M any] interface {
	// Attributes are m's common attributes.
	Attributes(m *M) Attributes
	// FromAPI fills m from the guest's config and status/current.
	FromAPI(m *M, vmid int, config pveapi.GuestConfig, status *pveapi.GuestStatus) error

	// CreateForm is the create request of plan, without vmid.
	CreateForm(ctx context.Context, config tfsdk.Config, plan *M, diags *diag.Diagnostics) (form url.Values, ok bool)
	// Recognize tells whether a guest found on the VMID after a lost
	// create answer is the one form describes (W13).
	Recognize(plan *M, config pveapi.GuestConfig, form url.Values) bool
	// WriteView sends the one config request that turns live into view,
	// nothing when live already is view. A request that cannot be
	// computed is reported under summary.
	WriteView(ctx context.Context, node string, vmid int, view *M, live pveapi.GuestConfig, summary string, diags *diag.Diagnostics) bool
	// FinishCreate completes a created guest before it is started: what
	// the create request could not carry, volume growth and moves.
	FinishCreate(ctx context.Context, config tfsdk.Config, node string, vmid int, plan *M, diags *diag.Diagnostics) bool
	// SourceHooks create the guest from a clone source or an archive.
	SourceHooks[M]

	// ApplyUpdate takes the guest on node from state to plan: the config
	// request and what has to follow it before power is settled.
	ApplyUpdate(ctx context.Context, config tfsdk.Config, node string, vmid int, state, plan *M, diags *diag.Diagnostics) (ConfigChange, bool)
}

// ReadNoter records, after a refresh filled m from live, what the plan
// needs beyond the model.
type ReadNoter[M any] interface {
	NoteRead(ctx context.Context, live Live, m *M, private PrivateSetter, diags *diag.Diagnostics)
}

// UpdateFinisher runs what has to wait until power is settled after an
// update.
type UpdateFinisher[M any] interface {
	FinishUpdate(ctx context.Context, node string, vmid int, plan *M, change ConfigChange, diags *diag.Diagnostics) bool
}

// ReadBackCompleter completes m after it was read back from PVE, with the
// prior state when there is one.
type ReadBackCompleter[M any] interface {
	AfterReadBack(ctx context.Context, node string, vmid int, m, prior *M, diags *diag.Diagnostics)
}

// DeleteCleaner cleans up what destroying the guest left.
type DeleteCleaner[M any] interface {
	AfterDelete(ctx context.Context, state *M, diags *diag.Diagnostics)
}

// Driver runs the create, read, update and delete flows of a guest
// resource: the sequence both kinds share, with the kind's own steps taken
// from Hooks.
type Driver[M any] struct {
	API   API
	Hooks Hooks[M]
}

// Create makes the guest: from scratch, as a clone or from a backup
// archive. Its id is saved as soon as PVE accepted the request.
func (d Driver[M]) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan M
	diags := &resp.Diagnostics
	diags.Append(req.Plan.Get(ctx, &plan)...)
	if diags.HasError() {
		return
	}
	attrs := d.Hooks.Attributes(&plan)
	loadOrigin(ctx, nil, resp.Private, attrs, diags)
	ctx, cancel, ok := bound(ctx, attrs.Timeouts.Create, DefaultCreateTimeout, diags)
	if !ok {
		return
	}
	defer cancel()

	if attrs.Clone != nil {
		d.createClone(ctx, req, resp, &plan)
		return
	}
	if attrs.Restore != nil {
		d.createRestore(ctx, req, resp, &plan)
		return
	}
	form, ok := d.Hooks.CreateForm(ctx, req.Config, &plan, diags)
	if !ok {
		return
	}
	node := attrs.Node.ValueString()
	created, ok := d.API.Create(ctx, CreateRequest{
		Node:      node,
		VMID:      attrs.vmid(),
		Form:      form,
		Name:      attrs.Name.ValueString(),
		Recognize: func(config pveapi.GuestConfig) bool { return d.Hooks.Recognize(&plan, config, form) },
	}, diags)
	if !ok {
		return
	}
	vmid := created.VMID
	if !SaveIdentity(ctx, &resp.State, vmid, node, diags) || !d.API.AwaitNew(ctx, &resp.State, node, created, true, diags) {
		return
	}
	if created.Adopted && !d.reconfigureAdopted(ctx, node, vmid, &plan, diags) {
		return
	}
	if !d.Hooks.FinishCreate(ctx, req.Config, node, vmid, &plan, diags) {
		return
	}
	if !d.start(ctx, node, vmid, &plan, diags) || !d.API.RemoveCloneMarker(ctx, node, vmid, diags) {
		return
	}
	d.SaveReadBack(ctx, &resp.State, resp.Private, req.Plan.Raw, node, vmid, &plan, nil, diags)
}

// reconfigureAdopted turns a guest adopted from an interrupted apply,
// created from that apply's plan, into this plan. Its creation marker
// stays until the guest is complete (W13).
func (d Driver[M]) reconfigureAdopted(ctx context.Context, node string, vmid int, plan *M, diags *diag.Diagnostics) bool {
	// The messages name the guest type, a template's too.
	title := KindOf(d.API.Kind.Type, false).Title
	live, err := d.API.Config(ctx, node, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read "+title+" After Adopting It", err)
		return false
	}
	view := *plan
	attrs := d.Hooks.Attributes(&view)
	marker := MarkerLine(live, CreateMarker(d.API.Kind, attrs.Name.ValueString()))
	*attrs.Description = types.StringValue(WithCloneMarker(attrs.Description.ValueString(), marker))
	return d.Hooks.WriteView(ctx, node, vmid, &view, live, "Unable To Plan "+title+" Configuration", diags)
}

// Read refreshes state from PVE. A guest gone drops out of state, and so
// does one replaced by another guest at its VMID (IsStranger); one on an
// unreachable node keeps its state.
func (d Driver[M]) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state M
	diags := &resp.Diagnostics
	diags.Append(req.State.Get(ctx, &state)...)
	if diags.HasError() {
		return
	}
	attrs := d.Hooks.Attributes(&state)
	loadOrigin(ctx, req.Private, resp.Private, attrs, diags)
	vmid := attrs.vmid()
	declaredOnly := attrs.inherits() || keepsDeclaredOnly(ctx, req.State)
	declared := attrs.Node.ValueString()
	live, found := d.API.Read(ctx, d.API.NodeOf(ctx, req.Private, declared), vmid, diags)
	if !found {
		// An unreachable node keeps the prior state (with a warning).
		if !diags.HasError() && !live.Unreachable {
			resp.State.RemoveResource(ctx)
		}
		return
	}
	if d.API.IsStranger(ctx, req.Private, vmid, live, diags) {
		resp.State.RemoveResource(ctx)
		return
	}
	if d.API.MarkTurnedTemplate(ctx, resp.Private, live, vmid, diags) {
		return
	}
	if err := d.Hooks.FromAPI(&state, vmid, live.Config, live.Status); err != nil {
		d.API.UnreadableConfig(diags, live.Node, vmid, err)
		return
	}
	*attrs.Node = types.StringValue(d.API.followHA(ctx, declared, vmid, live, req.Private, resp.Private, diags))
	if noter, ok := d.Hooks.(ReadNoter[M]); ok {
		noter.NoteRead(ctx, live, &state, resp.Private, diags)
	}
	d.API.RecordIdentity(ctx, resp.Private, live.Config, diags)
	pool, ok := d.API.ReadPool(ctx, vmid, *attrs.Pool, diags)
	if !ok {
		return
	}
	*attrs.Pool = pool
	diags.Append(resp.State.Set(ctx, state)...)
	if declaredOnly {
		MaskCloneState(&resp.State, req.State.Raw, diags)
	}
}

// keepsDeclaredOnly tells whether a refresh keeps in state only what state
// holds, so that settings the configuration leaves out are neither
// reported nor planned, whoever changes them in PVE. Every guest this
// provider created or updated does, as does every clone or restore; a
// guest just imported (or moved from another provider's state), which has
// no status yet, is read whole.
func keepsDeclaredOnly(ctx context.Context, state tfsdk.State) bool {
	var status types.String
	if state.GetAttribute(ctx, path.Root("status"), &status).HasError() {
		return false
	}
	return !status.IsNull()
}

// Update takes the guest from state to plan: its node, its config, its
// pool, then its power state.
func (d Driver[M]) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state M
	diags := &resp.Diagnostics
	diags.Append(req.Plan.Get(ctx, &plan)...)
	diags.Append(req.State.Get(ctx, &state)...)
	if diags.HasError() {
		return
	}
	planned, prior := d.Hooks.Attributes(&plan), d.Hooks.Attributes(&state)
	loadOrigins(ctx, req.Private, resp.Private, prior, planned, diags)
	ctx, cancel, ok := bound(ctx, planned.Timeouts.Update, DefaultUpdateTimeout, diags)
	if !ok {
		return
	}
	defer cancel()

	vmid := prior.vmid()
	declared := prior.Node.ValueString()
	// Where the guest is: HA may have moved it off the declared node.
	node := d.API.NodeOf(ctx, req.Private, declared)
	// One guest's changes never interleave with the provider's other work
	// on it, such as a clone of it.
	unlock, ok := d.API.HoldGuest(ctx, vmid, diags)
	if !ok {
		return
	}
	defer unlock()
	// Until the update is done, state is what it was: a step that fails
	// leaves the rest to the next plan.
	diags.Append(resp.State.Set(ctx, state)...)
	if d.API.StrangerAt(ctx, req.Private, node, vmid, diags) {
		diags.AddError("Not Updating Another "+d.API.Kind.Title, fmt.Sprintf(
			"The guest at VMID %d is not the one this resource manages (see the warning). Nothing was changed; run plan or apply with refresh, "+
				"which removes the resource from state and plans a new guest.", vmid))
		return
	}

	target := planned.Node.ValueString()
	if target != declared {
		// A guest HA already put on target stays where it is.
		if target != node && !d.API.Migrate(ctx, node, vmid, target, diags) {
			return
		}
		node = target
		settleHANode(ctx, req.Private, resp.Private, diags)
		// Record the move at once: a later step may fail.
		diags.Append(resp.State.SetAttribute(ctx, path.Root("node"), node)...)
	}

	change, ok := d.Hooks.ApplyUpdate(ctx, req.Config, node, vmid, &state, &plan, diags)
	if !ok {
		return
	}
	if !planned.Pool.Equal(*prior.Pool) && !d.API.ChangePool(ctx, vmid, *prior.Pool, *planned.Pool, diags) {
		return
	}
	power := PowerPlan{Started: planned.Started.ValueBool(), ConfigWritten: change.Written, RebootAfterUpdate: planned.RebootAfterUpdate.ValueBool()}
	if !d.API.SettlePower(ctx, node, vmid, power, diags) {
		return
	}
	if finisher, ok := d.Hooks.(UpdateFinisher[M]); ok && !finisher.FinishUpdate(ctx, node, vmid, &plan, change, diags) {
		return
	}
	d.SaveReadBack(ctx, &resp.State, resp.Private, req.Plan.Raw, node, vmid, &plan, &state, diags)
	if node != target && !diags.HasError() {
		// State keeps the declared node of a guest HA moved.
		diags.Append(resp.State.SetAttribute(ctx, path.Root("node"), target)...)
	}
}

// Delete destroys the guest unless it is protected, or unless another
// guest now holds its VMID (a destroy without refresh).
func (d Driver[M]) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state M
	diags := &resp.Diagnostics
	diags.Append(req.State.Get(ctx, &state)...)
	if diags.HasError() {
		return
	}
	attrs := d.Hooks.Attributes(&state)
	ctx, cancel, ok := bound(ctx, attrs.Timeouts.Delete, DefaultDeleteTimeout, diags)
	if !ok {
		return
	}
	defer cancel()

	node := d.API.NodeOf(ctx, req.Private, attrs.Node.ValueString())
	if d.API.StrangerAt(ctx, req.Private, node, attrs.vmid(), diags) {
		return
	}
	d.API.Delete(ctx, node, attrs.vmid(), attrs.Protection.ValueBool(), diags)
	if cleaner, ok := d.Hooks.(DeleteCleaner[M]); ok {
		cleaner.AfterDelete(ctx, &state, diags)
	}
}

// bound ends ctx at an operation's timeout: the configured one, else
// fallback.
func bound(ctx context.Context, timeout func(context.Context, time.Duration) (time.Duration, diag.Diagnostics), fallback time.Duration, diags *diag.Diagnostics) (context.Context, context.CancelFunc, bool) {
	limit, limitDiags := timeout(ctx, fallback)
	diags.Append(limitDiags...)
	if diags.HasError() {
		return ctx, func() {}, false
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	return ctx, cancel, true
}

// ReadBack reads the guest after a write into m, so state holds what PVE
// keeps rather than what was sent. Pool and node stay as planned: both
// were just written.
func (d Driver[M]) ReadBack(ctx context.Context, node string, vmid int, m *M, diags *diag.Diagnostics) (Live, bool) {
	live, ok := d.API.ReadBack(ctx, node, vmid, diags)
	if !ok {
		return live, false
	}
	if err := d.Hooks.FromAPI(m, vmid, live.Config, live.Status); err != nil {
		d.API.UnreadableConfig(diags, node, vmid, err)
		return live, false
	}
	*d.Hooks.Attributes(m).Node = types.StringValue(node)
	return live, true
}

// SaveReadBack ends a create or an update: m read back from PVE becomes
// state, and the guest's identity is recorded in private. State holds
// only what declared (the plan) declares: settings the configuration
// leaves out, inherited from a clone source or an archive or set in PVE by
// anyone, are left to PVE.
func (d Driver[M]) SaveReadBack(ctx context.Context, state *tfsdk.State, private PrivateSetter, declared tftypes.Value, node string, vmid int, m, prior *M, diags *diag.Diagnostics) {
	live, ok := d.ReadBack(ctx, node, vmid, m, diags)
	if !ok {
		return
	}
	d.API.RecordIdentity(ctx, private, live.Config, diags)
	if completer, ok := d.Hooks.(ReadBackCompleter[M]); ok {
		completer.AfterReadBack(ctx, node, vmid, m, prior, diags)
	}
	diags.Append(state.Set(ctx, m)...)
	MaskCloneState(state, declared, diags)
}
