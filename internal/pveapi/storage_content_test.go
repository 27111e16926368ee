package pveapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const uploadUPID = "UPID:pve1:00001234:00005678:65000000:imgcopy::root@pam:"

// patternData is deterministic content: byte i is i mod 251.
func patternData(offset, n int64) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte((offset + int64(i)) % 251)
	}
	return b
}

// gatedSource yields the file in two halves and holds the second back
// until the server says it received the first, so an upload completes only
// if the client sends the body while it reads it.
type gatedSource struct {
	first, rest []byte
	gate        <-chan struct{}
	served      int
}

func (g *gatedSource) Read(p []byte) (int, error) {
	if g.served < len(g.first) {
		n := copy(p, g.first[g.served:])
		g.served += n
		return n, nil
	}
	if g.served == len(g.first) {
		select {
		case <-g.gate:
		case <-time.After(20 * time.Second):
			return 0, errors.New("the server never saw the first half: the body is not streamed")
		}
	}
	offset := g.served - len(g.first)
	if offset >= len(g.rest) {
		return 0, io.EOF
	}
	n := copy(p, g.rest[offset:])
	g.served += n
	return n, nil
}

func (g *gatedSource) Close() error { return nil }

// receivedUpload is what a fake upload endpoint saw.
type receivedUpload struct {
	contentLength int64
	chunked       bool
	bodyBytes     int64
	fields        []string // part names in order
	values        map[string]string
	fileName      string
	fileSHA256    string
	fileSize      int64
}

// uploadHandler parses the multipart body as it streams in; after
// firstHalf bytes of file data it closes gate.
func uploadHandler(t *testing.T, gate chan struct{}, firstHalf int64, got *receivedUpload) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		got.contentLength = r.ContentLength
		got.chunked = len(r.TransferEncoding) > 0
		counted := &countingReader{r: r.Body}
		_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil {
			t.Errorf("content type: %v", err)
			return
		}
		mr := multipart.NewReader(counted, params["boundary"])
		got.values = map[string]string{}
		for {
			part, err := mr.NextPart()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Errorf("next part: %v", err)
				return
			}
			got.fields = append(got.fields, part.FormName())
			if part.FileName() == "" {
				v, _ := io.ReadAll(part)
				got.values[part.FormName()] = string(v)
				continue
			}
			got.fileName = part.FileName()
			h := sha256.New()
			if gate != nil {
				n, err := io.CopyN(h, part, firstHalf)
				if err != nil || n != firstHalf {
					t.Errorf("first half: %d %v", n, err)
					return
				}
				got.fileSize += n
				close(gate)
			}
			n, err := io.Copy(h, part)
			if err != nil {
				t.Errorf("file data: %v", err)
				return
			}
			got.fileSize += n
			got.fileSHA256 = hex.EncodeToString(h.Sum(nil))
		}
		_, _ = io.Copy(io.Discard, counted)
		got.bodyBytes = counted.n
		writeData(w, uploadUPID)
	}
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// W45: the upload streams. The source holds back its second half until the
// server has received the first, so a client that read the file into
// memory before sending would never finish. The body has an exact
// Content-Length (no chunking) and the parts come in pveproxy's order.
func TestUploadStreamsWithExactContentLengthW45(t *testing.T) {
	t.Parallel()
	const half = 4 << 20
	f := newFakePVE(t)
	gate := make(chan struct{})
	got := &receivedUpload{}
	f.handle("POST /nodes/{node}/storage/{storage}/upload", uploadHandler(t, gate, half, got))
	c := f.client()

	first, rest := patternData(0, half), patternData(half, half)
	opens := &atomic.Int32{}
	upid, err := c.Upload(context.Background(), UploadRequest{
		Node: "pve1", Storage: "local", Content: ContentISO, FileName: "seed.iso",
		ChecksumAlgorithm: "sha256", Checksum: "abc123",
		Size: 2 * half,
		Open: func() (io.ReadCloser, error) {
			opens.Add(1)
			return &gatedSource{first: first, rest: rest, gate: gate}, nil
		},
	})
	if err != nil {
		t.Fatalf("Upload: %v", err)
	}
	if upid != uploadUPID {
		t.Errorf("upid %q", upid)
	}
	whole := sha256.Sum256(append(append([]byte{}, first...), rest...))
	if got.chunked || got.contentLength <= 2*half || got.contentLength != got.bodyBytes {
		t.Errorf("W45: Content-Length %d, body %d bytes, chunked %v", got.contentLength, got.bodyBytes, got.chunked)
	}
	if got.fileSize != 2*half || got.fileSHA256 != hex.EncodeToString(whole[:]) || got.fileName != "seed.iso" {
		t.Errorf("file %q: %d bytes, sha256 %s", got.fileName, got.fileSize, got.fileSHA256)
	}
	if strings.Join(got.fields, ",") != "content,checksum-algorithm,checksum,filename" ||
		got.values["content"] != "iso" || got.values["checksum"] != "abc123" || got.values["checksum-algorithm"] != "sha256" {
		t.Errorf("parts %v values %v", got.fields, got.values)
	}
	if n := opens.Load(); n != 1 {
		t.Errorf("source opened %d times, want 1", n)
	}
}

// W45: an upload the server may have received is not sent again, however
// the connection ended; the caller gets a transport error.
func TestUploadIsNotResentOnceItMayHaveReachedPVE(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	f.handle("POST /nodes/{node}/storage/{storage}/upload", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.CopyN(io.Discard, r.Body, 1024)
		dropConnection(w)
	})
	c := f.client()
	var opens atomic.Int32
	data := patternData(0, 1<<20)
	_, err := c.Upload(context.Background(), UploadRequest{
		Node: "pve1", Storage: "local", Content: ContentImport, FileName: "disk.qcow2", Size: int64(len(data)),
		Open: func() (io.ReadCloser, error) {
			opens.Add(1)
			return io.NopCloser(bytes.NewReader(data)), nil
		},
	})
	var transportErr *TransportError
	if !errors.As(err, &transportErr) || transportErr.NotSent {
		t.Fatalf("want a sent *TransportError, got %v", err)
	}
	if n := f.count("POST /nodes/{node}/storage/{storage}/upload"); n != 1 {
		t.Errorf("upload reached the server %d times, want 1", n)
	}
	if n := opens.Load(); n != 1 {
		t.Errorf("source opened %d times, want 1", n)
	}
}

// An upload whose connection was refused never left: it is retried, with
// the source opened afresh only for the attempt that sends it.
func TestUploadIsRetriedWhenNotSent(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	got := &receivedUpload{}
	f.handle("POST /nodes/{node}/storage/{storage}/upload", uploadHandler(t, nil, 0, got))
	dialer := &refusingDialer{failures: 2}
	c := f.client(func(cfg *Config) {
		cfg.HTTPClient = &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext}}
	})
	var opens atomic.Int32
	data := []byte("#cloud-config\n")
	upid, err := c.Upload(context.Background(), UploadRequest{
		Node: "pve1", Storage: "local", Content: ContentISO, FileName: "seed.iso", Size: int64(len(data)),
		Open: func() (io.ReadCloser, error) {
			opens.Add(1)
			return io.NopCloser(bytes.NewReader(data)), nil
		},
	})
	if err != nil || upid != uploadUPID {
		t.Fatalf("Upload = %q, %v", upid, err)
	}
	if got.fileSize != int64(len(data)) || opens.Load() != 1 || dialer.dials.Load() != 3 {
		t.Errorf("file %d bytes, opens %d, dials %d", got.fileSize, opens.Load(), dialer.dials.Load())
	}
}

// A source that shrank since it was measured fails the upload rather than
// sending a body shorter than its Content-Length.
func TestUploadOfAShrunkSourceFails(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	f.handle("POST /nodes/{node}/storage/{storage}/upload", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		writeData(w, uploadUPID)
	})
	c := f.client()
	_, err := c.Upload(context.Background(), UploadRequest{
		Node: "pve1", Storage: "local", Content: ContentISO, FileName: "seed.iso", Size: 100,
		Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("short")), nil },
	})
	if !errors.Is(err, ErrSourceChanged) {
		t.Fatalf("want ErrSourceChanged, got %v", err)
	}
}

func TestDownloadURLRequestW44(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	rec := &recorder{}
	f.handle("POST /nodes/{node}/storage/{storage}/download-url", func(w http.ResponseWriter, r *http.Request) {
		rec.record("download", r)
		writeData(w, uploadUPID)
	})
	c := f.client()
	no := false
	upid, err := c.DownloadURL(context.Background(), DownloadURLRequest{
		Node: "pve1", Storage: "local", Content: ContentVZTmpl, FileName: "debian.tar.zst",
		URL: "https://example.org/debian.tar.zst", Checksum: "abc", ChecksumAlgorithm: "sha512", VerifyCertificates: &no,
	})
	if err != nil || upid != uploadUPID {
		t.Fatalf("DownloadURL = %q, %v", upid, err)
	}
	want := "checksum=abc&checksum-algorithm=sha512&content=vztmpl&filename=debian.tar.zst&url=https%3A%2F%2Fexample.org%2Fdebian.tar.zst&verify-certificates=0"
	if got := rec.get("download").Encode(); got != want {
		t.Errorf("W44 form = %s", got)
	}
	if _, err := c.DownloadURL(context.Background(), DownloadURLRequest{Node: "pve1", Storage: "local", Content: "iso", FileName: "a.iso", URL: "http://h/a.iso"}); err != nil {
		t.Fatal(err)
	}
	if got := rec.get("download"); got.Has("checksum") || got.Has("verify-certificates") {
		t.Errorf("unset options were sent: %v", got)
	}
}

func TestDownloadURLWrongExtensionIsRecognisedW44(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	f.handle("POST /nodes/{node}/storage/{storage}/download-url", func(w http.ResponseWriter, _ *http.Request) {
		writeParamError(w, map[string]string{"filename": "invalid filename or wrong extension"})
	})
	_, err := f.client().DownloadURL(context.Background(), DownloadURLRequest{Node: "pve1", Storage: "local", Content: "import", FileName: "a.img", URL: "http://h/a"})
	if !IsFileNameRefused(err) {
		t.Errorf("W44: %v is not recognised", err)
	}
}

// W46: the volume id is path-escaped in DELETE .../content/{volume}.
func TestDeleteVolumeEscapesTheVolumeIDW46(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	var mu sync.Mutex
	var escaped string
	f.handle("DELETE /nodes/{node}/storage/{storage}/content/{volume...}", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		escaped = r.URL.EscapedPath()
		mu.Unlock()
		writeData(w, uploadUPID)
	})
	upid, err := f.client().DeleteVolume(context.Background(), "pve1", "local", "local:iso/seed.iso")
	if err != nil || upid != uploadUPID {
		t.Fatalf("DeleteVolume = %q, %v", upid, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if escaped != "/api2/json/nodes/pve1/storage/local/content/local:iso%2Fseed.iso" {
		t.Errorf("W46: path %s", escaped)
	}
}

func TestFindVolumeAndStorageMissing(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	rec := &recorder{}
	f.handle("GET /nodes/{node}/storage/{storage}/content", func(w http.ResponseWriter, r *http.Request) {
		rec.record("content", r)
		if r.PathValue("storage") == "gone" {
			writePVEError(w, http.StatusInternalServerError, "storage 'gone' does not exist")
			return
		}
		writeData(w, []map[string]any{{"volid": "local:iso/a.iso", "content": "iso", "format": "iso", "size": 10, "ctime": 1700000000}})
	})
	c := f.client()
	ctx := context.Background()
	v, err := c.FindVolume(ctx, "pve1", "local", ContentISO, "local:iso/a.iso")
	if err != nil || v == nil || v.Size != 10 || v.CTime != 1700000000 || rec.get("content").Get("content") != "iso" {
		t.Fatalf("FindVolume = %+v, %v", v, err)
	}
	if v, err := c.FindVolume(ctx, "pve1", "local", ContentISO, "local:iso/b.iso"); v != nil || err != nil {
		t.Errorf("absent volume: %+v, %v", v, err)
	}
	_, err = c.FindVolume(ctx, "pve1", "gone", ContentISO, "gone:iso/a.iso")
	if !IsStorageMissing(err) {
		t.Errorf("missing storage not recognised: %v", err)
	}
	if f.count("GET /nodes/{node}/storage/{storage}/content") != 3 {
		t.Errorf("requests %d, want one per lookup", f.count("GET /nodes/{node}/storage/{storage}/content"))
	}
}

func TestVolumeIDAndInfo(t *testing.T) {
	t.Parallel()
	if got := VolumeID("local", ContentImport, "noble.qcow2"); got != "local:import/noble.qcow2" {
		t.Errorf("VolumeID = %s", got)
	}
	f := newFakePVE(t)
	f.handle("GET /nodes/{node}/storage/{storage}/content/{volume...}", func(w http.ResponseWriter, _ *http.Request) {
		writeData(w, map[string]any{"path": "/var/lib/vz/import/noble.qcow2", "size": "600", "used": 600, "format": "qcow2"})
	})
	info, err := f.client().VolumeInfo(context.Background(), "pve1", "local", "local:import/noble.qcow2")
	if err != nil || info.Size != 600 || info.Format != "qcow2" || info.Path != "/var/lib/vz/import/noble.qcow2" {
		t.Errorf("VolumeInfo = %+v, %v", info, err)
	}
}
