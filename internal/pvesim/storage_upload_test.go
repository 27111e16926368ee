package pvesim

import (
	"bytes"
	"crypto/md5" // #nosec G501 -- PVE's checksum algorithms include md5
	"encoding/hex"
	"net/http"
	"strings"
	"testing"
)

// W45: an upload is multipart, runs as a task, and overwrites a file of
// the same name without complaint.
func TestUploadStoresAndOverwritesW45(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	first := []byte("first seed iso")
	info := e.taskOK(t, e.upload(t, "pve1", "local", field("content", "iso"), filePart("seed.iso", first)))
	if info.Type != "imgcopy" || info.ID != "" {
		t.Errorf("task %s/%q, want imgcopy without id", info.Type, info.ID)
	}
	v, ok := volumeOn(e.sim, "pve1", "local:iso/seed.iso")
	if !ok || v.Size != int64(len(first)) || v.Digests["sha256"] != sha256Hex(first) || !bytes.Equal(v.Data, first) {
		t.Fatalf("volume %+v %v", v, ok)
	}
	second := []byte("the second, longer seed iso")
	e.taskOK(t, e.upload(t, "pve1", "local", field("content", "iso"),
		field("checksum-algorithm", "sha256"), field("checksum", sha256Hex(second)), filePart("seed.iso", second)))
	v, _ = volumeOn(e.sim, "pve1", "local:iso/seed.iso")
	if v.Size != int64(len(second)) || v.Digests["sha256"] != sha256Hex(second) {
		t.Errorf("W45: the second upload did not replace the file: %+v", v)
	}
}

// W45: a checksum that does not match fails the task; the file is not
// stored.
func TestUploadChecksumMismatchW45(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	data := []byte("template bytes")
	sum := md5.Sum(data) // #nosec G401 -- the algorithm under test
	e.taskFails(t, e.upload(t, "pve1", "local", field("content", "vztmpl"),
		field("checksum-algorithm", "md5"), field("checksum", strings.Repeat("f", 32)), filePart("ct.tar.gz", data)),
		"checksum mismatch: got '"+hex.EncodeToString(sum[:])+"' != expect '"+strings.Repeat("f", 32)+"'")
	if _, ok := volumeOn(e.sim, "pve1", "local:vztmpl/ct.tar.gz"); ok {
		t.Error("the file was stored")
	}
}

// W44/W45: the extension rules apply to uploads too, before any task.
func TestUploadWrongExtensionW45(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.upload(t, "pve1", "local", field("content", "iso"), filePart("seed.txt", []byte("x"))).
		wantParamError(t, "filename", "wrong file extension")
	e.upload(t, "pve1", "local", field("content", "import"), filePart("disk.img", []byte("x"))).
		wantParamError(t, "filename", "invalid filename or wrong extension")
	e.upload(t, "pve1", "local", field("content", "snippets"), filePart("user.yaml", []byte("x"))).
		wantStatus(t, http.StatusBadRequest, "Parameter verification failed.")
}

// The file name is PVE's normalised form of the file part's name.
func TestUploadNormalisesTheFileName(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.taskOK(t, e.upload(t, "pve1", "local", field("content", "import"), filePart("my disk.qcow2", qcow2Bytes(512))))
	if _, ok := volumeOn(e.sim, "pve1", "local:import/my_disk.qcow2"); !ok {
		t.Error("local:import/my_disk.qcow2 missing")
	}
	info := e.task(t, e.upload(t, "pve1", "local", field("content", "import"), filePart("plain.qcow2", []byte("plain"))))
	if !strings.HasSuffix(info.ExitStatus, "Image is not in qcow2 format") {
		t.Errorf("exit status %q", info.ExitStatus)
	}
}

func TestUploadStorageChecks(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.upload(t, "pve1", "local-lvm", field("content", "iso"), filePart("x.iso", []byte("x"))).
		wantStatus(t, http.StatusInternalServerError, "can't upload to storage type 'lvmthin'")
	if err := e.sim.Update(func(c *Cluster) error {
		c.Storage("shared-nfs").Content = []string{"images"}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	e.upload(t, "pve1", "shared-nfs", field("content", "iso"), filePart("x.iso", []byte("x"))).
		wantStatus(t, http.StatusInternalServerError, "storage 'shared-nfs' does not support 'iso' content")
}

// pveproxy's upload parser wants the text fields first, in its order, and
// the file last, as the part named "filename" (pve-http-server
// src/PVE/APIServer/AnyEvent.pm file_upload_multipart: its dies end in
// error(500, $err)).
func TestUploadBodyShape(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	data := []byte("x")
	for name, parts := range map[string][]multipartPart{
		"checksum before content": {field("checksum", sha256Hex(data)), field("content", "iso"), field("checksum-algorithm", "sha256"), filePart("x.iso", data)},
		"file not last":           {field("content", "iso"), filePart("x.iso", data), field("checksum", "abc")},
		"unknown field":           {field("content", "iso"), field("node", "pve1"), filePart("x.iso", data)},
		"no file":                 {field("content", "iso")},
	} {
		e.upload(t, "pve1", "local", parts...).wantStatus(t, http.StatusInternalServerError, "upload failed")
		if _, ok := volumeOn(e.sim, "pve1", "local:iso/x.iso"); ok {
			t.Fatalf("%s: the file was stored", name)
		}
	}
	e.upload(t, "pve1", "local", field("content", "iso"), multipartPart{name: "file", fileName: "x.iso", data: data}).
		wantStatus(t, http.StatusInternalServerError, "wrong field name 'file' for file upload, expected 'filename'")
	e.call(t, http.MethodPost, "/nodes/pve1/storage/local/upload", form("content", "iso", "filename", "x.iso")).
		wantStatus(t, http.StatusNotImplemented, "upload 'Content-Type 'application/x-www-form-urlencoded' not implemented")
}

// Only the upload escapes the 64 KiB form limit; its size is whatever the
// Content-Length says, and the bytes of a large file are not kept.
func TestUploadIsNotBoundByTheFormLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	big := bytes.Repeat([]byte("0123456789abcdef"), 64*1024) // 1 MiB
	e.taskOK(t, e.upload(t, "pve1", "local", field("content", "iso"), filePart("big.iso", big)))
	v, ok := volumeOn(e.sim, "pve1", "local:iso/big.iso")
	if !ok || v.Size != int64(len(big)) || v.Digests["sha256"] != sha256Hex(big) || v.Data != nil {
		t.Fatalf("volume size %d digest %s data %d bytes", v.Size, v.Digests["sha256"], len(v.Data))
	}
	e.call(t, http.MethodPost, "/pools", form("poolid", "p", "comment", string(big[:maxPostBytes]))).
		wantStatus(t, http.StatusNotImplemented, "for data too large")
}

// The storage privilege is checked before pveproxy reads the body.
func TestUploadNeedsAllocateTemplate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.sim.SetPrivileges(testTokenUser, "Datastore.AllocateSpace")
	e.upload(t, "pve1", "local", field("content", "iso"), filePart("x.iso", []byte("x"))).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/storage/local, Datastore.AllocateTemplate)")
}

// An uploaded image for import is usable by import-from (W25), and the
// new disk has the size the image's header gives, not the file's
// (qemu-server src/PVE/API2/Qemu.pm $import_from_volid through
// pve-storage volume_size_info, which reads qemu-img info's
// virtual-size).
func TestUploadedImageSeedsAVMDiskW25(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.taskOK(t, e.upload(t, "pve1", "local", field("content", "import"), filePart("cloud.qcow2", qcow2Image(8192, 2<<30))))
	e.createVM(t, "120", "scsi0", "local-lvm:0,import-from=local:import/cloud.qcow2")
	if cfg := e.vmConfig(t, "pve1", "120"); cfg["scsi0"] != "local-lvm:vm-120-disk-0,size=2G" {
		t.Errorf("scsi0 = %q, want the image's virtual 2G", cfg["scsi0"])
	}
	// The disk cannot be shrunk below the image afterwards.
	e.taskFails(t, e.resize(t, "120", "scsi0", "1G"), "shrinking disks is not supported")
}

// Upload is not proxied to the node: an unknown node fails in the handler,
// when it looks up the node's address (pve-cluster src/PVE/Cluster.pm
// remote_node_ip, then pve-common src/PVE/Network.pm get_ip_from_hostname).
func TestUploadToUnknownNode(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.upload(t, "pve9", "local", field("content", "iso"), filePart("x.iso", []byte("x"))).
		wantStatus(t, http.StatusInternalServerError,
			"hostname lookup 'pve9' failed - failed to get address info for: pve9: Name or service not known")
}
