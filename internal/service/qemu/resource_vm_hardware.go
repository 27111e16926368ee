package qemu

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

// undeclaredPCIKey is the private state entry where a refresh leaves the
// live hostpciN slots the configuration does not declare, for the plan to
// warn about without asking PVE again (W42).
const undeclaredPCIKey = "undeclared_pci_slots"

// privateGetter is the part of a request's private state the plan reads.
type privateGetter interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

// notePCI records the live hostpciN slots m does not declare.
func notePCI(ctx context.Context, config pveapi.GuestConfig, m *vmModel, private guestops.PrivateSetter, diags *diag.Diagnostics) {
	if private == nil {
		return
	}
	var value []byte
	if slots := undeclaredPCISlots(config, m.PCIDevices); len(slots) > 0 {
		var err error
		if value, err = json.Marshal(slots); err != nil {
			return
		}
	}
	diags.Append(private.SetKey(ctx, undeclaredPCIKey, value)...)
}

func notedPCI(ctx context.Context, private privateGetter) []string {
	if private == nil {
		return nil
	}
	raw, diags := private.GetKey(ctx, undeclaredPCIKey)
	if diags.HasError() || len(raw) == 0 {
		return nil
	}
	var slots []string
	if err := json.Unmarshal(raw, &slots); err != nil {
		return nil
	}
	return slots
}

// modifyHardwarePlan checks EFI disk, TPM state, PCI devices and disks
// imported from a path at plan time, at create too (state is nil then), and marks the guest agent's
// addresses unknown when an update may change them.
func (r *vmResource) modifyHardwarePlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, state, plan *vmModel) {
	if state != nil {
		guestops.AddIssues(&resp.Diagnostics, checkFirmwarePlan(state, plan))
	}
	principal := ""
	if r.api.Client != nil {
		principal = r.api.Client.Principal()
	}
	guestops.AddIssues(&resp.Diagnostics, checkPCIPlan(state, plan, principal, notedPCI(ctx, req.Private)))
	guestops.AddIssues(&resp.Diagnostics, checkUSBPlan(state, plan, principal))
	guestops.AddIssues(&resp.Diagnostics, checkImportPathPlan(state, plan, principal))

	if state != nil && plan.agentEnabled() && !guestops.PlanUnchanged(req) {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("ipv4_addresses"), types.ListUnknown(types.StringType))...)
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("ipv6_addresses"), types.ListUnknown(types.StringType))...)
	}
}

// finishFirmware moves efidisk0 and tpmstate0 to their planned storage
// with their data (W23).
func (r *vmResource) finishFirmware(ctx context.Context, node string, vmid int, plan *vmModel, live pveapi.GuestConfig, diags *diag.Diagnostics) bool {
	moves := firmwareMoves(plan, live)
	if len(moves) == 0 {
		return true
	}
	return r.api.RunFollowUps(ctx, node, vmid, nil, moves, firmwarePath, diags)
}
