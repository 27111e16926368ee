package wire

import (
	"strings"
	"testing"
)

func TestParseReplicationJobID(t *testing.T) {
	t.Parallel()
	for id, want := range map[string][2]int{"100-0": {100, 0}, "123456789-42": {123456789, 42}} {
		vmid, jobnum, err := ParseReplicationJobID(id)
		if err != nil || vmid != want[0] || jobnum != want[1] {
			t.Errorf("%s: %d %d %v", id, vmid, jobnum, err)
		}
	}
	// pve-guest-common parse_replication_job_id and the schema's pattern
	// refuse guest ids below 100; "100-01" is stored by PVE as "100-1".
	for _, id := range []string{"99-0", "100", "100-", "-1", "100-01", "0100-1", "100-0 ", "abc-1", "1000000000-0"} {
		if _, _, err := ParseReplicationJobID(id); err == nil {
			t.Errorf("%q accepted", id)
		}
	}
	if got := ReplicationJobID(100, 3); got != "100-3" {
		t.Errorf("ReplicationJobID = %q", got)
	}
}

func TestReplicationVolumesProblem(t *testing.T) {
	t.Parallel()
	storages := map[string]ReplicationStorage{
		"local-zfs":  {Type: "zfspool"},
		"local-lvm":  {Type: "lvmthin"},
		"local":      {Type: "dir"},
		"shared-nfs": {Type: "nfs", Shared: true},
	}
	for _, tc := range []struct {
		name      string
		container bool
		config    map[string]string
		slot      string // "" with ok: no problem; "-" no volume
		ok        bool
	}{
		{"zfs disk", false, map[string]string{"scsi0": "local-zfs:vm-100-disk-0,size=4G"}, "", true},
		{"lvm disk", false, map[string]string{"scsi0": "local-zfs:vm-100-disk-0", "scsi1": "local-lvm:vm-100-disk-1"}, "scsi1", true},
		{"lvm disk excluded", false, map[string]string{"scsi0": "local-zfs:vm-100-disk-0", "scsi1": "local-lvm:vm-100-disk-1,replicate=0"}, "", true},
		{"cdrom skipped", false, map[string]string{"scsi0": "local-zfs:vm-100-disk-0", "ide2": "local:iso/x.iso,media=cdrom"}, "", true},
		{"cloud-init cdrom skipped", false, map[string]string{"scsi0": "local-zfs:vm-100-disk-0", "ide2": "local-lvm:vm-100-cloudinit,media=cdrom"}, "", true},
		{"unused lvm", false, map[string]string{"scsi0": "local-zfs:vm-100-disk-0", "unused0": "local-lvm:vm-100-disk-3"}, "unused0", true},
		{"only shared", false, map[string]string{"scsi0": "shared-nfs:100/vm-100-disk-0.qcow2"}, "-", true},
		{"other guest's base", false, map[string]string{"scsi0": "local-lvm:base-900-disk-0/vm-100-disk-0"}, "scsi0", true},
		{"unknown storage", false, map[string]string{"scsi0": "tank:vm-100-disk-0"}, "", false},
		{"unknown but refused", false, map[string]string{"scsi0": "tank:vm-100-disk-0", "scsi1": "local-lvm:vm-100-disk-1"}, "scsi1", true},
		{"no disks", false, map[string]string{"memory": "512"}, "-", true},
		{"ct rootfs zfs", true, map[string]string{"rootfs": "local-zfs:subvol-101-disk-0,size=8G"}, "", true},
		{"ct mp lvm", true, map[string]string{"rootfs": "local-zfs:subvol-101-disk-0", "mp0": "local-lvm:vm-101-disk-1,mp=/data"}, "mp0", true},
		{"ct bind mount", true, map[string]string{"rootfs": "local-zfs:subvol-101-disk-0", "mp0": "/srv,mp=/srv"}, "mp0", true},
		{"ct bind mount excluded", true, map[string]string{"rootfs": "local-zfs:subvol-101-disk-0", "mp0": "/srv,mp=/srv,replicate=0"}, "", true},
	} {
		vmid := 100
		if tc.container {
			vmid = 101
		}
		p, ok := ReplicationVolumesProblem(tc.container, vmid, tc.config, storages)
		switch {
		case ok != tc.ok:
			t.Errorf("%s: ok = %v", tc.name, ok)
		case tc.slot == "" && p != nil:
			t.Errorf("%s: problem %+v", tc.name, p)
		case tc.slot == "-" && (p == nil || p.Slot != "" || !strings.Contains(p.Text, "no disk")):
			t.Errorf("%s: problem %+v", tc.name, p)
		case tc.slot != "" && tc.slot != "-" && (p == nil || p.Slot != tc.slot):
			t.Errorf("%s: problem %+v, want slot %s", tc.name, p, tc.slot)
		}
	}
}
