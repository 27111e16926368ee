package pvesim

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// fetchTimeout bounds one download-url fetch; the files tests serve are
// small and local.
const fetchTimeout = 2 * time.Minute

// downloadJob is one download-url request after its synchronous checks.
type downloadJob struct {
	st        *Storage
	node      string
	content   string
	name      string
	url       string
	dest      string
	algorithm string
	checksum  string
	// existing is the file already at dest when the request came, if any.
	existing *Volume
	blob     *fileBlob
	fetchErr *fetchError
}

// fetchError is a failed wget: its exit code and why.
type fetchError struct {
	exitCode int
	reason   string
}

// downloadURL is POST .../download-url (W44). Storage, content type and
// file name are checked before the task; the fetch, the checksum (W44:
// checksum and checksum-algorithm) and the file's format are checked in
// it, and a failure leaves no file. An existing file is never overwritten:
// with a checksum it matches, the task succeeds without downloading; else
// the task fails.
//
// The simulator fetches only from loopback addresses, over plain HTTP or
// HTTPS (verify-certificates honoured), without holding the model lock.
// pve-storage src/PVE/API2/Storage/Status.pm download_url (permissions:
// Datastore.AllocateTemplate, then Sys.Audit+Sys.Modify on / or
// Sys.AccessNetwork on the node, raised bare; the storage and content checks).
func (s *Sim) downloadURL(c *call) (any, error) {
	node := c.str("node")
	if err := c.check("/storage/"+c.str("storage"), false, "Datastore.AllocateTemplate"); err != nil {
		return nil, err
	}
	if !c.can("/", false, "Sys.Audit", "Sys.Modify") && !c.can("/nodes/"+node, false, "Sys.AccessNetwork") {
		return nil, permError("")
	}
	st, err := usableStorage(c.cluster, c.str("storage"), node)
	if err != nil {
		return nil, err
	}
	if !st.fileStorage() {
		return nil, errorf("can't upload to storage type '%s', not a file based storage!", st.Type)
	}
	content := c.str("content")
	if !st.hasContent(content) {
		return nil, errorf("storage '%s' is not configured for content-type '%s'", st.ID, content)
	}
	name, err := checkTemplateName(content, c.str("filename"))
	if err != nil {
		return nil, err
	}
	job := &downloadJob{
		st: st, node: node, content: content, name: name, url: c.str("url"),
		dest:      contentPath(st, content, name),
		algorithm: c.str("checksum-algorithm"), checksum: c.str("checksum"),
		existing: c.cluster.Volume(node, contentVolID(st.ID, content, name)),
	}
	compression := c.str("compression")
	if job.existing == nil && compression == "" {
		verify := c.str("verify-certificates") != "0"
		s.withoutModelLock(func() { job.blob, job.fetchErr = fetchLoopback(job.url, verify) })
	}
	// The worker checks the decompression and, as download_file_from_url
	// starts, the file already at the destination; the fetched file is in
	// place when it ends (pve-storage src/PVE/API2/Storage/Status.pm
	// download_url $worker).
	cl := c.cluster
	done := false
	t := s.startWorker(node, "download", name, c.user, workerSpec{
		begin: func(t *Task) error {
			if compression != "" {
				if content != "iso" {
					return errorf("decompression not supported for %s", content)
				}
				return errorf("decompression with '%s' is not simulated", compression) // not simulated: decompression
			}
			t.Log("downloading %s to %s", job.url, job.dest)
			var err error
			existing := cl.Volume(node, contentVolID(st.ID, content, name))
			done, err = keepExistingDownload(t, existing, job.algorithm, job.checksum, job.dest)
			return err
		},
		work: func(t *Task) error {
			if done {
				return nil
			}
			return s.finishDownload(cl, t, job)
		},
	})
	return t.UPID, nil
}

// keepExistingDownload is download_file_from_url's look at the
// destination before it fetches: without a checksum an existing file is
// refused; with one it is kept when it matches (done) and refused when
// not.
// pve-common src/PVE/Tools.pm download_file_from_url (-f $dest)
func keepExistingDownload(t *Task, existing *Volume, algorithm, checksum, dest string) (bool, error) {
	if existing == nil {
		return false, nil
	}
	if algorithm == "" {
		return false, errorf("refusing to override existing file '%s'", dest)
	}
	t.Log("calculating checksum of existing file...")
	got := existing.Digests[algorithm]
	if !strings.EqualFold(got, checksum) {
		return false, errorf("checksum mismatch: got '%s' != expect '%s', aborting", got, checksum)
	}
	t.Log("OK, got correct file already, no need to download")
	return true, nil
}

// withoutModelLock runs fn with the model unlocked, as a handler that
// waits on the network must not stall every other request. The handler
// runs with the lock held and gets it back before it goes on.
func (s *Sim) withoutModelLock(fn func()) {
	s.mu.Unlock()
	defer s.mu.Lock()
	fn()
}

// finishDownload is download_file_from_url inside the worker, after its
// look at the destination (keepExistingDownload).
// pve-common src/PVE/Tools.pm download_file_from_url (run_command errmsg
// "download failed"); the exit codes are wget's (inferred: 3 file I/O,
// 4 network, 5 TLS verification, 8 an error answer, as wget documents them).
func (s *Sim) finishDownload(cl *Cluster, t *Task, job *downloadJob) error {
	tmp := fmt.Sprintf("%s.tmp.%d", job.dest, t.PID)
	if job.fetchErr != nil {
		t.Log("%s", job.fetchErr.reason)
		return errorf("download failed: command 'wget --progress=dot:giga -O %s %s' failed: exit code %d",
			tmp, job.url, job.fetchErr.exitCode)
	}
	if free := job.st.Capacity - cl.used(job.st, job.node); job.blob.size > free {
		t.Log("%s: No space left on device", tmp)
		return errorf("download failed: command 'wget --progress=dot:giga -O %s %s' failed: exit code 3", tmp, job.url)
	}
	if job.algorithm != "" {
		t.Log("calculating checksum...")
		if err := job.blob.checkChecksum(job.algorithm, job.checksum); err != nil {
			return err
		}
		t.Log("OK, checksum verified")
	}
	if err := job.blob.checkImage(job.content, templateFormat(job.content, job.name), tmp); err != nil {
		return err
	}
	if err := s.storeFile(cl, job.st, job.node, job.content, job.name, job.blob); err != nil {
		return err
	}
	t.Log("download of '%s' to '%s' finished", job.url, job.dest)
	return nil
}

// errNotLoopback refuses a connection to anything but the local host.
// not simulated: fetches from other hosts
var errNotLoopback = errors.New("pvesim downloads only from loopback addresses (127.0.0.0/8, ::1)")

// fetchLoopback downloads rawURL as wget would, into a blob. Only loopback
// hosts are reachable, redirects included; failures carry wget's exit
// codes (4 network, 5 TLS verification, 8 an error answer).
func fetchLoopback(rawURL string, verify bool) (*fileBlob, *fetchError) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return nil, &fetchError{exitCode: 1, reason: fmt.Sprintf("%s: Invalid URL", rawURL)}
	}
	client := loopbackClient(verify)
	ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, &fetchError{exitCode: 1, reason: err.Error()}
	}
	resp, err := client.Do(req)
	if err != nil {
		var certErr *tls.CertificateVerificationError
		if errors.As(err, &certErr) {
			return nil, &fetchError{exitCode: 5, reason: "ERROR: cannot verify certificate: " + certErr.Error()}
		}
		return nil, &fetchError{exitCode: 4, reason: err.Error()}
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, &fetchError{exitCode: 8, reason: "ERROR " + resp.Status + "."}
	}
	blob := newFileBlob()
	if _, err := io.Copy(blob, resp.Body); err != nil {
		return nil, &fetchError{exitCode: 4, reason: "read error: " + err.Error()}
	}
	blob.finish()
	return blob, nil
}

// loopbackClient is the HTTP client of the simulated node's outgoing
// requests: it reaches loopback hosts only (redirects included) and
// verifies certificates unless told not to.
func loopbackClient(verify bool) *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	return &http.Client{
		Timeout: fetchTimeout,
		Transport: &http.Transport{
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				host, _, err := net.SplitHostPort(addr)
				if err != nil {
					return nil, err
				}
				if !isLoopback(host) {
					return nil, fmt.Errorf("%w, not '%s'", errNotLoopback, host)
				}
				return dialer.DialContext(ctx, network, addr)
			},
			TLSClientConfig: &tls.Config{
				InsecureSkipVerify: !verify, // #nosec G402 -- verify-certificates=0 asks for exactly this
				MinVersion:         tls.VersionTLS12,
			},
			Proxy: nil,
		},
	}
}

// isLoopback accepts "localhost" and loopback IP literals; other names are
// not resolved, so they never reach a remote host.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}
