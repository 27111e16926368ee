package lxc

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

var restoreArchive = pveapi.GuestConfig{
	"description": "cache container",
	"hostname":    "cache-130",
	"rootfs":      "local-lvm:vm-130-disk-0,size=4G,mountoptions=noatime",
	"mp0":         "local-lvm:vm-130-disk-1,mp=/var/cache/app,backup=1,size=2G",
	"mp1":         "/srv/share,mp=/share,ro=1",
}

// W40: without a declared root disk every mount point is sent, the rootfs
// and the undeclared volume mount point as new volumes of the archive's
// sizes with its options, on restore.storage; a bind mount as it was.
func TestRestoreFormSendsEveryMountPointW40(t *testing.T) {
	t.Parallel()
	plan := &containerModel{
		Restore: &guestops.RestoreModel{Archive: types.StringValue("local:backup/vzdump-lxc-130-x.tar.zst"), Storage: types.StringValue("fast")},
		Memory:  types.ObjectNull(memoryAttrTypes),
	}
	form, err := restoreForm(plan, restoreArchive)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"rootfs":      "fast:4,mountoptions=noatime",
		"mp0":         "fast:2,backup=1,mp=/var/cache/app",
		"mp1":         "/srv/share,mp=/share,ro=1",
		"description": "cache container",
		"ostemplate":  "",
		"password":    "",
		"hostname":    "",
	}
	for k, v := range want {
		if got := form.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
}

// W40: a declared root disk and mount point win; the archive's other
// mount point keeps its own storage when restore.storage is not set.
func TestRestoreFormDeclaredMountsW40(t *testing.T) {
	t.Parallel()
	plan := &containerModel{
		Restore:     &guestops.RestoreModel{Archive: types.StringValue("local:backup/vzdump-lxc-130-x.tar.zst")},
		Memory:      types.ObjectNull(memoryAttrTypes),
		Description: types.StringValue("mine"),
		RootDisk:    &rootDiskModel{Storage: types.StringValue("local-lvm"), Size: fwutil.SizeFromBytes(8 << 30)},
		MountPoints: map[string]mountPointModel{"mp1": {Storage: types.StringValue("local-lvm"), Size: fwutil.SizeFromBytes(1 << 30), Path: types.StringValue("/x")}},
	}
	form, err := restoreForm(plan, restoreArchive)
	if err != nil {
		t.Fatal(err)
	}
	if form.Get("rootfs") != "local-lvm:8" || form.Get("mp0") != "local-lvm:2,backup=1,mp=/var/cache/app" ||
		form.Get("mp1") != "local-lvm:1,mp=/x" || form.Get("description") != "mine" {
		t.Errorf("form = %v", form)
	}
}

// An archive whose rootfs records no size needs a declared root disk.
func TestRestoreFormNeedsASizeW40(t *testing.T) {
	t.Parallel()
	plan := &containerModel{Restore: &guestops.RestoreModel{}, Memory: types.ObjectNull(memoryAttrTypes)}
	_, err := restoreForm(plan, pveapi.GuestConfig{"rootfs": "local-lvm:vm-130-disk-0"})
	if err == nil || err.Error() != `the archive records no size for rootfs ("local-lvm:vm-130-disk-0"): declare root_disk with a size` {
		t.Errorf("err = %v", err)
	}
}
