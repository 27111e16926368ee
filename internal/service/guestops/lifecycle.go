package guestops

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// Live is what Read learns about a guest: where it is, its config and its
// status.
type Live struct {
	Node   string
	Config pveapi.GuestConfig
	Status *pveapi.GuestStatus
	// Unreachable is set, with found false and a warning, when the guest's
	// node did not answer: the caller keeps the prior state rather than
	// dropping the guest or failing the whole plan.
	Unreachable bool
}

// Read reads the guest's config and status/current: the two requests a
// refresh costs. A guest missing on its recorded node (W12) is looked up
// cluster-wide once, to follow a migration made outside Terraform. found is
// false when the guest is gone and state should drop it.
func (a API) Read(ctx context.Context, node string, vmid int, diags *diag.Diagnostics) (live Live, found bool) {
	config, err := a.Config(ctx, node, vmid)
	if pveapi.IsNotFound(err) {
		guest, exists, findErr := a.Client.FindGuest(ctx, vmid)
		if findErr != nil {
			fwutil.AddAPIError(diags, "Unable To Look Up "+a.Kind.Title, findErr)
			return Live{}, false
		}
		if !exists || guest.Type != a.Kind.Type || guest.Node == node {
			return Live{}, false
		}
		node = guest.Node
		config, err = a.Config(ctx, node, vmid)
	}
	if pveapi.IsNotFound(err) {
		return Live{}, false
	}
	if pveapi.IsNodeUnreachable(err) {
		// A guest HA recovered from a failed node runs elsewhere: the
		// cluster-wide listing names its node.
		if moved := a.movedFrom(ctx, node, vmid); moved != "" {
			node = moved
			config, err = a.Config(ctx, node, vmid)
		}
	}
	if pveapi.IsNotFound(err) {
		return Live{}, false
	}
	if pveapi.IsNodeUnreachable(err) {
		return a.unreachable(node, vmid, err, diags), false
	}
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read "+a.Kind.Title, err)
		return Live{}, false
	}
	status, err := a.Status(ctx, node, vmid)
	if pveapi.IsNotFound(err) {
		return Live{}, false
	}
	if pveapi.IsNodeUnreachable(err) {
		return a.unreachable(node, vmid, err, diags), false
	}
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read "+a.Kind.Title+" Status", err)
		return Live{}, false
	}
	return Live{Node: node, Config: config, Status: status}, true
}

// movedFrom is the node the cluster-wide listing has the guest on when
// that is not node, else "". A failed lookup is no answer.
func (a API) movedFrom(ctx context.Context, node string, vmid int) string {
	guest, exists, err := a.Client.FindGuest(ctx, vmid)
	if err != nil || !exists || guest.Type != a.Kind.Type || guest.Node == node {
		return ""
	}
	return guest.Node
}

// unreachable warns that a guest's node did not answer a refresh; the guest
// keeps its recorded state, so other guests can still be planned.
func (a API) unreachable(node string, vmid int, err error, diags *diag.Diagnostics) Live {
	diags.AddWarning("Node Unreachable, "+a.Kind.Title+" State Kept", fmt.Sprintf(
		"Node %s did not answer while refreshing %s %d (%v). Its state is kept as last recorded; "+
			"changes planned for it are based on that state.", node, a.Kind.Noun, vmid, err))
	return Live{Node: node, Unreachable: true}
}

// ReadBack reads config and status after a write, so state holds what PVE
// keeps rather than what was sent.
func (a API) ReadBack(ctx context.Context, node string, vmid int, diags *diag.Diagnostics) (Live, bool) {
	config, err := a.Config(ctx, node, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read "+a.Kind.Title+" After Writing It", err)
		return Live{}, false
	}
	status, err := a.Status(ctx, node, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read "+a.Kind.Title+" Status After Writing It", err)
		return Live{}, false
	}
	return Live{Node: node, Config: config, Status: status}, true
}

// UnreadableConfig reports a config the model cannot map.
func (a API) UnreadableConfig(diags *diag.Diagnostics, node string, vmid int, err error) {
	diags.AddError("Unexpected "+a.Kind.Title+" Configuration",
		fmt.Sprintf("%s %d on node %s has a configuration the provider cannot read: %v", fwutil.Capitalize(a.Kind.Noun), vmid, node, err))
}

// ReadPool keeps a pool in state only while the pool lists the guest. Pool
// membership is not in the guest config (W48): it costs a request, made
// only when state tracks a pool.
func (a API) ReadPool(ctx context.Context, vmid int, pool types.String, diags *diag.Diagnostics) (types.String, bool) {
	if !Known(pool) {
		return pool, true
	}
	member, err := a.PoolHas(ctx, pool.ValueString(), vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read "+a.Kind.Title+" Pool", err)
		return pool, false
	}
	if !member {
		return types.StringNull(), true
	}
	return pool, true
}

// PoolHas reports whether pool lists the guest; a missing pool has no
// members. The client asks PVE once per pool until its next write, so a
// plan of many guests in one pool reads the pool once.
func (a API) PoolHas(ctx context.Context, poolID string, vmid int) (bool, error) {
	pool, err := a.Client.PoolGuests(ctx, poolID)
	if err != nil {
		return false, err
	}
	return pool.Has(vmid), nil
}

// ChangePool moves the guest between pools through the pools API (W48).
func (a API) ChangePool(ctx context.Context, vmid int, from, to types.String, diags *diag.Diagnostics) bool {
	var err error
	if Known(to) {
		err = a.Client.UpdatePool(ctx, pveapi.PoolUpdate{PoolID: to.ValueString(), VMs: []int{vmid}, AllowMove: true})
		// A pool renamed in the same apply took its members along.
		if pveapi.IsAlreadyPoolMember(err) {
			err = nil
		}
	} else if Known(from) {
		err = a.Client.UpdatePool(ctx, pveapi.PoolUpdate{PoolID: from.ValueString(), VMs: []int{vmid}, Delete: true})
		if pveapi.IsPoolNotFound(err) {
			err = nil
		}
	}
	if err != nil {
		fwutil.AddAttributeAPIError(diags, path.Root("pool"), "Unable To Change "+a.Kind.Title+" Pool", err)
		return false
	}
	return true
}

// Migrate moves the guest to target. A running VM migrates online,
// copying its disks on node-local storage; a running container, which PVE
// cannot move live, is shut down, moved and started again (restart mode).
// An HA-managed guest is moved by HA, on request (migrateHA).
func (a API) Migrate(ctx context.Context, node string, vmid int, target string, diags *diag.Diagnostics) bool {
	summary := "Unable To Migrate " + a.Kind.Title
	status, err := a.Status(ctx, node, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read "+a.Kind.Title+" Status", err)
		return false
	}
	running := status.Status == pveapi.PowerRunning
	if status.HA.Managed {
		return a.migrateHA(ctx, node, vmid, target, running, diags)
	}
	upid, ok := a.Kind.migrate(a, ctx, node, vmid, target, running, summary, diags)
	if !ok {
		return false
	}
	return fwutil.SettleTask(ctx, a.Client, upid, fmt.Sprintf("migrating %s %d from %s to %s", a.Kind.Noun, vmid, node, target), summary, diags)
}

// migrateStarted reports whether the migration task started, adding the
// error against node when it did not.
func migrateStarted(err error, summary string, diags *diag.Diagnostics) bool {
	if err != nil {
		fwutil.AddAttributeAPIError(diags, path.Root("node"), summary, err)
		return false
	}
	return true
}

// hasLocalDisks tells whether a VM has a disk on storage that is not
// shared, which an online migration must copy (with-local-disks).
func (a API) hasLocalDisks(ctx context.Context, node string, vmid int, diags *diag.Diagnostics) (bool, bool) {
	config, err := a.Config(ctx, node, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read "+a.Kind.Title, err)
		return false, false
	}
	storages, err := a.Client.Storages(ctx, node, pveapi.StorageFilter{})
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To List Storages", err)
		return false, false
	}
	shared := map[string]bool{}
	for _, s := range storages {
		shared[s.Storage] = bool(s.Shared)
	}
	return LocalDisks(config, shared), true
}

// LocalDisks reports whether any disk of a VM's config (data disk, EFI or
// TPM state, unusedN) is on a storage that is not shared.
func LocalDisks(config pveapi.GuestConfig, shared map[string]bool) bool {
	for slot, value := range config {
		if !wire.IsDiskSlot(slot) && !wire.IsUnusedSlot(slot) {
			continue
		}
		drive, err := wire.ParseDrive(value)
		if err != nil || drive.Storage == "" || wire.IsCDROM(drive) {
			continue
		}
		if !shared[drive.Storage] {
			return true
		}
	}
	return false
}

// Delete destroys the guest and its volumes: refused while protected, a
// running guest is shut down (stopped if it will not), then destroyed with
// purge. A guest already gone is success. It waits for the provider's
// other work on the guest (a clone of it) first.
func (a API) Delete(ctx context.Context, node string, vmid int, protected bool, diags *diag.Diagnostics) {
	summary := "Unable To Delete " + a.Kind.Title
	if protected {
		diags.AddAttributeError(path.Root("protection"), a.Kind.Title+" Is Protected",
			fmt.Sprintf("%s %d has protection = true, which forbids destroying it and its disks. "+
				"Set protection = false and apply, then destroy it.", fwutil.Capitalize(a.Kind.Noun), vmid))
		return
	}
	unlock, ok := a.HoldGuest(ctx, vmid, diags)
	if !ok {
		return
	}
	defer unlock()
	status, err := a.Status(ctx, node, vmid)
	if pveapi.IsNotFound(err) {
		return
	}
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read "+a.Kind.Title+" Status", err)
		return
	}
	if status.Status == pveapi.PowerRunning && !a.PowerOff(ctx, node, vmid, diags) {
		return
	}
	upid, err := a.destroy(ctx, node, vmid)
	if pveapi.IsNotFound(err) {
		return
	}
	if err != nil {
		fwutil.AddAPIError(diags, summary, err)
		return
	}
	fwutil.SettleTask(ctx, a.Client, upid, fmt.Sprintf("destroying %s %d", a.Kind.Noun, vmid), summary, diags)
}

// ParseImportID reads "VMID" or "NODE/VMID".
func (k Kind) ParseImportID(id string) (node string, vmid int, err error) {
	usage := fmt.Sprintf("import %s by VMID (\"120\") or NODE/VMID (\"pve1/120\")", k.Resource)
	rest := id
	if before, after, ok := strings.Cut(id, "/"); ok {
		node, rest = before, after
		if !wire.IsNodeName(node) {
			return "", 0, fmt.Errorf("%s; %q has no valid node name", usage, id)
		}
	}
	vmid, convErr := strconv.Atoi(rest)
	if convErr != nil || vmid < pveapi.MinVMID || vmid > pveapi.MaxVMID || strconv.Itoa(vmid) != rest {
		return "", 0, fmt.Errorf("%s, got %q", usage, id)
	}
	return node, vmid, nil
}

// ImportState takes "VMID" or "NODE/VMID". Either way one cluster-wide
// listing finds the guest's node and pool, which its config does not carry,
// and its config read tells whether it is a template; id, vmid, node and
// pool go into state, the resource adds its own defaults.
func (a API) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) bool {
	title, noun := a.Kind.Title, a.Kind.Noun
	wantNode, vmid, err := a.Kind.ParseImportID(req.ID)
	if err != nil {
		resp.Diagnostics.AddError("Invalid Import ID", err.Error())
		return false
	}
	guest, found, err := a.Client.FindGuest(ctx, vmid)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Look Up "+title, err)
		return false
	}
	switch {
	case !found:
		resp.Diagnostics.AddError(title+" Not Found", fmt.Sprintf("No guest with VMID %d exists in the cluster.", vmid))
		return false
	case guest.Type != a.Kind.Type:
		other := KindOf(guest.Type, bool(guest.Template))
		resp.Diagnostics.AddError("Not A "+title, fmt.Sprintf("Guest %d is a %s, not a %s; import it as %s.", vmid, other.Noun, noun, other.Resource))
		return false
	}
	// The listing's template flag is what pvestatd last reported, up to a
	// cycle old (a guest converted or created a moment ago shows the old
	// flag or none): the config tells.
	config, err := a.Config(ctx, guest.Node, vmid)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read "+title, err)
		return false
	}
	switch {
	case (config["template"] == "1") != a.Kind.Template:
		resp.Diagnostics.AddError(wrongTemplateKind(a.Kind, vmid))
		return false
	case wantNode != "" && guest.Node != wantNode:
		resp.Diagnostics.AddError(title+" On Another Node",
			fmt.Sprintf("%s %d is on node %s, not %s. Import it as %s/%d or by its VMID alone.", fwutil.Capitalize(noun), vmid, guest.Node, wantNode, guest.Node, vmid))
		return false
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), strconv.Itoa(vmid))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("vmid"), int64(vmid))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("node"), guest.Node)...)
	if guest.Pool != "" {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("pool"), guest.Pool)...)
	}
	return !resp.Diagnostics.HasError()
}
