package lxc

import (
	"slices"
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

// W35: arch and ostype come from the template at create and are not
// settings; unusedN (W24), startup, raw lxc keys and options without an
// attribute (KEY.OPTION) are named.
func TestContainerUnmanagedKeysW24W35(t *testing.T) {
	t.Parallel()
	config := pveapi.GuestConfig{
		"hostname":     "db",
		"arch":         "amd64",
		"ostype":       "debian",
		"rootfs":       "local-lvm:vm-200-disk-0,mountoptions=noatime,size=8G",
		"mp0":          "local-lvm:vm-200-disk-1,mp=/var/lib/db,size=4G",
		"mp1":          "/srv/share,mp=/share",
		"net0":         "name=eth0,bridge=vmbr0,hwaddr=BC:24:11:00:00:02,ip=dhcp,type=veth",
		"features":     "force_rw_sys=1,nesting=1",
		"net1":         "name=eth1,bridge=vmbr0,hwaddr=BC:24:11:00:00:03,ip=10.0.0.6/24,gw=10.0.0.1,trunks=10;20,type=veth",
		"unprivileged": "1",
		"unused0":      "local-lvm:vm-200-disk-2",
		"startup":      "order=3",
		"lxc":          "lxc.apparmor.profile=unconfined",
		"digest":       "0123abcd",
	}
	got := guestops.UnmanagedKeys(config, &containerResource{})
	want := []string{"features.force_rw_sys", "lxc", "net1.trunks", "rootfs.mountoptions", "startup", "unused0"}
	if !slices.Equal(got, want) {
		t.Errorf("unmanaged keys = %v, want %v", got, want)
	}
}
