package pvesim

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// Storage workers check as they start and fail there; what they make or
// remove shows when they end. The tasks here run a minute on a test clock.

// newStorageWorkerEnv is a simulator whose tasks take longTask.
func newStorageWorkerEnv(t *testing.T) (*env, *fakeClock) {
	t.Helper()
	clock := newFakeClock()
	return newEnv(t, Options{TaskDuration: longTask, Now: clock.Now}), clock
}

// pve-storage src/PVE/Storage.pm vdisk_free runs first in the imgdel
// worker (src/PVE/API2/Storage/Content.pm delete): a base volume still in
// use by linked clones fails the task as it starts; a volume that can go
// is gone when the task ends, which logs "Removed volume".
func TestImgdelChecksAtStartRemovesAtEnd(t *testing.T) {
	t.Parallel()
	e, clock := newStorageWorkerEnv(t)
	if err := e.sim.Update(func(c *Cluster) error {
		for _, v := range []*Volume{
			{VolID: "local-lvm:base-100-disk-0", Storage: "local-lvm", Node: "pve1", Content: "images", Format: "raw", Size: gib},
			{VolID: "local-lvm:vm-101-disk-0", Storage: "local-lvm", Node: "pve1", Content: "images", Format: "raw", Size: gib,
				Base: "local-lvm:base-100-disk-0"},
		} {
			if err := c.AddVolume(v); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	del := func(volid string) string {
		return upid(t, e.call(t, http.MethodDelete, "/nodes/pve1/storage/"+strings.Split(volid, ":")[0]+"/content/"+url.PathEscape(volid), nil))
	}
	e.wantTask(t, del("local-lvm:base-100-disk-0"), false, "base volume 'base-100-disk-0' is still in use by linked clones")
	iso := del("local:iso/debian-13-netinst.iso")
	e.wantTask(t, iso, true, "")
	if _, ok := volumeOn(e.sim, "pve1", "local:iso/debian-13-netinst.iso"); !ok {
		t.Fatal("the ISO went before the task ended")
	}
	clock.Advance(longTask)
	if info := e.wantTask(t, iso, false, "OK"); info.Log[0] != "Removed volume 'local:iso/debian-13-netinst.iso'" {
		t.Errorf("log %q", info.Log)
	}
	if _, ok := volumeOn(e.sim, "pve1", "local:iso/debian-13-netinst.iso"); ok {
		t.Error("the ISO is still there")
	}
	if _, ok := volumeOn(e.sim, "pve1", "local-lvm:base-100-disk-0"); !ok {
		t.Error("the base volume went")
	}
}

// pve-storage src/PVE/API2/Storage/Status.pm upload: the imgcopy worker
// checks the checksum before it copies, so a mismatch fails it as it
// starts.
func TestUploadChecksumFailsAtWorkerStart(t *testing.T) {
	t.Parallel()
	e, _ := newStorageWorkerEnv(t)
	id := upid(t, e.upload(t, "pve1", "local", field("content", "iso"),
		field("checksum-algorithm", "sha256"), field("checksum", strings.Repeat("0", 64)), filePart("seed.iso", []byte("seed"))))
	e.wantTask(t, id, false, "checksum mismatch: got '"+sha256Hex([]byte("seed"))+"' != expect '"+strings.Repeat("0", 64)+"'")
}

// pve-common src/PVE/Tools.pm download_file_from_url looks at the
// destination as the download worker starts (pve-storage
// src/PVE/API2/Storage/Status.pm download_url): an existing file without a
// checksum fails the task there.
func TestDownloadURLExistingFileFailsAtWorkerStart(t *testing.T) {
	t.Parallel()
	e, _ := newStorageWorkerEnv(t)
	id := upid(t, e.download(t, "pve1", "local", "content", "iso", "filename", "debian-13-netinst.iso",
		"url", "http://127.0.0.1:9/debian-13-netinst.iso"))
	e.wantTask(t, id, false, "refusing to override existing file '/var/lib/vz/template/iso/debian-13-netinst.iso'")
}

// pve-manager PVE/API2/Nodes.pm apl_download: download_file_from_url with
// the record's sha512sum looks at the existing file as the worker starts;
// one with another checksum fails the task there.
func TestAplDownloadExistingMismatchFailsAtWorkerStart(t *testing.T) {
	t.Parallel()
	e, _ := newStorageWorkerEnv(t)
	const template = "debian-13-standard_13.1-1_amd64.tar.zst"
	bad := strings.Repeat("0", 128)
	if err := e.sim.Update(func(c *Cluster) error {
		c.Volume("pve1", "local:vztmpl/"+template).Digests = map[string]string{"sha512": bad}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	id := upid(t, e.call(t, http.MethodPost, "/nodes/pve1/aplinfo", form("storage", "local", "template", template)))
	e.wantTask(t, id, false, "checksum mismatch: got '"+bad+"' != expect '"+applianceCatalog[template].fields["sha512sum"]+"', aborting")
}
