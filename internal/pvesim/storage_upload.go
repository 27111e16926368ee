package pvesim

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
	"sync"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/schema"
)

// uploadTemplate is the one API path pveproxy does not read as a form: it
// streams the multipart body to a temporary file first, with no size limit
// but the Content-Length the client announced (W45).
const uploadTemplate = "/nodes/{node}/storage/{storage}/upload"

// maxUploadFieldBytes bounds a text field of an upload; PVE's parser keeps
// fields in its read buffer.
const maxUploadFieldBytes = 4 * kib

// uploadFields are the text fields pveproxy extracts, in the order it
// expects them before the file part.
var uploadFields = []string{"content", "checksum-algorithm", "checksum"}

// pendingUploads are the received files by temporary file name, as
// /var/tmp holds them between pveproxy and the API handler. Names are
// random, so simulators in one process never share an entry.
var pendingUploads sync.Map // string -> *fileBlob

// isUpload tells whether a request goes through pveproxy's upload path.
func isUpload(method string, m *schema.Method) bool {
	return method == http.MethodPost && m != nil && m.Path() == uploadTemplate
}

// receiveUpload is pveproxy's upload path (pve-http-server
// src/PVE/APIServer/AnyEvent.pm process_request, file_upload_multipart;
// the permission is checked before the body is read): the caller needs
// Datastore.AllocateTemplate on the storage before the body is read; the
// body must be multipart/form-data with the fields content,
// checksum-algorithm and checksum (each optional, in that order) followed
// by the file as the last part, named "filename", whose file name names
// the file. The file streams into a blob (size, digests, the bytes of a
// small one); then the API handler runs with tmpfilename pointing at it.
func (s *Sim) receiveUpload(r *http.Request, rel string, m *schema.Method, rt *route,
	vars map[string]string, user identity, viaToken bool, rec *RequestRecord,
) reply {
	storagePath := "/storage/" + vars["storage"]
	privs := []string{"Datastore.AllocateTemplate"}
	if !s.allowed(user, storagePath, false, privs) {
		return bareReply(http.StatusForbidden, "Permission check failed ("+storagePath+", "+privs[0]+")")
	}
	ctype := r.Header.Get("Content-Type")
	mt, ctParams, err := mime.ParseMediaType(ctype)
	if err != nil || mt != "multipart/form-data" || ctParams["boundary"] == "" {
		return bareReply(http.StatusNotImplemented, fmt.Sprintf("upload 'Content-Type '%s' not implemented", ctype))
	}
	params := decodeURLEncoded(r.URL.RawQuery)
	blob, err := readUploadBody(multipart.NewReader(io.LimitReader(r.Body, r.ContentLength), ctParams["boundary"]), params)
	if err != nil {
		// pve-http-server src/PVE/APIServer/AnyEvent.pm
		// file_upload_multipart: its eval answers error(500, $err). Its
		// dies have no newline, so Perl adds the source location, which
		// differs per release and is left out here.
		return proxyError(http.StatusInternalServerError, err.Error())
	}
	tmp := uploadTempName()
	pendingUploads.Store(tmp, blob)
	defer pendingUploads.Delete(tmp)
	params["tmpfilename"] = []string{tmp}
	rec.Params = redactParams(params)
	return s.dispatch(rel, m, rt, vars, params, user, viaToken)
}

// errUploadFailed is pveproxy's answer to a body it could not take apart.
var errUploadFailed = errors.New("upload failed")

// readUploadBody parses the parts as pveproxy's file_upload_multipart
// does: text fields first, in its order, then the file, then nothing.
func readUploadBody(mr *multipart.Reader, params map[string][]string) (*fileBlob, error) {
	next := 0
	for {
		part, err := mr.NextPart()
		if err != nil {
			return nil, errUploadFailed
		}
		if part.FormName() == "" {
			return nil, errUploadFailed
		}
		if part.FileName() != "" {
			if part.FormName() != "filename" {
				return nil, fmt.Errorf("wrong field name '%s' for file upload, expected 'filename'", part.FormName())
			}
			params["filename"] = []string{strings.TrimSpace(part.FileName())}
			blob := newFileBlob()
			seed := newSeedCapture(params["filename"][0])
			if _, err := io.Copy(io.MultiWriter(blob, seed.writer()), part); err != nil {
				return nil, errUploadFailed
			}
			blob.finish()
			blob.seed = seed.check()
			if _, err := mr.NextPart(); !errors.Is(err, io.EOF) {
				return nil, errUploadFailed
			}
			return blob, nil
		}
		for next < len(uploadFields) && uploadFields[next] != part.FormName() {
			next++
		}
		if next == len(uploadFields) {
			return nil, errUploadFailed
		}
		value, err := io.ReadAll(io.LimitReader(part, maxUploadFieldBytes+1))
		if err != nil || int64(len(value)) > maxUploadFieldBytes {
			return nil, errUploadFailed
		}
		params[part.FormName()] = []string{strings.TrimSpace(string(value))}
		next++
	}
}

// uploadTempName is get_upload_filename's shape: /var/tmp/pveupload-MD5HEX.
func uploadTempName() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("pvesim: random source failed: %v", err))
	}
	return "/var/tmp/pveupload-" + hex.EncodeToString(b)
}

// uploadFile is POST .../upload (W45), the handler after pveproxy has
// received the file: a task that checks the checksum and the file's
// format and then copies it into place, overwriting a file of the same
// name without a word.
func (s *Sim) uploadFile(c *call) (any, error) {
	node := c.str("node")
	// pve-storage src/PVE/API2/Storage/Status.pm upload: storage, path,
	// temporary file, file name and content checks, in that order.
	st, err := usableStorage(c.cluster, c.str("storage"), node)
	if err != nil {
		return nil, err
	}
	if !st.fileStorage() {
		return nil, errorf("can't upload to storage type '%s'", st.Type)
	}
	content := c.str("content")
	tmp := c.str("tmpfilename")
	if tmp == "" {
		return nil, errorf("missing temporary file name")
	}
	stored, ok := pendingUploads.LoadAndDelete(tmp)
	if !ok {
		return nil, errorf("temporary file '%s' does not exist", tmp)
	}
	blob, _ := stored.(*fileBlob)
	name, err := checkTemplateName(content, c.str("filename"))
	if err != nil {
		return nil, err
	}
	if !st.hasContent(content) {
		return nil, errorf("storage '%s' does not support '%s' content", st.ID, content)
	}
	// Upload is not proxied: the handler copies the file to another node
	// itself, which needs the node's address (pve-cluster
	// src/PVE/Cluster.pm remote_node_ip, falling back to pve-common
	// src/PVE/Network.pm get_ip_from_hostname).
	if c.cluster.Node(node) == nil {
		return nil, errorf("hostname lookup '%s' failed - failed to get address info for: %s: Name or service not known", node, node)
	}
	dest := contentPath(st, content, name)
	algorithm, checksum := c.str("checksum-algorithm"), c.str("checksum")
	// The worker checks the checksum and the file's format as it starts
	// and fails there; the copy is in place when it ends (pve-storage
	// src/PVE/API2/Storage/Status.pm upload $worker: the eval before
	// "target node").
	t := s.startWorker(node, "imgcopy", "", c.user, workerSpec{
		begin: func(t *Task) error {
			t.Log("starting file import from: %s", tmp)
			if algorithm != "" {
				t.Log("calculating checksum...")
				if err := blob.checkChecksum(algorithm, checksum); err != nil {
					return err
				}
				t.Log("OK, checksum verified")
			}
			return blob.checkImage(content, templateFormat(content, name), tmp)
		},
		work: func(t *Task) error {
			t.Log("target node: %s", node)
			t.Log("target file: %s", dest)
			t.Log("file size is: %d", blob.size)
			t.Log("command: cp -- %s %s", tmp, dest)
			old := c.cluster.Volume(node, contentVolID(st.ID, content, name))
			free := st.Capacity - c.cluster.used(st, node)
			if old != nil {
				free += old.Size
			}
			if blob.size > free {
				// pve-storage src/PVE/API2/Storage/Status.pm upload (run_command
				// errmsg "import failed"); inferred: the rest is cp's (coreutils).
				return errorf("import failed: cp: error writing '%s': No space left on device", dest)
			}
			if err := s.storeFile(c.cluster, st, node, content, name, blob); err != nil {
				return err
			}
			t.Log("finished file import successfully")
			return nil
		},
	})
	return t.UPID, nil
}
