package guestops

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// A guest under HA may be moved by HA itself: recovered to another node
// when its node fails, or placed by HA's rules. `node` is Required, so
// state cannot follow such a move without a plan that migrates the guest
// back and fights HA. So state keeps the declared node, and the node the
// guest really is on is recorded in private state, where every request
// for the guest finds it (NodeOf). A refresh warns once per move. A
// deliberate change of `node` migrates the guest through HA's own request
// (PVE's direct migration of an HA-managed guest only queues that request
// and ends before the guest moves: qemu-server src/PVE/API2/Qemu.pm
// migrate_vm, pve-container src/PVE/API2/LXC.pm migrate_vm).

// haKey is the private state key of what a refresh learned of the guest's
// HA management.
const haKey = "ha"

// haRecord is what the provider keeps of a guest under HA.
type haRecord struct {
	// Managed tells that HA managed the guest when last read.
	Managed bool `json:"managed,omitempty"`
	// Node is where HA put the guest, when that is not the declared node.
	Node string `json:"node,omitempty"`
	// State is HA's state of the guest when last read (started, stopped,
	// migrate, ...).
	State string `json:"state,omitempty"`
}

func (r haRecord) managed() bool { return r.Managed }

// recordedHA reads the record; none is a guest HA does not manage.
func recordedHA(ctx context.Context, private PrivateGetter) haRecord {
	var rec haRecord
	if private == nil {
		return rec
	}
	raw, diags := private.GetKey(ctx, haKey)
	if diags.HasError() || len(raw) == 0 {
		return rec
	}
	if json.Unmarshal(raw, &rec) != nil {
		return haRecord{}
	}
	return rec
}

func recordHA(ctx context.Context, private PrivateSetter, rec haRecord, diags *diag.Diagnostics) {
	if private == nil {
		return
	}
	var raw []byte
	if rec != (haRecord{}) {
		var err error
		if raw, err = json.Marshal(rec); err != nil {
			diags.AddError("Unable To Record HA Placement", err.Error())
			return
		}
	}
	diags.Append(private.SetKey(ctx, haKey, raw)...)
}

// NodeOf is the node the guest is on: the one HA moved it to, as the last
// refresh recorded, else stateNode.
func (a API) NodeOf(ctx context.Context, private PrivateGetter, stateNode string) string {
	if rec := recordedHA(ctx, private); rec.Node != "" {
		return rec.Node
	}
	return stateNode
}

// followHA decides, after a refresh found the guest on live.Node, which
// node state says: the declared one when HA manages the guest (HA's move
// is recorded in private and warned about once), else where the guest is.
func (a API) followHA(ctx context.Context, declared string, vmid int, live Live, from PrivateGetter, to PrivateSetter, diags *diag.Diagnostics) string {
	prior := recordedHA(ctx, from)
	var rec haRecord
	if live.Status != nil && live.Status.HA.Managed {
		rec.Managed, rec.State = true, live.Status.HA.State
	}
	stateNode := live.Node
	if rec.managed() && live.Node != declared {
		rec.Node = live.Node
		stateNode = declared
		if prior.Node != live.Node {
			from := declared
			if prior.Node != "" {
				from = prior.Node
			}
			diags.AddWarning(fmt.Sprintf("%s %d Moved By HA", a.Kind.Title, vmid), fmt.Sprintf(
				"HA moved %s %d from %s to %s (node failure or HA placement). The provider follows it and plans no migration back; "+
					"`node` stays %s in state. To move it deliberately, set node: the migration is requested through HA.",
				a.Kind.Noun, vmid, from, live.Node, declared))
		}
	}
	if rec != prior {
		recordHA(ctx, to, rec, diags)
	}
	return stateNode
}

// settleHANode records, after an update left the guest on node, that
// state's node is where the guest is: no HA move is pending.
func settleHANode(ctx context.Context, from PrivateGetter, to PrivateSetter, diags *diag.Diagnostics) {
	rec := recordedHA(ctx, from)
	if rec.Node == "" {
		return
	}
	rec.Node = ""
	recordHA(ctx, to, rec, diags)
}

// migrateHA moves an HA-managed guest through HA's own request and waits
// until HA has it running (or stopped, as HA wants it) on target. HA moves
// a VM online and a container by relocation: it shuts a running container
// down, moves it and starts it again (pve-ha-manager
// src/PVE/HA/Resources/PVECT.pm migrate), as a direct migration would.
//
// HA's request needs Sys.Console on /. Without it, the guest's own migrate
// endpoint (VM.Migrate) makes the same request on the caller's behalf: its
// 'hamigrate' task runs `ha-manager migrate` (qemu-server
// src/PVE/API2/Qemu.pm, pve-container src/PVE/API2/LXC.pm migrate_vm).
func (a API) migrateHA(ctx context.Context, node string, vmid int, target string, running bool, diags *diag.Diagnostics) bool {
	summary := "Unable To Migrate " + a.Kind.Title
	sid := wire.HASID(wire.HATypeOfGuest(a.Kind.Type), vmid)
	motion, err := a.Client.RequestHAMove(ctx, sid, target, false)
	if _, _, denied := pveapi.IsPermission(err); denied {
		upid, ok := a.Kind.migrate(a, ctx, node, vmid, target, running, summary, diags)
		if !ok || !fwutil.SettleTask(ctx, a.Client, upid, fmt.Sprintf("requesting HA's migration of %s %d to %s", a.Kind.Noun, vmid, target), summary, diags) {
			return false
		}
		return a.awaitHAPlacement(ctx, node, vmid, target, summary, diags)
	}
	if err != nil {
		fwutil.AddAttributeAPIError(diags, path.Root("node"), summary, err)
		return false
	}
	if len(motion.Blocking) > 0 {
		var blocking []string
		for _, b := range motion.Blocking {
			blocking = append(blocking, fmt.Sprintf("%s (%s)", b.SID, b.Cause))
		}
		diags.AddAttributeError(path.Root("node"), summary, fmt.Sprintf(
			"HA will not move %s %d to %s: %s keep it from that node. Change the HA rules or pick another node.",
			a.Kind.Noun, vmid, target, strings.Join(blocking, ", ")))
		return false
	}
	return a.awaitHAPlacement(ctx, node, vmid, target, summary, diags)
}

// awaitHAPlacement waits until the guest is on target and HA's state of it
// is settled.
func (a API) awaitHAPlacement(ctx context.Context, node string, vmid int, target, summary string, diags *diag.Diagnostics) bool {
	var last *pveapi.Resource
	errFailed := errors.New("HA failed")
	err := a.Client.PollUntil(ctx, func(ctx context.Context) (bool, error) {
		guest, found, err := a.Client.FindGuest(ctx, vmid)
		if err != nil {
			return false, err
		}
		if !found {
			return false, fmt.Errorf("%s %d disappeared while HA was moving it", a.Kind.Noun, vmid)
		}
		last = guest
		if guest.HAState == "error" {
			return false, errFailed
		}
		return guest.Node == target && pveapi.HASettled(guest.HAState), nil
	})
	switch {
	case err == nil:
		return true
	case errors.Is(err, errFailed):
		diags.AddAttributeError(path.Root("node"), summary, fmt.Sprintf(
			"HA could not move %s %d from %s to %s: HA's state of it is error. See the HA log (ha-manager status, the node's syslog), "+
				"fix the cause, then set the HA resource's state to disabled and back to started.", a.Kind.Noun, vmid, node, target))
	case ctx.Err() != nil && last != nil:
		diags.AddAttributeError(path.Root("node"), summary, fmt.Sprintf(
			"HA was asked to move %s %d from %s to %s, but within the update timeout it is on %s in HA state %q. "+
				"HA may still move it, or may have refused (the target offline, or excluded by HA's rules or groups: see ha-manager status). "+
				"Run apply again once HA has settled, or raise timeouts.update.", a.Kind.Noun, vmid, node, target, last.Node, last.HAState))
	default:
		fwutil.AddAttributeAPIError(diags, path.Root("node"), summary, err)
	}
	return false
}

// awaitHAPower waits, after an HA request task for a power change, until
// the guest has that power state. unmanaged is set when HA let go of the
// guest meanwhile (its HA resource was removed): the caller acts directly.
func (a API) awaitHAPower(ctx context.Context, node string, vmid int, running bool, summary string, diags *diag.Diagnostics) (done, unmanaged bool) {
	var last *pveapi.GuestStatus
	err := a.Client.PollUntil(ctx, func(ctx context.Context) (bool, error) {
		status, err := a.Status(ctx, node, vmid)
		if err != nil {
			return false, err
		}
		last = status
		if (status.Status == pveapi.PowerRunning) == running {
			return true, nil
		}
		if !status.HA.Managed {
			unmanaged = true
			return true, nil
		}
		return false, nil
	})
	switch {
	case err == nil:
		return !unmanaged, unmanaged
	case ctx.Err() != nil && last != nil:
		want := "stopped"
		if running {
			want = "running"
		}
		diags.AddError(summary, fmt.Sprintf(
			"%s %d is HA-managed, so PVE passed the request to HA; within the timeout it is still %s, not %s (HA state %q). "+
				"HA may refuse, for instance while the HA resource's state says otherwise or is error: see ha-manager status.",
			fwutil.Capitalize(a.Kind.Noun), vmid, last.Status, want, last.HA.State))
	default:
		fwutil.AddAPIError(diags, summary, err)
	}
	return false, false
}

// CheckHA warns at plan time about what HA changes in a guest's update: a
// change of `started` of an HA-managed guest becomes a request to HA that
// also sets its HA resource's state (PVE: vm_start runs `ha-manager set
// --state started`, vm_stop and vm_shutdown `ha-manager crm-command
// stop`, which makes the state stopped: qemu-server
// src/PVE/API2/Qemu.pm, pve-ha-manager src/PVE/HA/Manager.pm
// next_state_started). It costs no request: the refresh recorded whether
// HA manages the guest.
func (a API) CheckHA(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || req.State.Raw.IsNull() {
		return
	}
	rec := recordedHA(ctx, req.Private)
	if !rec.managed() {
		return
	}
	var stateStarted, planStarted types.Bool
	var vmid types.Int64
	if req.State.GetAttribute(ctx, path.Root("started"), &stateStarted).HasError() ||
		req.Plan.GetAttribute(ctx, path.Root("started"), &planStarted).HasError() ||
		req.State.GetAttribute(ctx, path.Root("vmid"), &vmid).HasError() {
		return
	}
	if !Known(planStarted) || !Known(stateStarted) || planStarted.Equal(stateStarted) {
		return
	}
	want := "stopped"
	if planStarted.ValueBool() {
		want = "started"
	}
	resp.Diagnostics.AddAttributeWarning(path.Root("started"), a.Kind.Title+" Power Is Governed By HA", fmt.Sprintf(
		"%s %d is HA-managed (HA state %q): PVE passes the provider's power change to HA, which sets the HA resource's state to %s. "+
			"HA's resource state governs the guest's power: declare it in the pve_ha_resource (state) and keep started in agreement, "+
			"or the two resources plan changes against each other.",
		fwutil.Capitalize(a.Kind.Noun), vmid.ValueInt64(), rec.State, want))
}

// HASection is the part of a guest resource's description that says how
// the guest behaves under HA (a pve_ha_resource naming it).
func HASection(kind Kind) string {
	noun := kind.Noun
	motion := "HA migrates it online"
	if kind.Type == pveapi.GuestTypeLXC {
		motion = "HA relocates it: a running container is shut down, moved and started again, as HA always moves containers"
	}
	return fmt.Sprintf("\n\n**High availability:** when HA manages the %[1]s (a `pve_ha_resource` names it) and moves it to another node, "+
		"after a node failure or by its placement rules, the provider follows it: requests go to the node it is on, state keeps `node` as declared, "+
		"the plan is empty (no migration back) and a refresh warns once per move. Setting `node` to where HA put it sends nothing; "+
		"setting another node asks HA to move the %[1]s there (HA's migrate request; without `Sys.Console` on `/`, the %[1]s's own migrate endpoint, which PVE turns into that request) "+
		"and waits, within the update timeout, until HA has it on that node (%[2]s). "+
		"HA's resource `state` governs power: PVE turns a start or stop of an HA-managed %[1]s into a request to HA that also sets the HA resource's state, "+
		"so keep `started` in agreement with the `pve_ha_resource` (the plan warns when it changes `started` of an HA-managed %[1]s). "+
		"Destroying the %[1]s stops it through HA and removes it from HA's resources (PVE's purge), in the same apply as its `pve_ha_resource` or without it.",
		noun, motion)
}
