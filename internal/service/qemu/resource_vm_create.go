package qemu

import (
	"context"
	"net/url"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

func (r *vmResource) CreateForm(_ context.Context, _ tfsdk.Config, plan *vmModel, diags *diag.Diagnostics) (url.Values, bool) {
	form, err := plan.toCreate()
	if err != nil {
		diags.AddError("Invalid VM Configuration", err.Error())
		return nil, false
	}
	return form, true
}

func (r *vmResource) Recognize(plan *vmModel, config pveapi.GuestConfig, form url.Values) bool {
	return plan.recognize(config, form)
}

// FinishCreate grows the disks seeded from an image, which have the
// image's size, to the configured size (W25, W22), and writes cloud-init.
func (r *vmResource) FinishCreate(ctx context.Context, config tfsdk.Config, node string, vmid int, plan *vmModel, diags *diag.Diagnostics) bool {
	live, err := r.api.Client.GuestConfig(ctx, node, pveapi.GuestTypeQemu, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read VM After Creating It", err)
		return false
	}
	if !r.finishDisks(ctx, node, vmid, plan, live, diags) {
		return false
	}
	return r.applyCloudInit(ctx, config, node, vmid, nil, plan, nil, diags)
}

// recognize tells whether a VM found on the VMID after a lost create
// answer is the one form describes (W13): it carries the planned name, or
// without a name every device slot sent.
func (m *vmModel) recognize(config pveapi.GuestConfig, form url.Values) bool {
	if guestops.Known(m.Name) {
		return config[keyName] == m.Name.ValueString()
	}
	if _, named := config[keyName]; named {
		return false
	}
	for key := range form {
		if wire.IsDataDiskSlot(key) || wire.IsNetSlot(key) {
			if _, ok := config[key]; !ok {
				return false
			}
		}
	}
	return true
}

// WriteView sends the one config request that turns live into view, the
// plan with its creation marker: an adopted half-made VM becomes the plan
// in one request.
func (r *vmResource) WriteView(ctx context.Context, node string, vmid int, view *vmModel, live pveapi.GuestConfig, summary string, diags *diag.Diagnostics) bool {
	update, err := toUpdate(view, view, live)
	if err != nil {
		diags.AddError(summary, err.Error())
		return false
	}
	return update.delta.IsEmpty() || r.writeConfig(ctx, node, vmid, update, live.Digest(), diags)
}
