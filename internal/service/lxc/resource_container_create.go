package lxc

import (
	"context"
	"net/url"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// CreateForm includes root's password, which only the configuration holds
// (write-only).
func (r *containerResource) CreateForm(ctx context.Context, config tfsdk.Config, plan *containerModel, diags *diag.Diagnostics) (url.Values, bool) {
	var password types.String
	diags.Append(config.GetAttribute(ctx, path.Root("password_wo"), &password)...)
	if diags.HasError() {
		return nil, false
	}
	form, err := plan.toCreate(password)
	if err != nil {
		diags.AddError("Invalid Container Configuration", err.Error())
		return nil, false
	}
	if !guestops.Known(plan.Unprivileged) {
		// Left unknown only when the plan could not tell the container
		// would come from a template (unprivilegedByDefault).
		form.Set(keyUnprivileged, "1")
	}
	return form, true
}

func (r *containerResource) Recognize(plan *containerModel, config pveapi.GuestConfig, form url.Values) bool {
	return plan.recognize(config, form)
}

// FinishCreate grows a volume whose size is not whole MiB, which PVE
// rounds down at allocation, to the size planned (W22).
func (r *containerResource) FinishCreate(ctx context.Context, _ tfsdk.Config, node string, vmid int, plan *containerModel, diags *diag.Diagnostics) bool {
	return r.finishVolumes(ctx, node, vmid, plan, diags)
}

// recognize tells whether a container found on the VMID after a lost
// create answer is the one form describes (W13): it carries the planned
// hostname, or without one every mount point and NIC slot sent.
func (m *containerModel) recognize(config pveapi.GuestConfig, form url.Values) bool {
	if hostname := form.Get(keyHostname); hostname != "" {
		return config[keyHostname] == hostname
	}
	for key := range form {
		if wire.IsMountPointSlot(key) || wire.IsNetSlot(key) {
			if _, ok := config[key]; !ok {
				return false
			}
		}
	}
	_, hasRoot := config[keyRootFS]
	return hasRoot
}

// WriteView sends the one config request that turns live into view, the
// plan with its creation marker: an adopted half-made guest (and, for
// FinishInherited, one made from a source) becomes the plan in one request.
func (r *containerResource) WriteView(ctx context.Context, node string, vmid int, view *containerModel, live pveapi.GuestConfig, summary string, diags *diag.Diagnostics) bool {
	update, err := toUpdate(view, view, live)
	if err != nil {
		diags.AddError(summary, err.Error())
		return false
	}
	return update.delta.IsEmpty() || r.writeConfig(ctx, node, vmid, update, live.Digest(), diags)
}
