package qemu

import (
	"slices"
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

// W27: the cloud-init drive is PVE's and represented by cloud_init, on any
// bus; unusedN (W24), a pass-through device, settings without an attribute
// and options without one (KEY.OPTION) are named. W41: ms-cert is PVE's.
func TestVMUnmanagedKeysW24W27(t *testing.T) {
	t.Parallel()
	config := pveapi.GuestConfig{
		"name":       "web",
		"boot":       "order=scsi0;net0",
		"cpu":        "host,flags=+aes",
		"agent":      "1,freeze-fs-on-backup=0,fstrim_cloned_disks=1",
		"virtio0":    "local-lvm:vm-100-disk-4,iops_rd=100,serial=DATA1,size=4G",
		"scsi0":      "local-lvm:vm-100-disk-1,discard=on,size=8G",
		"scsi1":      "local-lvm:vm-100-cloudinit,media=cdrom",
		"ide0":       "local:iso/debian-13-netinst.iso,media=cdrom",
		"sata0":      "/dev/disk/by-id/ata-SAMSUNG_SSD_S1,size=500G",
		"efidisk0":   "local-lvm:vm-100-disk-0,efitype=4m,pre-enrolled-keys=1,size=4M",
		"net0":       "virtio=BC:24:11:00:00:01,bridge=vmbr0,firewall=1",
		"net1":       "e1000=BC:24:11:00:00:02,bridge=vmbr1,trunks=10;20",
		"hostpci0":   "0000:17:00.0,pcie=1",
		"ipconfig0":  "ip=dhcp",
		"cipassword": "**********",
		"cicustom":   "user=local:snippets/user.yaml",
		"unused0":    "local-lvm:vm-100-disk-2",
		"serial0":    "socket",
		"vga":        "serial0",
		"meta":       "creation-qemu=9.2.0,ctime=1760000000",
		"vmgenid":    "6f1a6c2e-0000-4000-8000-000000000001",
		"smbios1":    "uuid=6f1a6c2e-0000-4000-8000-000000000002",
		"digest":     "0123abcd",
	}
	got := guestops.UnmanagedKeys(config, &vmResource{})
	want := []string{
		"agent.freeze-fs-on-backup", "cicustom", "cpu.flags", "net1.trunks", "sata0", "serial0", "unused0", "vga",
		"virtio0.iops_rd", "virtio0.serial",
	}
	if !slices.Equal(got, want) {
		t.Errorf("unmanaged keys = %v, want %v", got, want)
	}
}
