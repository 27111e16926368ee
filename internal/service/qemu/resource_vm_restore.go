package qemu

import (
	"net/url"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// restoreForm is the restore request's overrides: the create form of
// what is declared, without the drives PVE refuses next to an archive
// ("option conflicts with option 'archive'") and without the boot order,
// which may name them; both follow once the disks exist. An undeclared
// description keeps what PVE's restore makes of the archive's: the
// request always carries a description (the restore marker goes into it),
// and that replaces the restored one, so the lines PVE adds for the disks
// left out of the backup are sent too.
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
	description := guestops.ArchiveDescription(plan.Description, archive)
	if !guestops.Known(plan.Description) {
		description = withExcludedDiskLines(description, archive)
	}
	form.Set(keyDescription, description)
	if form.Get(keyDescription) == "" {
		form.Del(keyDescription)
	}
	return form, nil
}

// withExcludedDiskLines appends to description one "SLOT: VALUE" line per
// disk of the archive marked backup=0, in the config file's (sorted)
// order: vzdump keeps such a disk's line in the archived config but not
// its data, and the restore writes the line back as a comment, which
// becomes part of the description (qemu-server src/PVE/QemuServer.pm
// restore_update_config_line, parse_vm_config).
func withExcludedDiskLines(description string, archive pveapi.GuestConfig) string {
	keys := make([]string, 0, len(archive))
	for key := range archive {
		if wire.IsDiskSlot(key) {
			keys = append(keys, key)
		}
	}
	sort.Strings(keys)
	lines := []string{}
	if description != "" {
		lines = append(lines, description)
	}
	for _, key := range keys {
		drive, err := wire.ParseDrive(archive[key])
		if err != nil {
			continue
		}
		raw, set := drive.Options["backup"]
		if included, err := wire.ParsePropertyBool(raw); set && err == nil && !included {
			lines = append(lines, key+": "+archive[key])
		}
	}
	return strings.Join(lines, "\n")
}

func (r *vmResource) RestoreForm(plan *vmModel, archive pveapi.GuestConfig, diags *diag.Diagnostics) (url.Values, bool) {
	form, err := restoreForm(plan, archive)
	if err != nil {
		diags.AddError("Invalid VM Configuration", err.Error())
		return nil, false
	}
	return form, true
}
