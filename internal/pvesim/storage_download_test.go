package pvesim

import (
	"net/http"
	"strings"
	"testing"
)

func (e *env) download(t *testing.T, node, storage string, kv ...string) *answer {
	t.Helper()
	return e.call(t, http.MethodPost, "/nodes/"+node+"/storage/"+storage+"/download-url", form(kv...))
}

// W44: download-url is a task that fetches the file, checks the checksum
// given as checksum and checksum-algorithm, and stores it.
func TestDownloadURLWithGoodChecksumW44(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	iso := []byte("bootable bytes of a small ISO")
	fs := newFileServer(t, false, map[string][]byte{"/seed.iso": iso})

	info := e.taskOK(t, e.download(t, "pve2", "local", "content", "iso", "filename", "seed.iso",
		"url", fs.url("/seed.iso"), "checksum", strings.ToUpper(sha256Hex(iso)), "checksum-algorithm", "sha256"))
	if info.Type != "download" || info.ID != "seed.iso" || info.Node != "pve2" {
		t.Errorf("task %s/%s on %s", info.Type, info.ID, info.Node)
	}
	if !strings.Contains(strings.Join(info.Log, "\n"), "OK, checksum verified") {
		t.Errorf("log %q", info.Log)
	}
	v, ok := volumeOn(e.sim, "pve2", "local:iso/seed.iso")
	if !ok || v.Size != int64(len(iso)) || v.Format != "iso" || v.Content != "iso" || v.Digests["sha256"] != sha256Hex(iso) || string(v.Data) != string(iso) {
		t.Fatalf("volume %+v %v", v, ok)
	}
	if _, ok := volumeOn(e.sim, "pve1", "local:iso/seed.iso"); ok {
		t.Error("a node-local download shows on another node")
	}
	var vols []volumeAnswer
	e.call(t, http.MethodGet, "/nodes/pve2/storage/local/content", form("content", "iso")).decode(t, &vols)
	if len(vols) != 2 || vols[1].VolID != "local:iso/seed.iso" || vols[1].Size != int64(len(iso)) {
		t.Errorf("listing %+v", vols)
	}
}

// W44: a checksum mismatch fails the task and leaves no file.
func TestDownloadURLWithBadChecksumLeavesNoFileW44(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	tmpl := []byte("a container template")
	fs := newFileServer(t, false, map[string][]byte{"/ct.tar.zst": tmpl})
	e.taskFails(t, e.download(t, "pve1", "shared-nfs", "content", "vztmpl", "filename", "ct.tar.zst",
		"url", fs.url("/ct.tar.zst"), "checksum", strings.Repeat("0", 64), "checksum-algorithm", "sha256"),
		"checksum mismatch: got '"+sha256Hex(tmpl)+"' != expect '"+strings.Repeat("0", 64)+"'")
	if _, ok := volumeOn(e.sim, "pve1", "shared-nfs:vztmpl/ct.tar.zst"); ok {
		t.Error("a file with the wrong checksum was kept")
	}
}

// W44: the checksum parameters come in pairs and with PVE's algorithms.
func TestDownloadURLChecksumParametersW44(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.download(t, "pve1", "local", "content", "iso", "filename", "a.iso", "url", "http://127.0.0.1/a.iso", "checksum", "abc").
		wantStatus(t, http.StatusBadRequest, "Parameter verification failed.")
	e.download(t, "pve1", "local", "content", "iso", "filename", "a.iso", "url", "http://127.0.0.1/a.iso",
		"checksum", "abc", "checksum-algorithm", "crc32").
		wantStatus(t, http.StatusBadRequest, "Parameter verification failed.")
	e.download(t, "pve1", "local", "content", "iso", "filename", "a.iso", "url", "ftp://127.0.0.1/a.iso").
		wantStatus(t, http.StatusBadRequest, "Parameter verification failed.")
}

// W44: the extension must fit the content type, checked before any task.
func TestDownloadURLWrongExtensionW44(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	u := "http://127.0.0.1:1/x"
	e.download(t, "pve1", "local", "content", "iso", "filename", "cloud.qcow2", "url", u).
		wantParamError(t, "filename", "wrong file extension")
	e.download(t, "pve1", "local", "content", "vztmpl", "filename", "ct.zip", "url", u).
		wantParamError(t, "filename", "wrong file extension")
	e.download(t, "pve1", "local", "content", "import", "filename", "cloud.img", "url", u).
		wantParamError(t, "filename", "invalid filename or wrong extension")
}

func TestDownloadURLStorageMustTakeTheContent(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	u := "http://127.0.0.1:1/x.iso"
	e.download(t, "pve1", "local-lvm", "content", "iso", "filename", "x.iso", "url", u).
		wantStatus(t, http.StatusInternalServerError, "can't upload to storage type 'lvmthin', not a file based storage!")
	if err := e.sim.Update(func(c *Cluster) error {
		c.Storage("local").Content = []string{"images"}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	e.download(t, "pve1", "local", "content", "iso", "filename", "x.iso", "url", u).
		wantStatus(t, http.StatusInternalServerError, "storage 'local' is not configured for content-type 'iso'")
	e.download(t, "pve1", "nope", "content", "iso", "filename", "x.iso", "url", u).
		wantStatus(t, http.StatusInternalServerError, "storage 'nope' does not exist")
}

// The simulator reaches only the local host: any other address fails the
// task, and so does a redirect away from loopback.
func TestDownloadURLFetchesOnlyFromLoopback(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	info := e.taskFails(t, e.download(t, "pve1", "local", "content", "iso", "filename", "remote.iso", "url", "http://192.0.2.7/remote.iso"),
		"download failed: command 'wget --progress=dot:giga -O /var/lib/vz/template/iso/remote.iso.tmp."+itoa(pidOf(t, e, "remote.iso"))+" http://192.0.2.7/remote.iso' failed: exit code 4")
	if !strings.Contains(strings.Join(info.Log, "\n"), "loopback") {
		t.Errorf("log does not say why: %q", info.Log)
	}
	fs := newFileServer(t, false, nil)
	e.task(t, e.download(t, "pve1", "local", "content", "iso", "filename", "hop.iso", "url", fs.url("/redirect/192.0.2.7/hop.iso")))
	if fs.count("/redirect/192.0.2.7/hop.iso") != 1 {
		t.Error("the loopback server was not asked")
	}
	for _, name := range []string{"remote.iso", "hop.iso"} {
		if _, ok := volumeOn(e.sim, "pve1", "local:iso/"+name); ok {
			t.Errorf("%s was stored", name)
		}
	}
}

// pidOf finds the PID of the download task for name.
func pidOf(t *testing.T, e *env, name string) int {
	t.Helper()
	pid := 0
	e.sim.View(func(c *Cluster) {
		for _, task := range c.tasks {
			if task.Type == "download" && task.ID == name {
				pid = task.PID
			}
		}
	})
	return pid
}

func TestDownloadURLErrorAnswerFails(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	fs := newFileServer(t, false, nil)
	info := e.task(t, e.download(t, "pve1", "local", "content", "iso", "filename", "missing.iso", "url", fs.url("/missing.iso")))
	if !strings.HasSuffix(info.ExitStatus, "failed: exit code 8") {
		t.Errorf("exit status %q", info.ExitStatus)
	}
}

// verify-certificates defaults to 1: an untrusted certificate fails the
// task; with 0 the download goes through.
func TestDownloadURLVerifyCertificates(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	data := []byte("iso over https")
	fs := newFileServer(t, true, map[string][]byte{"/s.iso": data})
	info := e.task(t, e.download(t, "pve1", "local", "content", "iso", "filename", "s.iso", "url", fs.url("/s.iso")))
	if !strings.HasSuffix(info.ExitStatus, "failed: exit code 5") {
		t.Errorf("exit status %q", info.ExitStatus)
	}
	e.taskOK(t, e.download(t, "pve1", "local", "content", "iso", "filename", "s.iso", "url", fs.url("/s.iso"), "verify-certificates", "0"))
	if v, ok := volumeOn(e.sim, "pve1", "local:iso/s.iso"); !ok || v.Size != int64(len(data)) {
		t.Errorf("volume %+v %v", v, ok)
	}
}

// PVE never overwrites with download-url: without a checksum an existing
// file fails the task; with the checksum it has, the task succeeds without
// downloading; with another, it fails.
func TestDownloadURLOverExistingFile(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	first, second := []byte("first"), []byte("second")
	fs := newFileServer(t, false, map[string][]byte{"/1.iso": first, "/2.iso": second})
	args := func(path string, kv ...string) []string {
		return append([]string{"content", "iso", "filename", "x.iso", "url", fs.url(path)}, kv...)
	}
	e.taskOK(t, e.download(t, "pve1", "local", args("/1.iso")...))
	e.taskFails(t, e.download(t, "pve1", "local", args("/2.iso")...),
		"refusing to override existing file '/var/lib/vz/template/iso/x.iso'")
	info := e.taskOK(t, e.download(t, "pve1", "local", args("/2.iso", "checksum", sha256Hex(first), "checksum-algorithm", "sha256")...))
	if !strings.Contains(strings.Join(info.Log, "\n"), "no need to download") {
		t.Errorf("log %q", info.Log)
	}
	e.taskFails(t, e.download(t, "pve1", "local", args("/2.iso", "checksum", sha256Hex(second), "checksum-algorithm", "sha256")...),
		"checksum mismatch: got '"+sha256Hex(first)+"' != expect '"+sha256Hex(second)+"', aborting")
	if fs.count("/2.iso") != 0 {
		t.Errorf("the server was asked for /2.iso %d times", fs.count("/2.iso"))
	}
	if v, _ := volumeOn(e.sim, "pve1", "local:iso/x.iso"); string(v.Data) != "first" {
		t.Errorf("file now holds %q", v.Data)
	}
}

// An image for import must be in the format its name says.
func TestDownloadURLChecksImageFormat(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	fs := newFileServer(t, false, map[string][]byte{"/good.qcow2": qcow2Bytes(4096), "/bad.qcow2": []byte("not an image")})
	e.taskOK(t, e.download(t, "pve1", "local", "content", "import", "filename", "good.qcow2", "url", fs.url("/good.qcow2")))
	info := e.task(t, e.download(t, "pve1", "local", "content", "import", "filename", "bad.qcow2", "url", fs.url("/bad.qcow2")))
	if !strings.HasSuffix(info.ExitStatus, "Image is not in qcow2 format") {
		t.Errorf("exit status %q", info.ExitStatus)
	}
	if v, ok := volumeOn(e.sim, "pve1", "local:import/good.qcow2"); !ok || v.Format != "qcow2" {
		t.Errorf("good.qcow2: %+v %v", v, ok)
	}
	if _, ok := volumeOn(e.sim, "pve1", "local:import/bad.qcow2"); ok {
		t.Error("bad.qcow2 was stored")
	}
}

// Downloading makes the node reach out: it needs Sys.Modify and Sys.Audit
// on / or Sys.AccessNetwork on the node, besides the storage privilege.
func TestDownloadURLPermissions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	fs := newFileServer(t, false, map[string][]byte{"/p.iso": []byte("x")})
	args := []string{"content", "iso", "filename", "p.iso", "url", fs.url("/p.iso")}
	e.sim.SetPrivileges(testTokenUser, "Sys.AccessNetwork")
	e.download(t, "pve1", "local", args...).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/storage/local, Datastore.AllocateTemplate)")
	e.sim.SetPrivileges(testTokenUser, "Datastore.AllocateTemplate", "Sys.Audit")
	e.download(t, "pve1", "local", args...).wantStatus(t, http.StatusForbidden, "Permission check failed")
	e.sim.SetPrivileges(testTokenUser, "Datastore.AllocateTemplate", "Sys.AccessNetwork")
	e.taskOK(t, e.download(t, "pve1", "local", args...))
}

// The simulator does not hold its lock while it fetches: a download from
// the simulator's own address (which needs that lock to answer) works.
func TestDownloadURLDoesNotBlockTheSimulator(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	u := e.srv.URL + apiPrefix + "/version"
	info := e.task(t, e.download(t, "pve1", "local", "content", "iso", "filename", "v.iso", "url", u))
	if !strings.HasSuffix(info.ExitStatus, "failed: exit code 8") {
		t.Errorf("exit status %q (the unauthenticated fetch is refused with 401)", info.ExitStatus)
	}
}
