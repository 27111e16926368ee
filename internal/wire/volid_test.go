package wire

import (
	"strings"
	"testing"
)

func TestParseVolumeID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want VolumeID
	}{
		// Directory layout: pve-storage src/PVE/Storage/Plugin.pm parse_volname.
		{in: "local:iso/debian-13.0.0-amd64-netinst.iso", want: VolumeID{
			Content: ContentISO, File: "debian-13.0.0-amd64-netinst.iso", Format: "raw"}},
		{in: "local:iso/OPNsense.IMG", want: VolumeID{Content: ContentISO, File: "OPNsense.IMG", Format: "raw"}},
		{in: "local:vztmpl/debian-12-standard_12.7-1_amd64.tar.zst", want: VolumeID{
			Content: ContentVZTmpl, File: "debian-12-standard_12.7-1_amd64.tar.zst", Format: "raw"}},
		{in: "local:vztmpl/alpine.tar", want: VolumeID{Content: ContentVZTmpl, File: "alpine.tar", Format: "raw"}},
		{in: "local:backup/vzdump-qemu-100-2025_01_31-10_00_00.vma.zst", want: VolumeID{
			Content: ContentBackup, File: "vzdump-qemu-100-2025_01_31-10_00_00.vma.zst", VMID: 100, Format: "raw"}},
		{in: "local:backup/vzdump-lxc-101-2025_01_31-10_00_00.tar.gz", want: VolumeID{
			Content: ContentBackup, File: "vzdump-lxc-101-2025_01_31-10_00_00.tar.gz", VMID: 101, Format: "raw"}},
		{in: "local:backup/mine.tgz", want: VolumeID{Content: ContentBackup, File: "mine.tgz", Format: "raw"}},
		{in: "local:snippets/user-data.yaml", want: VolumeID{Content: ContentSnippets, File: "user-data.yaml", Format: "raw"}},
		{in: "local:import/noble-server-cloudimg-amd64.qcow2", want: VolumeID{
			Content: ContentImport, File: "noble-server-cloudimg-amd64.qcow2", Format: "qcow2"}},
		{in: "local:import/appliance.ova", want: VolumeID{Content: ContentImport, File: "appliance.ova", Format: "ova"}},
		{in: "local:import/appliance.ova/disk 1.vmdk", want: VolumeID{
			Content: ContentImport, File: "appliance.ova/disk 1.vmdk", Format: "ova+vmdk"}},
		{in: "local:100/vm-100-disk-0.qcow2", want: VolumeID{
			Content: ContentImages, File: "vm-100-disk-0.qcow2", VMID: 100, Format: "qcow2"}},
		{in: "local:100/base-100-disk-0.raw", want: VolumeID{
			Content: ContentImages, File: "base-100-disk-0.raw", VMID: 100, Format: "raw", IsBase: true}},
		{in: "btrfs:101/subvol-101-disk-0.subvol", want: VolumeID{
			Content: ContentImages, File: "subvol-101-disk-0.subvol", VMID: 101, Format: "subvol"}},
		{in: "local:100/my-disk.vmdk", want: VolumeID{Content: ContentImages, File: "my-disk.vmdk", VMID: 100, Format: "vmdk"}},
		{in: "local:100/base-100-disk-0.qcow2/101/vm-101-disk-0.qcow2", want: VolumeID{
			Content: ContentImages, File: "vm-101-disk-0.qcow2", VMID: 101, Format: "qcow2",
			BaseName: "base-100-disk-0.qcow2", BaseVMID: 100}},
		// Proxmox Backup Server: PBSPlugin.pm parse_volname.
		{in: "pbs:backup/vm/100/2025-01-31T10:00:00Z", want: VolumeID{
			Content: ContentBackup, File: "vm/100/2025-01-31T10:00:00Z", VMID: 100, Format: "pbs-vm"}},
		{in: "pbs:backup/host/pve1/2025-01-31T10:00:00Z", want: VolumeID{
			Content: ContentBackup, File: "host/pve1/2025-01-31T10:00:00Z", Format: "pbs-host"}},
		// Block storages: LVMPlugin.pm, LvmThinPlugin.pm, ZFSPoolPlugin.pm,
		// RBDPlugin.pm parse_volname.
		{in: "local-lvm:vm-100-disk-0", want: VolumeID{Content: ContentImages, File: "vm-100-disk-0", VMID: 100, Format: "raw"}},
		{in: "local-lvm:vm-100-cloudinit", want: VolumeID{Content: ContentImages, File: "vm-100-cloudinit", VMID: 100, Format: "raw"}},
		{in: "local-lvm:base-100-disk-0", want: VolumeID{
			Content: ContentImages, File: "base-100-disk-0", VMID: 100, Format: "raw", IsBase: true}},
		{in: "san:vm-100-disk-0.qcow2", want: VolumeID{Content: ContentImages, File: "vm-100-disk-0.qcow2", VMID: 100, Format: "qcow2"}},
		{in: "tank:subvol-101-disk-0", want: VolumeID{Content: ContentImages, File: "subvol-101-disk-0", VMID: 101, Format: "subvol"}},
		{in: "tank:basevol-101-disk-0", want: VolumeID{
			Content: ContentImages, File: "basevol-101-disk-0", VMID: 101, Format: "subvol", IsBase: true}},
		{in: "ceph:base-100-disk-0/vm-101-disk-0", want: VolumeID{
			Content: ContentImages, File: "vm-101-disk-0", VMID: 101, Format: "raw", BaseName: "base-100-disk-0", BaseVMID: 100}},
		// iSCSI: ISCSIPlugin.pm and ISCSIDirectPlugin.pm parse_volname.
		{in: "san:0.0.1.scsi-36001405aa8dbf5f9b8b4e5c9a8e6a1b2", want: VolumeID{
			Content: ContentImages, File: "scsi-36001405aa8dbf5f9b8b4e5c9a8e6a1b2", Format: "raw"}},
		{in: "direct:lun3", want: VolumeID{Content: ContentImages, File: "3", Format: "raw"}},
		// Well-formed ids whose names no built-in storage type reads: only
		// storage and name are known.
		{in: "local:iso/readme.txt"},
		{in: "local:100/snap-first-vm-100-disk-0.qcow2"},
		{in: "local:100/vm-100-disk-0.txt"},
		{in: "local:import/x.iso"},
		{in: "esxi:ha-datacenter/datastore1/vm/vm.vmx"},
		{in: "local:anything at all"},
		{in: "local-lvm:32"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseVolumeID(tt.in)
			if err != nil {
				t.Fatalf("ParseVolumeID(%q): %v", tt.in, err)
			}
			storage, name, _ := strings.Cut(tt.in, ":")
			want := tt.want
			want.Storage, want.Name = storage, name
			if got != want {
				t.Errorf("ParseVolumeID(%q)\n got %+v\nwant %+v", tt.in, got, want)
			}
			if got.String() != tt.in {
				t.Errorf("String() = %q, want %q", got.String(), tt.in)
			}
		})
	}
}

func TestParseVolumeIDRefuses(t *testing.T) {
	t.Parallel()
	// pve-storage src/PVE/Storage/Plugin.pm parse_volume_id: a storage id,
	// ":" and at least one character.
	for _, in := range []string{"", "local", "local:", ":iso/x.iso", "1local:x", "local-:x", "lo cal:x", "local:x\ny", "/dev/sdb", "none"} {
		if got, err := ParseVolumeID(in); err == nil {
			t.Errorf("ParseVolumeID(%q) = %+v, want an error", in, got)
		} else if want := "unable to parse volume ID '" + in + "'"; err.Error() != want {
			t.Errorf("ParseVolumeID(%q) error %q, want %q", in, err, want)
		}
	}
}

// FuzzParseVolumeID checks that parsing never panics, that a parsed id
// prints back as the input, and that the fields read from the name agree
// with each other.
func FuzzParseVolumeID(f *testing.F) {
	for _, s := range []string{
		"local:iso/x.iso", "local:100/vm-100-disk-0.qcow2", "local:1/base-1-a.raw/2/vm-2-b.raw",
		"pbs:backup/ct/101/2025-01-31T10:00:00Z", "ceph:base-100-disk-0/vm-101-disk-0",
		"local:99999999999999999999/vm-1-disk-0.raw", "local:backup/vzdump-qemu-99999999999999999999-x.vma",
		"x:lun0", "a1:0.0.0.x", "local:import/a.ova/b.raw", "local::", "local:\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseVolumeID(s)
		if err != nil {
			return
		}
		if v.String() != s {
			t.Fatalf("ParseVolumeID(%q).String() = %q", s, v.String())
		}
		if v.Content == "" && (v.File != "" || v.VMID != 0 || v.Format != "" || v.IsBase || v.BaseName != "" || v.BaseVMID != 0) {
			t.Fatalf("ParseVolumeID(%q) = %+v: fields of an unknown shape", s, v)
		}
		if v.Content != "" && (v.File == "" || v.Format == "") {
			t.Fatalf("ParseVolumeID(%q) = %+v: a known shape without file or format", s, v)
		}
		if v.VMID < 0 || v.BaseVMID < 0 || (v.BaseVMID != 0 && v.BaseName == "") {
			t.Fatalf("ParseVolumeID(%q) = %+v", s, v)
		}
		again, err := ParseVolumeID(v.String())
		if err != nil || again != v {
			t.Fatalf("reparse of %q: %+v, %v", s, again, err)
		}
	})
}
