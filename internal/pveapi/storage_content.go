package pveapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// Artifact content types: what download-url and upload accept (W44).
const (
	ContentISO    = "iso"
	ContentVZTmpl = "vztmpl"
	ContentImport = "import"
)

// VolumeID is the volume id of an artifact: STORAGE:CONTENT/FILE, e.g.
// local:iso/debian-13-netinst.iso.
func VolumeID(storage, content, fileName string) string {
	return storage + ":" + content + "/" + fileName
}

func storageContentPath(node, storage string) string {
	return "/nodes/" + url.PathEscape(node) + "/storage/" + url.PathEscape(storage)
}

// volumePath is .../content/{volume} with the volume id path-escaped (W46).
func volumePath(node, storage, volid string) string {
	return storageContentPath(node, storage) + "/content/" + url.PathEscape(volid)
}

// DownloadURLRequest is POST /nodes/{node}/storage/{storage}/download-url
// (W44): PVE fetches URL into the storage as FileName.
type DownloadURLRequest struct {
	Node     string
	Storage  string
	Content  string // ContentISO, ContentVZTmpl or ContentImport
	FileName string
	URL      string
	// Checksum and ChecksumAlgorithm (md5, sha1, sha224, sha256, sha384,
	// sha512) go together or not at all.
	Checksum          string
	ChecksumAlgorithm string
	// VerifyCertificates nil leaves PVE's default: verify.
	VerifyCertificates *bool
}

// DownloadURL starts the download task and returns its UPID. PVE refuses a
// wrong extension synchronously (400 on "filename"); a failed fetch or a
// checksum mismatch fails the task and leaves no file. PVE never
// overwrites an existing file this way.
func (c *Client) DownloadURL(ctx context.Context, req DownloadURLRequest) (string, error) {
	form := url.Values{
		"content":  {req.Content},
		"filename": {req.FileName},
		"url":      {req.URL},
	}
	if req.Checksum != "" || req.ChecksumAlgorithm != "" {
		form.Set("checksum", req.Checksum)
		form.Set("checksum-algorithm", req.ChecksumAlgorithm)
	}
	if req.VerifyCertificates != nil {
		form.Set("verify-certificates", FormBool(*req.VerifyCertificates))
	}
	var upid string
	err := c.Post(ctx, storageContentPath(req.Node, req.Storage)+"/download-url", form, &upid)
	return upid, err
}

// UploadRequest is POST /nodes/{node}/storage/{storage}/upload (W45).
type UploadRequest struct {
	Node     string
	Storage  string
	Content  string // ContentISO, ContentVZTmpl or ContentImport
	FileName string
	// Checksum and ChecksumAlgorithm, when set, make PVE verify the bytes
	// it received before it keeps them.
	Checksum          string
	ChecksumAlgorithm string
	// Open returns a reader of the file from its first byte; Size is its
	// exact length in bytes. Open may be called again for a retry that
	// provably never reached PVE.
	Open func() (io.ReadCloser, error)
	Size int64
}

// ErrSourceChanged is returned when an upload's source yields fewer bytes
// than its announced size.
var ErrSourceChanged = errors.New("the file to upload is shorter than when it was measured; it changed while uploading")

// Upload streams a file to PVE and returns the UPID of the task that puts
// it in place, overwriting a file of the same name (W45). The body is
// multipart with an exact Content-Length (pveproxy refuses chunked
// bodies) and is never held in memory: the file is read as it is sent.
// The parts come in the order pveproxy's parser requires: content, the
// checksum fields, then the file as the part "filename". An upload that
// may have reached PVE is never sent again.
func (c *Client) Upload(ctx context.Context, req UploadRequest) (string, error) {
	if req.Open == nil || req.Size < 0 {
		return "", errors.New("pve: an upload needs a source and its size")
	}
	body, err := newUploadBody(req)
	if err != nil {
		return "", err
	}
	var upid string
	err = c.postStream(ctx, storageContentPath(req.Node, req.Storage)+"/upload", body, &upid)
	return upid, err
}

// FileSource opens a local file for UploadRequest: its Open and Size.
func FileSource(path string) (open func() (io.ReadCloser, error), size int64, err error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, 0, err
	}
	if !info.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("%s is not a regular file", path)
	}
	return func() (io.ReadCloser, error) { return os.Open(path) }, info.Size(), nil // #nosec G304 -- the caller names the file to upload
}

// streamBody is a request body that is produced afresh for every attempt
// and whose length is known up front.
type streamBody struct {
	contentType string
	length      int64
	open        func() (io.ReadCloser, error)
}

// newUploadBody lays out the multipart body: a small prefix (fields and
// the file part's header), the file, and the closing boundary.
func newUploadBody(req UploadRequest) (streamBody, error) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fields := [][2]string{{"content", req.Content}}
	if req.Checksum != "" || req.ChecksumAlgorithm != "" {
		fields = append(fields, [2]string{"checksum-algorithm", req.ChecksumAlgorithm}, [2]string{"checksum", req.Checksum})
	}
	for _, f := range fields {
		if err := mw.WriteField(f[0], f[1]); err != nil {
			return streamBody{}, err
		}
	}
	if _, err := mw.CreateFormFile("filename", req.FileName); err != nil {
		return streamBody{}, err
	}
	prefix := bytes.Clone(buf.Bytes())
	buf.Reset()
	if err := mw.Close(); err != nil {
		return streamBody{}, err
	}
	suffix := bytes.Clone(buf.Bytes())
	return streamBody{
		contentType: mw.FormDataContentType(),
		length:      int64(len(prefix)) + req.Size + int64(len(suffix)),
		open: func() (io.ReadCloser, error) {
			file, err := req.Open()
			if err != nil {
				return nil, err
			}
			return &multiReadCloser{
				Reader: io.MultiReader(bytes.NewReader(prefix), &exactReader{r: file, left: req.Size}, bytes.NewReader(suffix)),
				closer: file,
			}, nil
		},
	}, nil
}

type multiReadCloser struct {
	io.Reader
	closer io.Closer
}

func (m *multiReadCloser) Close() error { return m.closer.Close() }

// exactReader yields exactly left bytes of r: it stops there, and fails
// when r ends early, so the body always matches its Content-Length.
type exactReader struct {
	r    io.Reader
	left int64
}

func (e *exactReader) Read(p []byte) (int, error) {
	if e.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > e.left {
		p = p[:e.left]
	}
	n, err := e.r.Read(p)
	e.left -= int64(n)
	if errors.Is(err, io.EOF) {
		if e.left > 0 {
			return n, ErrSourceChanged
		}
		err = nil
	}
	return n, err
}

// lazyBody opens its source on the first Read, so that building a request
// (which probes the body once) does not open the file.
type lazyBody struct {
	open func() (io.ReadCloser, error)
	rc   io.ReadCloser
}

func (l *lazyBody) Read(p []byte) (int, error) {
	if l.rc == nil {
		rc, err := l.open()
		if err != nil {
			return 0, err
		}
		l.rc = rc
	}
	return l.rc.Read(p)
}

func (l *lazyBody) Close() error {
	if l.rc == nil {
		return nil
	}
	return l.rc.Close()
}

// postStream is Post for a streamed body: the same auth, retry policy
// (W13: a write is resent only when it provably never left) and error
// handling, with a body re-opened for each attempt.
func (c *Client) postStream(ctx context.Context, path string, body streamBody, out any) (err error) {
	var res *rawResponse
	defer c.logRequest(ctx, http.MethodPost, path, func() map[string]any {
		return map[string]any{"body_bytes": body.length}
	}, time.Now(), &res, &err)
	// As in call: a 401 on a ticket means PVE refused the ticket before
	// reading anything, so one retry with a fresh ticket is safe.
	for reloggedIn := false; ; reloggedIn = true {
		creds, err := c.auth.credentials(ctx)
		if err != nil {
			return err
		}
		reader := retryablehttp.ReaderFunc(func() (io.Reader, error) { return &lazyBody{open: body.open}, nil })
		req, err := retryablehttp.NewRequestWithContext(withStreamedBody(withAttemptCounter(ctx)), http.MethodPost, c.apiRoot+path, reader)
		if err != nil {
			return c.transportError(http.MethodPost, path, err)
		}
		// W45: a known length; without it net/http would send the body
		// chunked, which pveproxy refuses.
		req.ContentLength = body.length
		req.Header.Set("Accept", "application/json")
		req.Header.Set("User-Agent", c.userAgent)
		req.Header.Set("Content-Type", body.contentType)
		creds.apply(req.Request, http.MethodPost)
		res, err = c.send(req, http.MethodPost, path)
		if err != nil {
			return err
		}
		if res.status == http.StatusUnauthorized && creds.ticket != "" && !reloggedIn {
			c.auth.invalidate(creds.ticket)
			continue
		}
		return c.decodeResponse(http.MethodPost, path, res, out)
	}
}

// DeleteVolume starts the task that deletes a volume (W46) and returns its
// UPID. The task succeeds when the volume is already gone. PVE does not
// check whether a guest still uses the volume.
func (c *Client) DeleteVolume(ctx context.Context, node, storage, volid string) (string, error) {
	var upid string
	err := c.Delete(ctx, volumePath(node, storage, volid), nil, &upid)
	return upid, err
}

// FindVolume looks for volid among the storage's content of one type, as
// node sees it (a shared storage looks the same from every node): one
// request. It returns nil when the volume is not there.
func (c *Client) FindVolume(ctx context.Context, node, storage, content, volid string) (*StorageVolume, error) {
	volumes, err := c.StorageContent(ctx, node, storage, content)
	if err != nil {
		return nil, err
	}
	for i := range volumes {
		if volumes[i].VolID == volid {
			return &volumes[i], nil
		}
	}
	return nil, nil
}

// VolumeAttributes is GET .../content/{volume}.
type VolumeAttributes struct {
	Path      string         `json:"path"`
	Size      IntOrString    `json:"size"`
	Used      IntOrString    `json:"used"`
	Format    string         `json:"format"`
	Notes     StringOrNumber `json:"notes,omitempty"`
	Protected Bool01         `json:"protected,omitempty"`
}

// VolumeInfo reads one volume's attributes. A missing file is an error
// from PVE ("volume_size_info on 'ID' failed - no format"); use
// FindVolume to test for presence.
func (c *Client) VolumeInfo(ctx context.Context, node, storage, volid string) (*VolumeAttributes, error) {
	var out VolumeAttributes
	if err := c.Get(ctx, volumePath(node, storage, volid), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

var storageMissingPattern = regexp.MustCompile(`^storage '[^']*' does not exist$`)

// IsStorageMissing reports PVE's 500 "storage 'ID' does not exist": the
// storage is not (or no longer) configured.
func IsStorageMissing(err error) bool {
	apiErr, ok := AsError(err)
	return ok && apiErr.StatusCode == 500 && storageMissingPattern.MatchString(firstLine(apiErr.Message))
}

// IsFileNameRefused reports PVE's 400 for a file name whose extension does
// not fit the content type (W44): "wrong file extension" or "invalid
// filename or wrong extension" on the parameter "filename".
func IsFileNameRefused(err error) bool {
	apiErr, ok := AsError(err)
	if !ok || apiErr.StatusCode != http.StatusBadRequest {
		return false
	}
	text := apiErr.Errors["filename"]
	return strings.Contains(text, "wrong extension") || strings.Contains(text, "wrong file extension")
}
