package pvesim

import (
	"bytes"
	"crypto/md5"  // #nosec G501 -- PVE offers md5 as a checksum algorithm
	"crypto/sha1" // #nosec G505 -- PVE offers sha1 as a checksum algorithm
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"hash"
	"net/http"
	"regexp"
	"strings"
	"time"
)

// Storage content the API can create and remove: download-url and upload
// (pve-storage PVE/API2/Storage/Status.pm) and volume info and delete
// (PVE/API2/Storage/Content.pm). The routes live in storage_download.go,
// storage_upload.go and below.

func (s *Sim) registerStorageContentRoutes() {
	s.handle(http.MethodPost, "/nodes/{node}/storage/{storage}/download-url", route{handle: s.downloadURL})
	s.handle(http.MethodPost, "/nodes/{node}/storage/{storage}/upload", route{
		perm:   permission{path: "/storage/{storage}", privs: []string{"Datastore.AllocateTemplate"}},
		handle: s.uploadFile,
	})
	s.handle(http.MethodGet, "/nodes/{node}/storage/{storage}/content/{volume}", route{handle: volumeInfo})
	s.handle(http.MethodDelete, "/nodes/{node}/storage/{storage}/content/{volume}", route{handle: s.deleteVolume})
}

// templateContent is what download-url and upload accept for one content
// type: where the file goes and how its name is checked.
type templateContent struct {
	subdir  string         // below the storage's path (get_subdir)
	name    *regexp.Regexp // the whole normalised file name must match
	badName string         // the parameter error when it does not
}

// templateContents are Status.pm's rules per content type (W44): iso takes
// ISO_EXT_RE_0, vztmpl VZTMPL_EXT_RE_1 (PVE 9 added plain ".tar" for OCI
// images), import SAFE_CHAR_CLASS_RE + UPLOAD_IMPORT_EXT_RE_1. The first
// two are case-insensitive, import is not.
var templateContents = map[string]templateContent{
	"iso": {
		subdir:  "template/iso",
		name:    regexp.MustCompile(`(?i)^[^/]+\.(?:iso|img)$`),
		badName: "wrong file extension",
	},
	"vztmpl": {
		subdir:  "template/cache",
		name:    regexp.MustCompile(`(?i)^[^/]+\.(?:tar|tar\.(?:gz|xz|zst|bz2))$`),
		badName: "wrong file extension",
	},
	"import": {
		subdir:  "import",
		name:    regexp.MustCompile(`^[a-zA-Z0-9\-.+=_]+\.(?:ova|qcow2|raw|vmdk)$`),
		badName: "invalid filename or wrong extension",
	},
}

// unsafeFileChar is what normalize_content_filename replaces with '_'.
var unsafeFileChar = regexp.MustCompile(`[^a-zA-Z0-9_.\-]`)

// normalizeContentFilename is PVE's normalize_content_filename: a trailing
// newline goes, everything up to the last slash or backslash goes, and any
// character but letters, digits, '_', '.' and '-' becomes '_'.
// pve-storage src/PVE/Storage.pm normalize_content_filename
func normalizeContentFilename(name string) string {
	name = strings.TrimSuffix(name, "\n")
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	return unsafeFileChar.ReplaceAllString(name, "_")
}

// checkTemplateName normalises a file name and checks it against the
// content type's rule (W44): a 400 naming "filename" when it fails.
// pve-storage src/PVE/API2/Storage/Status.pm upload and download_url
func checkTemplateName(content, filename string) (string, error) {
	rule, ok := templateContents[content]
	if !ok {
		return "", paramError(map[string]string{"content": "upload content type '" + content + "' not allowed"})
	}
	name := normalizeContentFilename(filename)
	if !rule.name.MatchString(name) {
		return "", paramError(map[string]string{"filename": rule.badName})
	}
	return name, nil
}

// templateFormat is the format PVE's content listing reports for a file.
// pve-storage src/PVE/Storage/Plugin.pm list_volumes (the format of a file)
func templateFormat(content, name string) string {
	lower := strings.ToLower(name)
	switch content {
	case "iso":
		return "iso"
	case "vztmpl":
		for _, c := range []string{"gz", "xz", "zst", "bz2"} {
			if strings.HasSuffix(lower, ".tar."+c) {
				return "t" + c
			}
		}
		return "tar"
	}
	return name[strings.LastIndexByte(name, '.')+1:]
}

// contentPath is where a file of that content lives on the storage
// (get_subdir), for PVE's messages that name a path.
// pve-storage src/PVE/Storage/Plugin.pm get_subdir
func contentPath(st *Storage, content, name string) string {
	return st.Config["path"] + "/" + templateContents[content].subdir + "/" + name
}

// contentVolID is the volume id of a file of that content.
func contentVolID(storage, content, name string) string {
	return storage + ":" + content + "/" + name
}

// Files bigger than keepFileBytes are kept as size and digests only.
const (
	keepFileBytes = 64 * kib
	headBytes     = 512
)

// checksumAlgorithms are the checksum-algorithm values PVE accepts.
var checksumAlgorithms = map[string]func() hash.Hash{
	"md5": md5.New, "sha1": sha1.New, "sha224": sha256.New224,
	"sha256": sha256.New, "sha384": sha512.New384, "sha512": sha512.New,
}

// fileBlob is what the simulator keeps of a file that arrived through
// upload or download-url: written to as the bytes stream in, so that
// memory stays bounded whatever the file's size.
type fileBlob struct {
	size    int64
	hashes  map[string]hash.Hash
	head    []byte
	data    bytes.Buffer
	tooBig  bool
	digests map[string]string
	seed    *SeedCheck
}

func newFileBlob() *fileBlob {
	b := &fileBlob{hashes: map[string]hash.Hash{}}
	for name, mk := range checksumAlgorithms {
		b.hashes[name] = mk()
	}
	return b
}

// Write implements io.Writer.
func (b *fileBlob) Write(p []byte) (int, error) {
	b.size += int64(len(p))
	for _, h := range b.hashes {
		_, _ = h.Write(p)
	}
	if room := headBytes - len(b.head); room > 0 {
		b.head = append(b.head, p[:min(room, len(p))]...)
	}
	if !b.tooBig {
		if b.data.Len()+len(p) > int(keepFileBytes) {
			b.tooBig = true
			b.data = bytes.Buffer{}
		} else {
			b.data.Write(p)
		}
	}
	return len(p), nil
}

// finish computes the digests once the last byte is in.
func (b *fileBlob) finish() {
	b.digests = map[string]string{}
	for name, h := range b.hashes {
		b.digests[name] = hex.EncodeToString(h.Sum(nil))
	}
	b.hashes = nil
}

// bytes returns the kept bytes, nil for a file too big to keep.
func (b *fileBlob) bytes() []byte {
	if b.tooBig {
		return nil
	}
	return append([]byte{}, b.data.Bytes()...)
}

// checkChecksum is the worker's comparison of PVE's get_file_hash with the
// expected value, case-insensitively.
// pve-storage src/PVE/API2/Storage/Status.pm upload (checksum comparison)
func (b *fileBlob) checkChecksum(algorithm, expected string) error {
	if algorithm == "" {
		return nil
	}
	got := b.digests[algorithm]
	if !strings.EqualFold(got, expected) {
		return errorf("checksum mismatch: got '%s' != expect '%s'", got, expected)
	}
	return nil
}

// checkImage is what PVE checks of untrusted content before it keeps it:
// an image for import must be in the format its extension names
// (file_size_info through qemu-img), an OVA must be a tar archive. An ISO
// may hold any bytes.
// pve-storage src/PVE/API2/Storage/Status.pm upload: file_size_info($tmp,
// 10, $format, 1) (pve-storage src/PVE/Storage/Plugin.pm; an untrusted
// image's qemu-img error is the error) and assert_ova_contents (the
// simulator reads the tar magic, not the member list).
func (b *fileBlob) checkImage(content, format, path string) error {
	if content != "import" {
		return nil
	}
	magic := map[string]string{"qcow2": "QFI\xfb", "vmdk": "KDMV"}
	switch format {
	case "qcow2", "vmdk":
		if !bytes.HasPrefix(b.head, []byte(magic[format])) {
			return errorf("qemu-img: Could not open '%s': Image is not in %s format", path, format) // inferred: qemu-img's own wording (QEMU)
		}
	case "ova":
		if len(b.head) < 262 || string(b.head[257:262]) != "ustar" {
			return errorf("ova archive has no .ovf file inside")
		}
	}
	return nil
}

// storeFile keeps a finished file as a volume of the storage instance on
// node, replacing one of the same name.
func (s *Sim) storeFile(cl *Cluster, st *Storage, node, content, name string, blob *fileBlob) error {
	return cl.AddVolume(&Volume{
		VolID: contentVolID(st.ID, content, name), Storage: st.ID, Node: node,
		Content: content, Format: templateFormat(content, name), Size: blob.size,
		VirtualSize: imageVirtualSize(blob.head, templateFormat(content, name)),
		CTime:       s.now().Unix(), Digests: blob.digests, Data: blob.bytes(), Seed: blob.seed,
	})
}

// realVolumeID is Content.pm's real_volume_id: a volume given with its
// storage must name the storage of the path; one without gets it.
// pve-storage src/PVE/API2/Storage/Content.pm $real_volume_id (the parse
// error is pve-storage src/PVE/Storage.pm parse_volume_id).
func realVolumeID(storage, volume string) (string, error) {
	if !strings.Contains(volume, ":") {
		if storage == "" {
			return "", paramError(map[string]string{"volume": "no storage specified - incomplete volume ID"})
		}
		return storage + ":" + volume, nil
	}
	sid, _, _ := strings.Cut(volume, ":")
	if !volumeIDPattern.MatchString(volume) {
		return "", paramError(map[string]string{"volume": "unable to parse volume ID '" + volume + "'\n"})
	}
	if storage != "" && sid != storage {
		return "", paramError(map[string]string{"volume": "storage ID mismatch (" + sid + " != " + storage + ")\n"})
	}
	return volume, nil
}

// volumeIDPattern is parse_volume_id's grammar.
var volumeIDPattern = regexp.MustCompile(`(?i)^[a-z][a-z0-9\-_.]*[a-z0-9]:.+$`)

// volumeInfo is GET .../content/{volume}: path, size, used and format of
// an existing volume. A missing file has no format, which PVE reports as
// such.
// pve-storage src/PVE/API2/Storage/Content.pm info
func volumeInfo(c *call) (any, error) {
	volid, err := realVolumeID(c.str("storage"), c.str("volume"))
	if err != nil {
		return nil, err
	}
	st, _, err := parseVolume(c.cluster, volid)
	if err != nil {
		return nil, err
	}
	if err := checkVolumeAccess(c, 0, volid, ""); err != nil {
		return nil, err
	}
	v := c.cluster.Volume(c.str("node"), volid)
	if v == nil {
		return nil, errorf("volume_size_info on '%s' failed - no format", volid)
	}
	_, volname, _ := strings.Cut(volid, ":")
	return map[string]any{
		"path": volumePath(st, v.Content, volname), "size": v.Size, "used": v.Size, "format": v.Format,
	}, nil
}

// volumePath is the plugin's path() for a volume name.
// pve-storage src/PVE/Storage/Plugin.pm path and filesystem_path
func volumePath(st *Storage, content, volname string) string {
	if !st.fileStorage() {
		return "/dev/" + st.Config["vgname"] + "/" + volname
	}
	if rule, ok := templateContents[content]; ok {
		return st.Config["path"] + "/" + rule.subdir + "/" + strings.TrimPrefix(volname, content+"/")
	}
	if content == "images" || content == "rootdir" {
		return st.Config["path"] + "/images/" + volname
	}
	dir, name, _ := strings.Cut(volname, "/")
	if dir == "backup" {
		dir = "dump"
	}
	return st.Config["path"] + "/" + dir + "/" + name
}

// deleteVolume is DELETE .../content/{volume} (W46): a task that frees the
// volume. A file that is already gone only warns, so the task succeeds.
// PVE does not look at guest configurations here: an ISO still attached
// to a VM is deleted all the same.
// pve-storage src/PVE/API2/Storage/Content.pm delete (permissions, the imgdel
// worker; vdisk_free warns for a missing file in pve-storage
// src/PVE/Storage/Plugin.pm free_image).
func (s *Sim) deleteVolume(c *call) (any, error) {
	volid, err := realVolumeID(c.str("storage"), c.str("volume"))
	if err != nil {
		return nil, err
	}
	st, info, err := parseVolume(c.cluster, volid)
	if err != nil {
		return nil, err
	}
	if info.vtype == "backup" && info.owner != 0 {
		if err := c.check("/storage/"+st.ID, false, "Datastore.AllocateSpace"); err != nil {
			return nil, err
		}
		if err := c.check("/vms/"+itoa(info.owner), false, "VM.Backup"); err != nil {
			return nil, err
		}
	} else if err := c.check("/storage/"+st.ID, false, "Datastore.Allocate"); err != nil {
		return nil, err
	}
	node := c.str("node")
	_, volname, _ := strings.Cut(volid, ":")
	id := st.ID
	if info.owner != 0 {
		id = itoa(info.owner) + "@" + st.ID
	}
	// vdisk_free runs as the worker starts: a base volume still in use and
	// a volume a block storage does not have fail the task there, a file
	// that is gone only warns; the volume is gone when the task ends
	// (pve-storage src/PVE/Storage.pm vdisk_free: volume_is_base_and_used,
	// then the plugin's free_image).
	cl := c.cluster
	gone := false
	t := s.startWorker(node, "imgdel", id, c.user, workerSpec{
		begin: func(t *Task) error {
			v := cl.Volume(node, volid)
			if v == nil {
				if !st.fileStorage() {
					return errorf("volume '%s' does not exist", volid)
				}
				// pve-storage src/PVE/Storage/Plugin.pm free_image: a plain warn
				t.Note("disk image '%s' does not exist", volumePath(st, info.vtype, volname))
				gone = true
				return nil
			}
			if linkedCloneOf(cl, v) != "" {
				return errorf("base volume '%s' is still in use by linked clones", volname)
			}
			return nil
		},
		work: func(t *Task) error {
			if !gone {
				if err := freeVolume(cl, node, volid); err != nil {
					return err
				}
			}
			t.Log("Removed volume '%s'", volid)
			return nil
		},
	})
	if delay := c.intParam("delay", 0); delay > 0 {
		return s.awaitDelete(t, delay)
	}
	return t.UPID, nil
}

// awaitDelete is the delete's "delay": wait up to that many seconds for
// the task, answering null when it ended well and its error when not. The
// simulator cannot wait with the model locked, so a task that would end
// within the delay ends now.
// pve-storage src/PVE/API2/Storage/Content.pm delete ($background_delay:
// die "$status\n" when the task failed).
func (s *Sim) awaitDelete(t *Task, delaySeconds int) (any, error) {
	if t.running && !t.waiting && !t.due.After(s.now().Add(time.Duration(delaySeconds)*time.Second)) {
		t.due = s.now()
		s.finishTask(t, t.due)
	}
	if t.running {
		return t.UPID, nil
	}
	if statusType(t.exitStatus) == "error" {
		return nil, errorf("%s", t.exitStatus)
	}
	return nil, nil
}
