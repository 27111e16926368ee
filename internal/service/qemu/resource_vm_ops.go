package qemu

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// maxCreateAttempts bounds how often Create takes another VMID after
// losing a race for one (W13).
const maxCreateAttempts = 5

// Graceful shutdown gets half of what is left of the timeout, within these
// bounds, before the VM is stopped.
const (
	minShutdownWait = 10 * time.Second
	maxShutdownWait = 5 * time.Minute
)

// createdVM is a create request PVE accepted: the task to wait for, or,
// when the answer was lost and the VM was found being created, no task
// (adopted).
type createdVM struct {
	vmid    int
	upid    string
	adopted bool
}

// createVM sends the create request, on the configured VMID or on one it
// allocates. Losing an allocated id to another creator (W13) moves on to
// another id; a configured id that is taken is an error. A request whose
// answer was lost may have created the VM: the id is inspected before
// anything is sent again, so the VM is never created twice.
func (r *vmResource) createVM(ctx context.Context, plan *vmModel, form url.Values, diags *diag.Diagnostics) (createdVM, bool) {
	node := plan.Node.ValueString()
	configured := known(plan.VMID)
	var vmid int
	if configured {
		vmid = plan.vmid()
	} else {
		id, err := r.client.AllocateVMID(ctx, r.vmidRange.Min, r.vmidRange.Max, nil)
		if err != nil {
			fwutil.AddAPIError(diags, "Unable To Allocate VMID", err)
			return createdVM{}, false
		}
		vmid = id
	}

	answerLost := false
	for attempt := 0; attempt < maxCreateAttempts; attempt++ {
		upid, err := r.client.CreateQemu(ctx, node, vmid, form)
		if err == nil {
			return createdVM{vmid: vmid, upid: upid}, true
		}
		var transportErr *pveapi.TransportError
		switch {
		case errors.As(err, &transportErr) && !transportErr.NotSent, answerLost && pveapi.IsAlreadyExists(err):
			adopted, found, inspectErr := r.inspectCreate(ctx, node, vmid, plan, form)
			if inspectErr != nil {
				diags.AddError("Unable To Create VM", fmt.Sprintf(
					"The answer to creating VM %d was lost (%v), and looking at VMID %d afterwards failed: %v. "+
						"Check in PVE whether VM %d exists before running apply again.", vmid, err, vmid, inspectErr, vmid))
				return createdVM{}, false
			}
			if adopted {
				return createdVM{vmid: vmid, adopted: true}, true
			}
			if found {
				diags.AddError("Unable To Create VM", fmt.Sprintf(
					"The answer to creating VM %d was lost, and VMID %d now holds a VM that is not the one this apply asked for. "+
						"Nothing was adopted; check VM %d in PVE and run apply again.", vmid, vmid, vmid))
				return createdVM{}, false
			}
			// Nothing was made: the request never took effect.
			answerLost = true
		case pveapi.IsAlreadyExists(err):
			if configured {
				fwutil.AddAttributeAPIError(diags, path.Root("vmid"), "VMID Already In Use", fmt.Errorf(
					"%w\n\nVMID %d is taken by another guest. Choose another vmid, or leave vmid out to have one allocated", err, vmid))
				return createdVM{}, false
			}
			// Another creator took the id between allocation and create
			// (W13). Keep it reserved, so it is not handed out again.
			id, allocErr := r.client.AllocateVMID(ctx, r.vmidRange.Min, r.vmidRange.Max, nil)
			if allocErr != nil {
				fwutil.AddAPIError(diags, "Unable To Allocate VMID", allocErr)
				return createdVM{}, false
			}
			vmid = id
		default:
			if !configured {
				r.client.ReleaseVMID(vmid)
			}
			fwutil.AddAPIError(diags, "Unable To Create VM", err)
			return createdVM{}, false
		}
	}
	diags.AddError("Unable To Create VM", fmt.Sprintf(
		"Gave up after %d attempts: every VMID tried was taken by another creator first. Run apply again.", maxCreateAttempts))
	return createdVM{}, false
}

// inspectCreate looks at a VMID after a create whose answer was lost (W13).
// The VM is ours when it is still being created (lock "create") or carries
// the configuration just sent (its name, or without a name every device
// slot sent).
func (r *vmResource) inspectCreate(ctx context.Context, node string, vmid int, plan *vmModel, form url.Values) (adopted, found bool, err error) {
	config, err := r.client.QemuConfig(ctx, node, vmid)
	if pveapi.IsNotFound(err) {
		return false, false, nil
	}
	if err != nil {
		return false, false, err
	}
	if config.Lock() == "create" {
		return true, true, nil
	}
	if known(plan.Name) {
		return config[keyName] == plan.Name.ValueString(), true, nil
	}
	if _, named := config[keyName]; named {
		return false, true, nil
	}
	for key := range form {
		if diskSlotPattern.MatchString(key) || netSlotPattern.MatchString(key) {
			if _, ok := config[key]; !ok {
				return false, true, nil
			}
		}
	}
	return true, true, nil
}

// awaitCreate waits for the create task, or for the create lock of an
// adopted VM to go (W10).
func (r *vmResource) awaitCreate(ctx context.Context, node string, vmid int, upid string, diags *diag.Diagnostics) bool {
	if upid != "" {
		return fwutil.SettleTask(ctx, r.client, upid, fmt.Sprintf("creating VM %d", vmid), "Unable To Create VM", diags)
	}
	if _, err := r.client.WaitUnlocked(ctx, node, pveapi.GuestTypeQemu, vmid); err != nil {
		if pveapi.IsNotFound(err) {
			diags.AddError("Unable To Create VM", fmt.Sprintf(
				"VM %d was being created when the answer was lost, and PVE removed it since: the create task failed. See the PVE task log on node %s.", vmid, node))
			return false
		}
		fwutil.AddAPIError(diags, "Unable To Create VM", err)
		return false
	}
	return true
}

// writeConfig sends the one config request of an update. A request that
// allocates new disks goes the asynchronous way and is waited for (W9).
func (r *vmResource) writeConfig(ctx context.Context, node string, vmid int, u *configUpdate, digest string, diags *diag.Diagnostics) bool {
	params := u.delta.Values()
	if digest != "" {
		params.Set("digest", digest)
	}
	if !u.allocates {
		if err := r.client.UpdateQemuConfig(ctx, node, vmid, params); err != nil {
			fwutil.AddAPIError(diags, "Unable To Update VM", err)
			return false
		}
		return true
	}
	upid, err := r.client.UpdateQemuConfigAsync(ctx, node, vmid, params)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Update VM", err)
		return false
	}
	return fwutil.SettleTask(ctx, r.client, upid, fmt.Sprintf("updating VM %d", vmid), "Unable To Update VM", diags)
}

// purgeDetached destroys the volumes of removed disks: PVE parked each as
// unusedN (W24), and deleting an unusedN key destroys its volume.
func (r *vmResource) purgeDetached(ctx context.Context, node string, vmid int, detached map[string]string, diags *diag.Diagnostics) bool {
	config, err := r.client.QemuConfig(ctx, node, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read VM", err)
		return false
	}
	unused := unusedSlotsHolding(config, detached)
	if len(unused) == 0 {
		return true
	}
	if err := r.client.UpdateQemuConfig(ctx, node, vmid, url.Values{"delete": {strings.Join(unused, ",")}}); err != nil {
		fwutil.AddAPIError(diags, "Unable To Destroy Removed Disks", err)
		return false
	}
	return true
}

// finishDisks runs the disk tasks that follow a create or a config
// request: grow (W22), then move to another storage with the data (W23).
func (r *vmResource) finishDisks(ctx context.Context, node string, vmid int, plan *vmModel, live pveapi.GuestConfig, diags *diag.Diagnostics) bool {
	resizes, moves, err := diskFollowUps(plan, live)
	if err != nil {
		diags.AddError("Unable To Update VM Disks", err.Error())
		return false
	}
	for _, resize := range resizes {
		upid, err := r.client.ResizeQemuDisk(ctx, node, vmid, resize.slot, resize.size)
		if err != nil {
			fwutil.AddAttributeAPIError(diags, diskPath(resize.slot, "size"), "Unable To Resize Disk", err)
			return false
		}
		if !fwutil.SettleTask(ctx, r.client, upid, fmt.Sprintf("resizing disk %s of VM %d", resize.slot, vmid), "Unable To Resize Disk", diags) {
			return false
		}
	}
	for _, move := range moves {
		upid, err := r.client.MoveQemuDisk(ctx, node, vmid, move.slot, move.storage, true, "")
		if err != nil {
			fwutil.AddAttributeAPIError(diags, diskPath(move.slot, "storage"), "Unable To Move Disk", err)
			return false
		}
		if !fwutil.SettleTask(ctx, r.client, upid, fmt.Sprintf("moving disk %s of VM %d to %s", move.slot, vmid, move.storage), "Unable To Move Disk", diags) {
			return false
		}
	}
	return true
}

// migrate moves the VM to target: online when it runs, copying local disks
// when it has any.
func (r *vmResource) migrate(ctx context.Context, node string, vmid int, target string, diags *diag.Diagnostics) bool {
	status, err := r.client.QemuStatus(ctx, node, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read VM Status", err)
		return false
	}
	config, err := r.client.QemuConfig(ctx, node, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read VM", err)
		return false
	}
	storages, err := r.client.Storages(ctx, node, pveapi.StorageFilter{})
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To List Storages", err)
		return false
	}
	shared := map[string]bool{}
	for _, s := range storages {
		shared[s.Storage] = bool(s.Shared)
	}
	online := status.Status == pveapi.PowerRunning
	upid, err := r.client.MigrateQemu(ctx, node, vmid, target, online, localDisks(config, shared))
	if err != nil {
		fwutil.AddAttributeAPIError(diags, path.Root("node"), "Unable To Migrate VM", err)
		return false
	}
	return fwutil.SettleTask(ctx, r.client, upid, fmt.Sprintf("migrating VM %d from %s to %s", vmid, node, target), "Unable To Migrate VM", diags)
}

// changePool moves the VM between pools through the pools API (W48).
func (r *vmResource) changePool(ctx context.Context, vmid int, from, to types.String, diags *diag.Diagnostics) bool {
	var err error
	if known(to) {
		err = r.client.UpdatePool(ctx, pveapi.PoolUpdate{PoolID: to.ValueString(), VMs: []int{vmid}, AllowMove: true})
	} else if known(from) {
		err = r.client.UpdatePool(ctx, pveapi.PoolUpdate{PoolID: from.ValueString(), VMs: []int{vmid}, Delete: true})
		if pveapi.IsPoolNotFound(err) {
			err = nil
		}
	}
	if err != nil {
		fwutil.AddAttributeAPIError(diags, path.Root("pool"), "Unable To Change VM Pool", err)
		return false
	}
	return true
}

// poolHas reports whether pool lists the VM; a missing pool has no members.
func (r *vmResource) poolHas(ctx context.Context, poolID string, vmid int) (bool, error) {
	pool, found, err := r.client.GetPool(ctx, poolID)
	if err != nil || !found {
		return false, err
	}
	for _, m := range pool.Members {
		if (m.Type == pveapi.GuestTypeQemu || m.Type == pveapi.GuestTypeLXC) && m.VMID.Int() == vmid {
			return true, nil
		}
	}
	return false, nil
}

// settlePower brings the VM to the planned power state. A VM that stays up
// after a config change is asked for changes PVE keeps pending until the
// next start: it is rebooted when reboot_after_update is set, otherwise a
// warning names the keys.
func (r *vmResource) settlePower(ctx context.Context, node string, vmid int, plan *vmModel, configWritten bool, diags *diag.Diagnostics) bool {
	status, err := r.client.QemuStatus(ctx, node, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read VM Status", err)
		return false
	}
	running := status.Status == pveapi.PowerRunning
	wantRunning := plan.Started.ValueBool()
	switch {
	case wantRunning && !running:
		return r.powerAction(ctx, node, vmid, pveapi.QemuStart, nil, diags)
	case !wantRunning && running:
		return r.powerOff(ctx, node, vmid, diags)
	case !running || !configWritten:
		return true
	}
	entries, err := r.client.QemuPendingConfig(ctx, node, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read Pending VM Changes", err)
		return false
	}
	keys := pendingKeys(entries)
	if len(keys) == 0 {
		return true
	}
	if plan.RebootAfterUpdate.ValueBool() {
		return r.powerAction(ctx, node, vmid, pveapi.QemuReboot, nil, diags)
	}
	diags.AddWarning("VM Changes Wait For A Reboot",
		fmt.Sprintf("VM %d runs with its old settings for %s: PVE applies them at the next start. "+
			"Reboot the VM, or set reboot_after_update = true to have updates reboot it.", vmid, describeKeys(keys)))
	return true
}

// powerAction runs one power task and waits for it. The task's own
// timeout is set from what is left of the resource's timeout, so PVE gives
// up no later than the provider does; it also keeps the request body from
// being empty, which pveproxy refuses (an empty POST goes out chunked).
func (r *vmResource) powerAction(ctx context.Context, node string, vmid int, action string, params url.Values, diags *diag.Diagnostics) bool {
	summary := "Unable To " + strings.ToUpper(action[:1]) + action[1:] + " VM"
	if !params.Has("timeout") {
		params = url.Values{"timeout": {strconv.Itoa(int(taskWait(ctx, maxShutdownWait).Seconds()))}}
	}
	upid, err := r.client.QemuStatusAction(ctx, node, vmid, action, params)
	if err != nil {
		fwutil.AddAPIError(diags, summary, err)
		return false
	}
	return fwutil.SettleTask(ctx, r.client, upid, fmt.Sprintf("%s of VM %d", action, vmid), summary, diags)
}

// powerOff shuts the VM down gracefully within part of the timeout, then
// stops it if it still runs.
func (r *vmResource) powerOff(ctx context.Context, node string, vmid int, diags *diag.Diagnostics) bool {
	params := url.Values{"timeout": {strconv.Itoa(int(taskWait(ctx, maxShutdownWait).Seconds()))}}
	var shutdownDiags diag.Diagnostics
	if r.powerAction(ctx, node, vmid, pveapi.QemuShutdown, params, &shutdownDiags) {
		status, err := r.client.QemuStatus(ctx, node, vmid)
		if err == nil && status.Status != pveapi.PowerRunning {
			return true
		}
	}
	// A guest that ignores ACPI fails the shutdown task: that is what the
	// stop is for, so the shutdown error is not reported.
	return r.powerAction(ctx, node, vmid, pveapi.QemuStop, nil, diags)
}

// taskWait is half of what is left of ctx's deadline, within
// [minShutdownWait, limit].
func taskWait(ctx context.Context, limit time.Duration) time.Duration {
	deadline, ok := ctx.Deadline()
	if !ok {
		return limit
	}
	return min(max(time.Until(deadline)/2, minShutdownWait), limit)
}

// readBack reads the VM after a write into m, so state holds what PVE
// keeps rather than what was sent. Pool and node stay as planned: both were
// just written.
func (r *vmResource) readBack(ctx context.Context, node string, vmid int, m *vmModel, diags *diag.Diagnostics) bool {
	config, err := r.client.QemuConfig(ctx, node, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read VM After Writing It", err)
		return false
	}
	status, err := r.client.QemuStatus(ctx, node, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read VM Status After Writing It", err)
		return false
	}
	if err := m.fromAPI(vmid, config, status); err != nil {
		diags.AddError("Unexpected VM Configuration",
			fmt.Sprintf("VM %d on node %s has a configuration the provider cannot read: %v", vmid, node, err))
		return false
	}
	m.Node = types.StringValue(node)
	return true
}
