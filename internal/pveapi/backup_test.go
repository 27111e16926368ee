package pveapi

import (
	"context"
	"net/http"
	"testing"
)

// W40: ExtractConfig asks the node for the archive's config and parses the
// config file text: description from the comment lines, vzdump's map
// lines and any snapshot section left out.
func TestW40ExtractConfig(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	const volid = "local:backup/vzdump-qemu-120-2026_11_01-00_00_00.vma.zst"
	f.handle("GET /nodes/pve2/vzdump/extractconfig", func(w http.ResponseWriter, r *http.Request) {
		if got := r.URL.Query().Get("volume"); got != volid {
			t.Errorf("volume = %q", got)
		}
		writeData(w, "#web server\n#second line %25 done\nboot: order=scsi0\nscsi0: local-lvm:vm-120-disk-0,size=16G\n"+
			"net0: virtio=BC:24:11:5E:12:00,bridge=vmbr0\n#qmdump#map:scsi0:drive-scsi0:local-lvm:raw:\n"+
			"\n[snap1]\ncores: 8\n")
	})
	config, err := f.client().ExtractConfig(context.Background(), "pve2", volid)
	if err != nil {
		t.Fatal(err)
	}
	want := GuestConfig{
		"description": "web server\nsecond line % done", "boot": "order=scsi0",
		"scsi0": "local-lvm:vm-120-disk-0,size=16G", "net0": "virtio=BC:24:11:5E:12:00,bridge=vmbr0",
	}
	if len(config) != len(want) {
		t.Errorf("config = %q", config)
	}
	for k, v := range want {
		if config[k] != v {
			t.Errorf("%s = %q, want %q", k, config[k], v)
		}
	}
}

// W4: PVE's refusal of a missing archive reaches the caller as an API
// error.
func TestW40ExtractConfigMissingArchive(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	f.handle("GET /nodes/pve1/vzdump/extractconfig", func(w http.ResponseWriter, _ *http.Request) {
		writePVEError(w, http.StatusInternalServerError, "can't find file 'local:backup/vzdump-lxc-1-x.tar'")
	})
	_, err := f.client().ExtractConfig(context.Background(), "pve1", "local:backup/vzdump-lxc-1-x.tar")
	apiErr, ok := AsError(err)
	if !ok || apiErr.StatusCode != 500 || apiErr.Message != "can't find file 'local:backup/vzdump-lxc-1-x.tar'" {
		t.Fatalf("err = %v", err)
	}
}

func TestBackupArchive(t *testing.T) {
	t.Parallel()
	for volid, want := range map[string]struct {
		typ  string
		vmid int
		ok   bool
	}{
		"local:backup/vzdump-qemu-120-2026_11_01-00_00_00.vma.zst": {GuestTypeQemu, 120, true},
		"nfs:backup/vzdump-lxc-130-2026_11_01-00_00_00.tar.zst":    {GuestTypeLXC, 130, true},
		"local:backup/vzdump-openvz-7-x.tgz":                       {GuestTypeLXC, 7, true},
		"local:backup/vzdump-qemu-120-x.tar.zst":                   {},
		"local:backup/vzdump-lxc-130-x.vma":                        {},
		"local:iso/vzdump-qemu-120-x.vma":                          {},
		"local:backup/other.vma.zst":                               {},
		"vzdump-qemu-120-x.vma":                                    {},
	} {
		typ, vmid, ok := BackupArchive(volid)
		if typ != want.typ || vmid != want.vmid || ok != want.ok {
			t.Errorf("BackupArchive(%q) = %q, %d, %v; want %+v", volid, typ, vmid, ok, want)
		}
	}
}
