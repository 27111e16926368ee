package lxc

import (
	"fmt"
	"maps"
	"net/url"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// inherits tells whether the container was made from a source whose
// undeclared settings it keeps: a clone or a restore.
func (m *containerModel) inherits() bool {
	return m.Origin != guestops.OriginNone || m.Clone != nil || m.Restore != nil
}

// checkNewContainerSource says what a new container needs: a restore
// brings its root disk and has no template to unpack (restore conflicts
// with os_template in the schema), and PVE applies no root password or
// SSH keys to it: the restored file system keeps its own. Other sources
// are checkCreateSource's.
func checkNewContainerSource(plan *containerModel) []guestops.Issue {
	if plan.Restore == nil {
		return checkCreateSource(plan)
	}
	var issues []guestops.Issue
	for _, attr := range []struct {
		name     string
		declared bool
	}{
		{"ssh_public_keys", guestops.Known(plan.SSHPublicKeys) && len(plan.SSHPublicKeys.Elements()) > 0},
		{"password_wo_version", guestops.Known(plan.PasswordWOVersion)},
	} {
		if attr.declared {
			issues = append(issues, guestops.Issue{Path: path.Root(attr.name), Summary: "Not Applied On Restore",
				Detail: "PVE writes root's password and SSH keys only into a container it creates from a template; a restored container " +
					"keeps those of its backup. Remove " + attr.name + " (and password_wo), or set them inside the container."})
		}
	}
	return issues
}

// restoreForm is the restore request without the archive: the create form
// of what is declared, every mount point spelled out (W40): the declared
// root disk or the archive's rootfs at the size the archive recorded, the
// declared mount points, and the archive's other mount points, so none is
// lost. Undeclared volumes go to restore.storage, else where they were.
// An undeclared description keeps the archive's. Root's password and keys
// are not sent: a restore does not apply them.
func restoreForm(plan *containerModel, archive pveapi.GuestConfig) (url.Values, error) {
	m := *plan
	m.OSTemplate = types.StringNull()
	if m.RootDisk == nil {
		// Replaced below by the archive's rootfs.
		m.RootDisk = &rootDiskModel{Storage: types.StringValue("archive"), Size: fwutil.SizeFromBytes(wire.GiB)}
	}
	// No password: a restore does not apply one (checkNewContainerSource).
	form, err := m.toCreate(types.StringNull())
	if err != nil {
		return nil, err
	}
	storage := plan.Restore.Storage.ValueString()
	if plan.RootDisk == nil {
		root, err := archiveMount(archive, keyRootFS, storage)
		if err != nil {
			return nil, err
		}
		form.Set(keyRootFS, root)
	}
	for _, slot := range slices.Sorted(maps.Keys(archive)) {
		if _, declared := plan.MountPoints[slot]; declared || !wire.IsMountPointSlot(slot) {
			continue
		}
		value, err := archiveMount(archive, slot, storage)
		if err != nil {
			return nil, err
		}
		form.Set(slot, value)
	}
	if description := guestops.ArchiveDescription(plan.Description, archive); description != "" {
		form.Set(guestops.KeyDescription, description)
	}
	return form, nil
}

// archiveMount is the create form of one of the archive's mount points: a
// new volume of the recorded size with the recorded options, on storage
// (its own when empty). A bind mount is passed on as it is.
func archiveMount(archive pveapi.GuestConfig, slot, storage string) (string, error) {
	value, ok := archive[slot]
	if !ok {
		return "", fmt.Errorf("the archive's configuration has no %s: declare root_disk", slot)
	}
	drive, err := parseMountSlot(value)
	if err != nil {
		return "", fmt.Errorf("the archive's %s %q: %w", slot, value, err)
	}
	if drive.kind == mountBind {
		return value, nil
	}
	size, ok := drive.Options[optSize]
	bytes, err := wire.ParseSize(size)
	if !ok || err != nil || bytes <= 0 {
		what := "mount_points." + slot
		if slot == keyRootFS {
			what = "root_disk"
		}
		return "", fmt.Errorf("the archive records no size for %s (%q): declare %s with a size", slot, value, what)
	}
	options := maps.Clone(drive.Options)
	delete(options, optSize)
	target := drive.Storage
	if storage != "" {
		target = storage
	}
	return wire.Drive{Storage: target, SizeGiB: float64(bytes) / float64(wire.GiB), Options: options}.CreateForm()
}

func (r *containerResource) RestoreForm(plan *containerModel, archive pveapi.GuestConfig, diags *diag.Diagnostics) (url.Values, bool) {
	form, err := restoreForm(plan, archive)
	if err != nil {
		diags.AddAttributeError(path.Root("restore").AtName("archive"), "Unable To Restore Container", err.Error())
		return nil, false
	}
	return form, true
}
