package lxc

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

// checkCreateSource says what a new container needs: a clone inherits its
// root disk and has no template archive to unpack; anything else needs a
// root disk.
func checkCreateSource(plan *containerModel) []guestops.Issue {
	if plan.Clone == nil {
		if plan.RootDisk == nil {
			return []guestops.Issue{{Path: path.Root("root_disk"), Summary: "Root Disk Required",
				Detail: "Creating a container from os_template needs root_disk (storage and size). Only a clone inherits its source's."}}
		}
		return nil
	}
	if !plan.OSTemplate.IsNull() {
		return []guestops.Issue{{Path: path.Root("os_template"), Summary: "Conflicting Container Sources",
			Detail: "A container is created either from os_template or as a clone, not both: remove os_template or clone."}}
	}
	return nil
}

// origin names what a container was made from in messages: "Clone",
// "Cloning".
type origin struct {
	noun, verb string
}

var (
	cloneOrigin   = origin{noun: "Clone", verb: "Cloning"}
	archiveOrigin = origin{noun: "Restore", verb: "Restoring"}
)

// ReconfigureClone writes what plan declares in one config request, then
// grows or moves the declared volumes. The marker stays until the clone is
// complete.
func (r *containerResource) ReconfigureClone(ctx context.Context, _ tfsdk.Config, node string, vmid int, plan *containerModel, source int, diags *diag.Diagnostics) bool {
	marker := guestops.CloneMarker(guestops.Container, source)
	return r.reconfigureInherited(ctx, node, vmid, plan, cloneOrigin, marker, diags)
}

// reconfigureInherited writes what plan declares and the source did not
// bring in one config request, computed against a view holding what the
// source brought, then grows or moves the declared volumes. marker stays
// in the description.
func (r *containerResource) reconfigureInherited(ctx context.Context, node string, vmid int, plan *containerModel, from origin, marker string, diags *diag.Diagnostics) bool {
	live, err := r.api.Client.GuestConfig(ctx, node, pveapi.GuestTypeLXC, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read Container After "+from.verb+" It", err)
		return false
	}
	planSummary := "Unable To Plan " + from.noun + " Configuration"
	view, err := r.cloneView(ctx, vmid, nil, plan, live)
	if err != nil {
		diags.AddError(planSummary, err.Error())
		return false
	}
	view.Description = types.StringValue(guestops.WithCloneMarker(view.Description.ValueString(), marker))
	update, err := toUpdate(view, view, live)
	if err != nil {
		diags.AddError(planSummary, err.Error())
		return false
	}
	if !update.delta.IsEmpty() && !r.writeConfig(ctx, node, vmid, update, live.Digest(), diags) {
		return false
	}
	return r.finishVolumes(ctx, node, vmid, plan, diags)
}

// cloneView is want with what neither want nor prior declares taken from
// live.
func (r *containerResource) cloneView(ctx context.Context, vmid int, prior, want *containerModel, live pveapi.GuestConfig) (*containerModel, error) {
	inherited := *want
	if err := inherited.fromAPI(vmid, guestops.WithoutCloneMarker(live), nil); err != nil {
		return nil, err
	}
	return guestops.CloneView(ctx, containerSchema(ctx), prior, want, &inherited, guestops.NoInheritanceLimits)
}
