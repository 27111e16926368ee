package pvesim

import (
	"net/http"
	"testing"
)

type volumeAnswer struct {
	VolID   string `json:"volid"`
	Content string `json:"content"`
	Format  string `json:"format"`
	Size    int64  `json:"size"`
	CTime   any    `json:"ctime"` // a number, or a string on LVM
	VMID    int    `json:"vmid"`
}

// positiveNumber tells a JSON number above 0 (a file storage's ctime).
func positiveNumber(v any) bool {
	f, ok := v.(float64)
	return ok && f > 0
}

func TestStorageContentListsSeedFiles(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	var vols []volumeAnswer
	e.call(t, http.MethodGet, "/nodes/pve2/storage/local/content", nil).decode(t, &vols)
	want := []struct{ volid, content, format string }{
		{SeedLXCBackup, "backup", "tar.zst"},
		{SeedQemuBackup, "backup", "vma.zst"},
		{"local:import/debian-13-genericcloud-amd64.qcow2", "import", "qcow2"},
		{"local:iso/debian-13-netinst.iso", "iso", "iso"},
		{"local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst", "vztmpl", "tzst"},
	}
	if len(vols) != len(want) {
		t.Fatalf("volumes = %+v", vols)
	}
	for i, w := range want {
		v := vols[i]
		if v.VolID != w.volid || v.Content != w.content || v.Format != w.format || v.Size <= 0 || !positiveNumber(v.CTime) || v.VMID != 0 && v.Content != "backup" {
			t.Errorf("volume %d = %+v, want %v", i, v, w)
		}
	}
	e.call(t, http.MethodGet, "/nodes/pve1/storage/local/content", form("content", "iso")).decode(t, &vols)
	if len(vols) != 1 || vols[0].VolID != "local:iso/debian-13-netinst.iso" {
		t.Errorf("iso filter = %+v", vols)
	}
	e.call(t, http.MethodGet, "/nodes/pve1/storage/shared-nfs/content", nil).decode(t, &vols)
	if len(vols) != 0 {
		t.Errorf("shared-nfs = %+v", vols)
	}
}

// Volumes have identity per storage instance: a file on one node's local
// storage is not on the others, one on shared storage is seen everywhere.
func TestVolumeIdentity(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	err := e.sim.Update(func(c *Cluster) error {
		if err := c.AddVolume(&Volume{VolID: "local-lvm:vm-100-disk-0", Storage: "local-lvm", Node: "pve1",
			Content: "images", Format: "raw", Size: 32 * gib, Owner: 100}); err != nil {
			return err
		}
		return c.AddVolume(&Volume{VolID: "shared-nfs:iso/tools.iso", Storage: "shared-nfs", Node: "pve3",
			Content: "iso", Format: "iso", Size: 10 * mib})
	})
	if err != nil {
		t.Fatal(err)
	}
	var vols []volumeAnswer
	e.call(t, http.MethodGet, "/nodes/pve1/storage/local-lvm/content", form("vmid", "100")).decode(t, &vols)
	if len(vols) != 1 || vols[0].VMID != 100 || vols[0].Size != 32*gib {
		t.Fatalf("pve1 local-lvm = %+v", vols)
	}
	e.call(t, http.MethodGet, "/nodes/pve2/storage/local-lvm/content", nil).decode(t, &vols)
	if len(vols) != 0 {
		t.Fatalf("pve2 local-lvm = %+v", vols)
	}
	e.call(t, http.MethodGet, "/nodes/pve2/storage/shared-nfs/content", nil).decode(t, &vols)
	if len(vols) != 1 || vols[0].VolID != "shared-nfs:iso/tools.iso" {
		t.Fatalf("pve2 shared-nfs = %+v", vols)
	}
	if got := len(e.sim.Volumes("local")); got != 3*seedLocalVolumes {
		t.Errorf("local volumes across nodes = %d", got)
	}
}

func TestStorageErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodGet, "/nodes/pve1/storage/nope/content", nil).
		wantStatus(t, http.StatusInternalServerError, "storage 'nope' does not exist")
	e.call(t, http.MethodGet, "/storage/nope", nil).
		wantStatus(t, http.StatusInternalServerError, "storage 'nope' does not exist")
	a := e.call(t, http.MethodGet, "/nodes/pve1/storage/nope/status", nil)
	a.wantStatus(t, http.StatusBadRequest, "Parameter verification failed.")
	if a.errors["storage"] != "No such storage." {
		t.Errorf("errors = %v", a.errors)
	}
	if err := e.sim.Update(func(c *Cluster) error {
		c.Storage("local-lvm").Nodes = []string{"pve1"}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	e.call(t, http.MethodGet, "/nodes/pve2/storage/local-lvm/content", nil).
		wantStatus(t, http.StatusInternalServerError, "storage 'local-lvm' is not available on node 'pve2'")
	var list []map[string]any
	e.call(t, http.MethodGet, "/nodes/pve2/storage", form("enabled", "1")).decode(t, &list)
	if len(list) != 2 {
		t.Errorf("enabled storages on pve2 = %v", list)
	}
}

func TestStorageIndexAndConfig(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	var list []map[string]any
	e.call(t, http.MethodGet, "/nodes/pve1/storage", nil).decode(t, &list)
	if len(list) != 3 {
		t.Fatalf("storages = %v", list)
	}
	local := list[0]
	if local["storage"] != "local" || local["active"] != float64(1) || local["enabled"] != float64(1) ||
		local["total"] != float64(100*gib) || local["used"] != float64((754+126+332)*mib+seedBackupBytes) ||
		local["avail"] != float64(100*gib-(754+126+332)*mib-seedBackupBytes) || local["used_fraction"] == nil {
		t.Errorf("local = %v", local)
	}
	e.call(t, http.MethodGet, "/nodes/pve1/storage", form("content", "images")).decode(t, &list)
	if len(list) != 2 || list[0]["storage"] != "local-lvm" || list[1]["storage"] != "shared-nfs" {
		t.Errorf("images storages = %v", list)
	}
	var st map[string]any
	e.call(t, http.MethodGet, "/nodes/pve3/storage/shared-nfs/status", nil).decode(t, &st)
	if st["shared"] != float64(1) || st["type"] != "nfs" || st["total"] != float64(2*tib) {
		t.Errorf("status = %v", st)
	}
	e.call(t, http.MethodGet, "/storage", nil).decode(t, &list)
	if len(list) != 3 || list[2]["shared"] != float64(1) || list[1]["content"] != "images,rootdir" {
		t.Errorf("storage config = %v", list)
	}
	var cfg map[string]any
	e.call(t, http.MethodGet, "/storage/local", nil).decode(t, &cfg)
	if cfg["type"] != "dir" || cfg["path"] != "/var/lib/vz" || cfg["digest"] == nil {
		t.Errorf("local config = %v", cfg)
	}
}

// The content listing's ctime is a number on a file storage and a string
// on LVM-thin, where it is the text of the lvs "time" column that the
// index passes on without int() (pve-storage src/PVE/API2/Storage/Content.pm
// index, src/PVE/Storage/LVMPlugin.pm lvm_list_volumes).
func TestContentCTimeTypedAsPVE(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "scsi0", "local-lvm:4", "scsi1", "shared-nfs:1")
	for storage, wantString := range map[string]bool{"local-lvm": true, "shared-nfs": false, "local": false} {
		var items []map[string]any
		e.call(t, http.MethodGet, "/nodes/pve1/storage/"+storage+"/content", nil).decode(t, &items)
		if len(items) == 0 {
			t.Fatalf("%s lists nothing", storage)
		}
		for _, it := range items {
			_, isString := it["ctime"].(string)
			_, isNumber := it["ctime"].(float64)
			if isString != wantString || isNumber == wantString {
				t.Errorf("%s: ctime %#v (want string: %v)", storage, it["ctime"], wantString)
			}
			if _, ok := it["size"].(float64); !ok {
				t.Errorf("%s: size %#v is no number", storage, it["size"])
			}
		}
	}
}
