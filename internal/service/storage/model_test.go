package storage

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// W44: file names per content type, checked at plan time with the
// accepted extensions in the message.
func TestCheckFileNameW44(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kind artifactKind
		name string
		ok   bool
	}{
		{isoKind, "debian-13-netinst.iso", true},
		{isoKind, "Windows.ISO", true},
		{isoKind, "seed.img", true},
		{isoKind, "seed.qcow2", false},
		{isoKind, ".iso", false},
		{isoKind, "my seed.iso", false},
		{isoKind, "dir/seed.iso", false},
		{osTemplateKind, "debian-13-standard_13.1-1_amd64.tar.zst", true},
		{osTemplateKind, "alpine.tar.xz", true},
		{osTemplateKind, "alpine.tar.gz", true},
		{osTemplateKind, "alpine.tar.bz2", true},
		{osTemplateKind, "alpine-oci.tar", true},
		{osTemplateKind, "alpine.tgz", false},
		{diskImageKind, "noble.qcow2", true},
		{diskImageKind, "noble.raw", true},
		{diskImageKind, "noble.vmdk", true},
		{diskImageKind, "noble.img", false},
		{diskImageKind, "noble.QCOW2", false},
	} {
		err := tc.kind.checkFileName(tc.name)
		if (err == nil) != tc.ok {
			t.Errorf("%s %q: %v, want ok=%v", tc.kind.content, tc.name, err, tc.ok)
		}
	}
	err := diskImageKind.checkFileName("noble.img")
	if err == nil || !strings.Contains(err.Error(), ".qcow2, .raw, .vmdk") {
		t.Errorf("W44: the message lists the accepted extensions: %v", err)
	}
}

func TestCheckChecksum(t *testing.T) {
	t.Parallel()
	if err := checkChecksum("sha256", strings.Repeat("aB", 32)); err != nil {
		t.Error(err)
	}
	for _, bad := range [][2]string{{"sha256", strings.Repeat("a", 63)}, {"md5", strings.Repeat("g", 32)}, {"crc", "00"}} {
		if err := checkChecksum(bad[0], bad[1]); err == nil {
			t.Errorf("%s %q accepted", bad[0], bad[1])
		}
	}
}

func TestImportID(t *testing.T) {
	t.Parallel()
	node, storage, file, err := parseImportID("pve1/local/debian.iso")
	if err != nil || node != "pve1" || storage != "local" || file != "debian.iso" {
		t.Errorf("parse = %s %s %s %v", node, storage, file, err)
	}
	if importID(node, storage, file) != "pve1/local/debian.iso" {
		t.Error("round trip")
	}
	for _, bad := range []string{"pve1/local", "pve1//x.iso", "local:iso/x.iso", "a/b/c/d"} {
		if _, _, _, err := parseImportID(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func downloaded(url, checksum string) *artifactModel {
	m := &artifactModel{
		Node: types.StringValue("pve1"), Storage: types.StringValue("local"), FileName: types.StringValue("a.iso"),
		URL: types.StringValue(url), Checksum: types.StringNull(), ChecksumAlgorithm: types.StringNull(),
		SourceFile: types.StringNull(), SourceFileHash: types.StringNull(),
	}
	if checksum != "" {
		m.Checksum, m.ChecksumAlgorithm = types.StringValue(checksum), types.StringValue("sha256")
	}
	if url == "" {
		m.URL = types.StringNull()
	}
	return m
}

func uploaded(file, hash string) *artifactModel {
	m := downloaded("", "")
	m.SourceFile, m.SourceFileHash = types.StringValue(file), types.StringValue(hash)
	return m
}

func TestPlanChanges(t *testing.T) {
	t.Parallel()
	imported := downloaded("", "")
	for _, tc := range []struct {
		name        string
		state, plan *artifactModel
		replace     []string
		reupload    bool
	}{
		{name: "same download", state: downloaded("http://a/x.iso", "aa"), plan: downloaded("http://a/x.iso", "aa")},
		{name: "new url", state: downloaded("http://a/x.iso", ""), plan: downloaded("http://b/x.iso", ""), replace: []string{"url"}},
		{name: "new checksum", state: downloaded("http://a/x.iso", "aa"), plan: downloaded("http://a/x.iso", "bb"),
			replace: []string{"checksum"}},
		{name: "W47 url set after import", state: imported, plan: downloaded("http://a/x.iso", "")},
		{name: "W47 checksum set after import", state: imported, plan: downloaded("http://a/x.iso", "aa")},
		{name: "url dropped", state: downloaded("http://a/x.iso", ""), plan: imported},
		{name: "same upload", state: uploaded("f", "h1"), plan: uploaded("f", "h1")},
		{name: "changed file", state: uploaded("f", "h1"), plan: uploaded("f", "h2"), reupload: true},
		{name: "source file set after import", state: imported, plan: uploaded("f", "h1"), reupload: true},
		{name: "upload checksum changed", state: withChecksum(uploaded("f", "h1"), "aa"), plan: withChecksum(uploaded("f", "h1"), "bb")},
		{name: "new file name", state: downloaded("http://a/x.iso", ""), plan: renamed(downloaded("http://a/x.iso", ""), "b.iso"),
			replace: []string{"file_name"}},
	} {
		got := planChanges(tc.state, tc.plan)
		var gotNames []string
		for _, p := range got.replace {
			gotNames = append(gotNames, p.String())
		}
		want := strings.Join(tc.replace, ",")
		if strings.Join(gotNames, ",") != want || got.reupload != tc.reupload {
			t.Errorf("%s: replace %v reupload %v, want %v %v", tc.name, got.replace, got.reupload, want, tc.reupload)
		}
	}
}

func withChecksum(m *artifactModel, sum string) *artifactModel {
	m.Checksum, m.ChecksumAlgorithm = types.StringValue(sum), types.StringValue("sha256")
	return m
}

func renamed(m *artifactModel, name string) *artifactModel {
	m.FileName = types.StringValue(name)
	return m
}

// An upload makes PVE verify what it received: the configured checksum, or
// else the SHA-256 from the plan.
func TestToUploadChecksum(t *testing.T) {
	t.Parallel()
	open := func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("x")), nil }
	req := uploaded("f", "cafe").toUpload(isoKind, open, 1)
	if req.Checksum != "cafe" || req.ChecksumAlgorithm != "sha256" || req.Content != "iso" || req.FileName != "a.iso" || req.Size != 1 {
		t.Errorf("upload = %+v", req)
	}
	m := uploaded("f", "cafe")
	m.Checksum, m.ChecksumAlgorithm = types.StringValue("beef"), types.StringValue("md5")
	if req := m.toUpload(isoKind, open, 1); req.Checksum != "beef" || req.ChecksumAlgorithm != "md5" {
		t.Errorf("configured checksum not used: %+v", req)
	}
}

func TestToDownload(t *testing.T) {
	t.Parallel()
	m := downloaded("https://example.org/a.iso", "aa")
	m.VerifyCertificates = types.BoolValue(false)
	req := m.toDownload(isoKind)
	if req.URL != "https://example.org/a.iso" || req.Checksum != "aa" || req.ChecksumAlgorithm != "sha256" ||
		req.VerifyCertificates == nil || *req.VerifyCertificates || req.Content != "iso" {
		t.Errorf("download = %+v", req)
	}
	m.VerifyCertificates = types.BoolNull()
	if req := m.toDownload(isoKind); req.VerifyCertificates != nil {
		t.Error("an unset verify_certificates is sent")
	}
}

func TestFromAPI(t *testing.T) {
	t.Parallel()
	m := downloaded("http://a/a.iso", "")
	m.fromAPI(isoKind, &pveapi.StorageVolume{VolID: "local:iso/a.iso", Size: 42, CTime: 1700000000})
	if m.ID.ValueString() != "pve1/local/a.iso" || m.Volume.ValueString() != "local:iso/a.iso" || m.Size.ValueInt64() != 42 ||
		m.CTime.ValueInt64() != 1700000000 || m.URL.ValueString() != "http://a/a.iso" {
		t.Errorf("model = %+v", m)
	}
}

func TestFileSHA256(t *testing.T) {
	t.Parallel()
	name := filepath.Join(t.TempDir(), "seed.iso")
	if err := os.WriteFile(name, []byte("abc"), 0o600); err != nil {
		t.Fatal(err)
	}
	sum, err := fileSHA256(name)
	if err != nil || sum != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("sha256 = %s %v", sum, err)
	}
	if _, err := fileSHA256(filepath.Dir(name)); err == nil {
		t.Error("a directory was hashed")
	}
}

func TestStoragesFromAPI(t *testing.T) {
	t.Parallel()
	list := []pveapi.NodeStorage{
		{Storage: "shared-nfs", Type: "nfs", Content: "images,iso", Shared: true, Enabled: true, Active: true, Total: 100, Used: 40, Avail: 60},
		{Storage: "local", Type: "dir", Content: "iso,vztmpl", Enabled: true, Active: true, Total: 10, Used: 1, Avail: 9},
	}
	all := storagesFromAPI(list, nil, entryFilter{shared: types.BoolNull()})
	if len(all) != 2 || all[0].Storage.ValueString() != "local" || all[1].Available.ValueInt64() != 60 || len(all[1].Content) != 2 {
		t.Errorf("all = %+v", all)
	}
	if shared := storagesFromAPI(list, nil, entryFilter{shared: types.BoolValue(true)}); len(shared) != 1 || shared[0].Storage.ValueString() != "shared-nfs" {
		t.Errorf("shared = %+v", shared)
	}
	if local := storagesFromAPI(list, nil, entryFilter{shared: types.BoolValue(false)}); len(local) != 1 || local[0].Storage.ValueString() != "local" {
		t.Errorf("local = %+v", local)
	}
	if dirs := storagesFromAPI(list, nil, entryFilter{typ: "dir", shared: types.BoolNull()}); len(dirs) != 1 || dirs[0].Storage.ValueString() != "local" {
		t.Errorf("type dir = %+v", dirs)
	}
}
