package qemu

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

// A running VM keeps its cloud-init drive until it stops: removing it is
// only queued (qemu-server PVE/QemuServer.pm vmconfig_hotplug_pending never
// unplugs an ide or sata drive, and one on another bus only with disk
// hotplug), and while the old drive is still in the config PVE refuses a
// second one ("cloud-init drive is already attached", PVE/API2/Qemu.pm
// create_disks via PVE/QemuConfig.pm has_cloudinit). Moving the drive to
// another slot therefore needs the VM stopped: the update stops it first
// when the plan stops it anyway or allows a reboot, and the plan refuses
// the move otherwise, before anything is queued.

// cloudInitSlotMove tells the old and new slot when plan moves PVE's
// cloud-init drive of a VM that has one.
func cloudInitSlotMove(state, plan *vmModel) (from, to string, moves bool) {
	if state == nil || plan == nil || !state.CloudInit.wantsDrive() || !plan.CloudInit.wantsDrive() {
		return "", "", false
	}
	from, to = state.CloudInit.driveSlot(), plan.CloudInit.driveSlot()
	return from, to, from != to
}

// restartAllowed tells whether the plan lets an update stop the VM: it is
// stopped by the plan, or may be rebooted.
func restartAllowed(plan *vmModel) bool {
	stops := guestops.Known(plan.Started) && !plan.Started.ValueBool()
	reboots := guestops.Known(plan.RebootAfterUpdate) && plan.RebootAfterUpdate.ValueBool()
	return stops || reboots
}

// checkCloudInitSlotMove refuses at plan time to move the cloud-init drive
// of a running VM that the plan neither stops nor may reboot.
func checkCloudInitSlotMove(state, plan *vmModel) []guestops.Issue {
	from, to, moves := cloudInitSlotMove(state, plan)
	if !moves || state.Status.ValueString() != pveapi.PowerRunning || restartAllowed(plan) {
		return nil
	}
	return []guestops.Issue{{
		Path:    cloudInitPath("slot"),
		Summary: "Cloud-Init Drive Cannot Move While The VM Runs",
		Detail: fmt.Sprintf("The cloud-init drive is in %s and the configuration moves it to %s, but VM %d is running. "+
			"PVE removes the old drive only when the VM stops and refuses a second cloud-init drive until then, "+
			"so the move would stay half done. Allow a restart for this change: set reboot_after_update = true "+
			"(the VM is stopped, the drive moved and the VM started again), or set started = false for this apply "+
			"and back to true afterwards. Otherwise keep slot = %q.",
			from, to, state.VMID.ValueInt64(), from),
	}}
}

// stopForCloudInitMove stops a running VM before its cloud-init drive
// moves, when the plan allows it; SettlePower starts it again afterwards if
// the plan keeps it started. A move the plan does not allow a restart for
// fails here, before anything is written.
func (r *vmResource) stopForCloudInitMove(ctx context.Context, node string, vmid int, state, plan *vmModel, diags *diag.Diagnostics) bool {
	from, to, moves := cloudInitSlotMove(state, plan)
	if !moves {
		return true
	}
	status, err := r.api.Status(ctx, node, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read VM Status", err)
		return false
	}
	if status.Status != pveapi.PowerRunning {
		return true
	}
	if !restartAllowed(plan) {
		diags.AddAttributeError(cloudInitPath("slot"), "Cloud-Init Drive Cannot Move While The VM Runs",
			fmt.Sprintf("VM %d started running after the plan was made; moving its cloud-init drive from %s to %s needs it stopped. "+
				"Set reboot_after_update = true or started = false for this change, or stop the VM, then apply again.", vmid, from, to))
		return false
	}
	return r.api.PowerOff(ctx, node, vmid, diags)
}
