package pvesim

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
)

// fileServer serves fixed files over loopback and counts the requests per
// path, standing in for the internet download-url fetches from.
type fileServer struct {
	srv  *httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func newFileServer(t *testing.T, tls bool, files map[string][]byte) *fileServer {
	t.Helper()
	fs := &fileServer{hits: map[string]int{}}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fs.mu.Lock()
		fs.hits[r.URL.Path]++
		fs.mu.Unlock()
		if target, ok := strings.CutPrefix(r.URL.Path, "/redirect/"); ok {
			http.Redirect(w, r, "http://"+target, http.StatusFound)
			return
		}
		data, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(data)
	})
	if tls {
		fs.srv = httptest.NewTLSServer(h)
	} else {
		fs.srv = httptest.NewServer(h)
	}
	t.Cleanup(fs.srv.Close)
	return fs
}

func (fs *fileServer) url(path string) string { return fs.srv.URL + path }

func (fs *fileServer) count(path string) int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.hits[path]
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// qcow2Bytes is a small file with qcow2's magic, enough for the format
// check the simulator applies to images for import.
func qcow2Bytes(n int) []byte {
	b := bytes.Repeat([]byte{0x5a}, n)
	copy(b, "QFI\xfb")
	return b
}

// qcow2Image is a file of n bytes that starts with a qcow2 version 3
// header for a disk of virtual bytes.
func qcow2Image(n int, virtual uint64) []byte {
	b := make([]byte, n)
	copy(b, "QFI\xfb")
	binary.BigEndian.PutUint32(b[4:8], 3)
	binary.BigEndian.PutUint64(b[24:32], virtual)
	return b
}

// volumeOn returns the volume with that volid as node sees it.
func volumeOn(s *Sim, node, volid string) (Volume, bool) {
	var out Volume
	var ok bool
	s.View(func(c *Cluster) {
		if v := c.Volume(node, volid); v != nil {
			out, ok = *v, true
		}
	})
	return out, ok
}

// multipartPart is one part of an upload body, in the order given.
type multipartPart struct {
	name, fileName string
	data           []byte
}

// uploadBody builds a multipart body with the parts in order.
func uploadBody(t *testing.T, parts ...multipartPart) (*bytes.Buffer, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, p := range parts {
		var w interface{ Write([]byte) (int, error) }
		var err error
		if p.fileName != "" {
			w, err = mw.CreateFormFile(p.name, p.fileName)
		} else {
			w, err = mw.CreateFormField(p.name)
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(p.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return &buf, mw.FormDataContentType()
}

// upload posts a multipart body to .../upload.
func (e *env) upload(t *testing.T, node, storage string, parts ...multipartPart) *answer {
	t.Helper()
	body, ctype := uploadBody(t, parts...)
	req, err := http.NewRequest(http.MethodPost, e.srv.URL+apiPrefix+"/nodes/"+node+"/storage/"+storage+"/upload", body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", ctype)
	e.auth(req)
	return e.send(t, req)
}

func field(name, value string) multipartPart { return multipartPart{name: name, data: []byte(value)} }

func filePart(fileName string, data []byte) multipartPart {
	return multipartPart{name: "filename", fileName: fileName, data: data}
}

// W46: deleting a volume is a task; a volume that is already gone only
// warns, so the task still succeeds. The warning is a plain Perl warn
// (pve-storage src/PVE/Storage/Plugin.pm free_image), not log_warn, so it
// is not counted: the task ends OK (pve-common src/PVE/RESTEnvironment.pm
// fork_worker counts only log_warn).
func TestDeleteVolumeIsATaskAndGoneIsSuccessW46(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	path := "/nodes/pve1/storage/local/content/" + url.PathEscape("local:iso/debian-13-netinst.iso")
	info := e.taskOK(t, e.call(t, http.MethodDelete, path, nil))
	if info.Type != "imgdel" || info.ID != "local" {
		t.Errorf("task %s/%s, want imgdel/local", info.Type, info.ID)
	}
	if _, ok := volumeOn(e.sim, "pve1", "local:iso/debian-13-netinst.iso"); ok {
		t.Fatal("the ISO is still there")
	}
	if _, ok := volumeOn(e.sim, "pve2", "local:iso/debian-13-netinst.iso"); !ok {
		t.Error("pve2's local storage lost its own copy")
	}
	again := e.task(t, e.call(t, http.MethodDelete, path, nil))
	if again.ExitStatus != "OK" {
		t.Fatalf("second delete ended %q, want OK (log %q)", again.ExitStatus, again.Log)
	}
	if !slices.Contains(again.Log, "disk image '/var/lib/vz/template/iso/debian-13-netinst.iso' does not exist") {
		t.Errorf("log %q", again.Log)
	}
}

// W46: the volume id may come path-escaped or with a bare '/', and may
// leave out the storage the path already names.
func TestDeleteVolumeIDFormsW46(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.taskOK(t, e.call(t, http.MethodDelete, "/nodes/pve1/storage/local/content/local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst", nil))
	e.taskOK(t, e.call(t, http.MethodDelete, "/nodes/pve1/storage/local/content/"+url.PathEscape("import/debian-13-genericcloud-amd64.qcow2"), nil))
	for _, volid := range []string{"local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst", "local:import/debian-13-genericcloud-amd64.qcow2"} {
		if _, ok := volumeOn(e.sim, "pve1", volid); ok {
			t.Errorf("%s is still there", volid)
		}
	}
	e.call(t, http.MethodDelete, "/nodes/pve1/storage/shared-nfs/content/"+url.PathEscape("local:iso/debian-13-netinst.iso"), nil).
		wantParamError(t, "volume", "storage ID mismatch (local != shared-nfs)\n")
	e.call(t, http.MethodDelete, "/nodes/pve1/storage/local/content/"+url.PathEscape("local:nowhere/x"), nil).
		wantStatus(t, http.StatusInternalServerError, "unable to parse directory volume name 'nowhere/x'")
}

// PVE does not look at guest configurations when it deletes a volume: an
// ISO still in a VM's CD-ROM drive goes all the same (W46).
func TestDeleteVolumeInUseByAGuestW46(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	if err := e.sim.AddGuest(Guest{VMID: 100, Node: "pve1", Type: QEMU, Config: map[string]string{
		"name": "uses-iso", "ide2": "local:iso/debian-13-netinst.iso,media=cdrom",
	}}); err != nil {
		t.Fatal(err)
	}
	e.taskOK(t, e.call(t, http.MethodDelete, "/nodes/pve1/storage/local/content/"+url.PathEscape("local:iso/debian-13-netinst.iso"), nil))
	if _, ok := volumeOn(e.sim, "pve1", "local:iso/debian-13-netinst.iso"); ok {
		t.Error("the ISO is still there")
	}
}

func TestDeleteVolumeWithDelayAnswersNull(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	a := e.call(t, http.MethodDelete, "/nodes/pve1/storage/local/content/"+url.PathEscape("local:iso/debian-13-netinst.iso"), form("delay", "5"))
	a.wantOK(t)
	if string(a.data) != "null" {
		t.Errorf("data = %s, want null", a.data)
	}
}

func TestDeleteVolumeNeedsDatastoreAllocate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.sim.SetPrivileges(testTokenUser, "Datastore.AllocateSpace", "Datastore.Audit")
	e.call(t, http.MethodDelete, "/nodes/pve1/storage/local/content/"+url.PathEscape("local:iso/debian-13-netinst.iso"), nil).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/storage/local, Datastore.Allocate)")
}

func TestVolumeInfo(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	var info struct {
		Path   string `json:"path"`
		Size   int64  `json:"size"`
		Format string `json:"format"`
	}
	e.call(t, http.MethodGet, "/nodes/pve1/storage/local/content/"+url.PathEscape("local:iso/debian-13-netinst.iso"), nil).decode(t, &info)
	if info.Path != "/var/lib/vz/template/iso/debian-13-netinst.iso" || info.Size != 754*mib || info.Format != "iso" {
		t.Errorf("info = %+v", info)
	}
	e.call(t, http.MethodGet, "/nodes/pve1/storage/local/content/"+url.PathEscape("local:iso/gone.iso"), nil).
		wantStatus(t, http.StatusInternalServerError, "volume_size_info on 'local:iso/gone.iso' failed - no format")
}

// W44: the file name rules per content type, after PVE's normalisation.
func TestTemplateNameRulesW44(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		content, in, want, err string
	}{
		{"iso", "debian.iso", "debian.iso", ""},
		{"iso", "DEBIAN.ISO", "DEBIAN.ISO", ""},
		{"iso", "disk.img", "disk.img", ""},
		{"iso", "my disk (1).iso", "my_disk__1_.iso", ""},
		{"iso", "../../etc/x.iso", "x.iso", ""},
		{"iso", `C:\images\x.iso`, "x.iso", ""},
		{"iso", "debian.qcow2", "", "wrong file extension"},
		{"iso", ".iso", "", "wrong file extension"},
		{"vztmpl", "debian.tar.zst", "debian.tar.zst", ""},
		{"vztmpl", "debian.tar.gz", "debian.tar.gz", ""},
		{"vztmpl", "debian.tar.xz", "debian.tar.xz", ""},
		{"vztmpl", "debian.tar.bz2", "debian.tar.bz2", ""},
		{"vztmpl", "alpine-oci.tar", "alpine-oci.tar", ""},
		{"vztmpl", "debian.tgz", "", "wrong file extension"},
		{"vztmpl", "debian.iso", "", "wrong file extension"},
		{"import", "cloud.qcow2", "cloud.qcow2", ""},
		{"import", "cloud.raw", "cloud.raw", ""},
		{"import", "cloud.vmdk", "cloud.vmdk", ""},
		{"import", "appliance.ova", "appliance.ova", ""},
		{"import", "cloud.img", "", "invalid filename or wrong extension"},
		{"import", "cloud.QCOW2", "", "invalid filename or wrong extension"},
		{"import", "cloud.ovf", "", "invalid filename or wrong extension"},
	} {
		got, err := checkTemplateName(tc.content, tc.in)
		if tc.err == "" {
			if err != nil || got != tc.want {
				t.Errorf("%s %q: %q %v, want %q", tc.content, tc.in, got, err, tc.want)
			}
			continue
		}
		ae := asAPIError(err)
		if err == nil || ae.status != http.StatusBadRequest || ae.params["filename"] != tc.err {
			t.Errorf("%s %q: %v, want 400 filename: %s", tc.content, tc.in, err, tc.err)
		}
	}
}
