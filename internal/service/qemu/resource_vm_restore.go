package qemu

import (
	"context"
	"net/url"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// restoreForm is the restore request's overrides: the create form of
// what is declared, without the drives PVE refuses next to an archive
// ("option conflicts with option 'archive'") and without the boot order,
// which may name them; both follow once the disks exist. An undeclared
// description keeps the archive's.
func restoreForm(plan *vmModel, archive pveapi.GuestConfig) (url.Values, error) {
	form, err := plan.toCreate()
	if err != nil {
		return nil, err
	}
	for key := range form {
		if wire.IsDiskSlot(key) || key == keyBoot {
			delete(form, key)
		}
	}
	form.Set(keyDescription, guestops.ArchiveDescription(plan.Description, archive))
	if form.Get(keyDescription) == "" {
		form.Del(keyDescription)
	}
	return form, nil
}

// ReconfigureRestore turns the restored VM into plan, keeping marker
// until it is complete.
func (r *vmResource) ReconfigureRestore(ctx context.Context, config tfsdk.Config, node string, vmid int, plan *vmModel, marker string, diags *diag.Diagnostics) bool {
	return r.reconfigureInherited(ctx, config, node, vmid, plan, archiveOrigin, marker, diags)
}
