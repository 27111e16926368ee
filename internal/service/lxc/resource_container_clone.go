package lxc

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

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

// InheritedView is plan with what it does not declare taken from live:
// a container inherits everything from its clone source or archive.
func (r *containerResource) InheritedView(ctx context.Context, vmid int, plan *containerModel, live pveapi.GuestConfig, _ guestops.Origin) (*containerModel, error) {
	return r.cloneView(ctx, vmid, nil, plan, live)
}

// FinishInherited writes the one config request that turns the container
// made from a source into view, then grows or moves the declared volumes.
func (r *containerResource) FinishInherited(ctx context.Context, _ tfsdk.Config, node string, vmid int, view, plan *containerModel, live pveapi.GuestConfig,
	_ guestops.Origin, summary string, diags *diag.Diagnostics) bool {
	return r.WriteView(ctx, node, vmid, view, live, summary, diags) && r.finishVolumes(ctx, node, vmid, plan, diags)
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
