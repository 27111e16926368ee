package pveapi

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const testRequestTimeout = 200 * time.Millisecond

// stallAfterHeaders sends the status line and headers of a 200 with a body
// it never sends, then waits until the client hangs up: a server (or a
// proxy in front of it) that stalls mid-answer.
func stallAfterHeaders(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	w.Header().Set("Content-Length", "100")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(`{"data":`))
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

func timeoutClient(f *fakePVE, mutate ...func(*Config)) *Client {
	return f.client(append([]func(*Config){func(cfg *Config) { cfg.RequestTimeout = testRequestTimeout }}, mutate...)...)
}

// A read whose answer stalls after the headers is cut off by the request
// timeout and sent again; the second answer counts.
func TestStalledReadIsRetried(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	var calls atomic.Int32
	f.handle("GET /pools", func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			stallAfterHeaders(w, r)
			return
		}
		writeData(w, []map[string]any{{"poolid": "p1"}})
	})
	c := timeoutClient(f)
	var out []map[string]any
	if err := c.Get(context.Background(), "/pools", nil, &out); err != nil {
		t.Fatalf("Get: %v", err)
	}
	if len(out) != 1 || f.count("GET /pools") != 2 {
		t.Errorf("got %v after %d requests, want one pool after 2", out, f.count("GET /pools"))
	}
}

// A read that stalls on every attempt ends, after the retries, with an
// error naming the request and the timeout, instead of hanging.
func TestStalledReadEndsWithTimeoutError(t *testing.T) {
	t.Parallel()
	for name, stall := range map[string]http.HandlerFunc{
		"after headers": stallAfterHeaders,
		"before headers": func(_ http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFakePVE(t)
			f.handle("GET /nodes/{node}/qemu/{vmid}/status/current", stall)
			c := timeoutClient(f, func(cfg *Config) { cfg.RetryMax = 2 })
			started := time.Now()
			err := c.Get(context.Background(), "/nodes/pve1/qemu/100/status/current", nil, nil)
			if !IsRequestTimeout(err) {
				t.Fatalf("want a request timeout, got %v", err)
			}
			if elapsed := time.Since(started); elapsed > 10*testRequestTimeout {
				t.Errorf("took %s", elapsed)
			}
			msg := err.Error()
			if !strings.Contains(msg, "GET /nodes/pve1/qemu/100/status/current") || !strings.Contains(msg, "request timeout of 200ms") {
				t.Errorf("error should name the request and the timeout: %s", msg)
			}
			if n := f.count("GET /nodes/{node}/qemu/{vmid}/status/current"); n != 3 {
				t.Errorf("%d attempts, want 3", n)
			}
			var transport *TransportError
			if !errors.As(err, &transport) || errors.Is(err, context.Canceled) {
				t.Errorf("a timeout is a transport error, not a cancelled run: %#v", err)
			}
		})
	}
}

// A write whose answer stalls may have been executed: it is never sent
// again, and the caller gets a lost answer (not "not sent").
func TestStalledWriteIsNotResent(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	f.handle("POST /nodes/{node}/qemu", stallAfterHeaders)
	c := timeoutClient(f)
	err := c.Post(context.Background(), "/nodes/pve1/qemu", nil, nil)
	var transport *TransportError
	if !IsRequestTimeout(err) || !errors.As(err, &transport) || transport.NotSent {
		t.Fatalf("want a timed-out write that may have been sent, got %#v", err)
	}
	if n := f.count("POST /nodes/{node}/qemu"); n != 1 {
		t.Errorf("the write was sent %d times", n)
	}
}

// An upload's clock starts when its body is sent: sending a file for
// longer than the request timeout is no stall.
func TestUploadTimeoutStartsAfterTheBody(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	f.handle("POST /nodes/{node}/storage/{storage}/upload", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		writeData(w, uploadUPID)
	})
	c := timeoutClient(f)
	const size = 4
	upid, err := c.Upload(context.Background(), UploadRequest{
		Node: "pve1", Storage: "local", Content: ContentISO, FileName: "slow.iso", Size: size,
		Open: func() (io.ReadCloser, error) {
			return io.NopCloser(&slowReader{r: bytes.NewReader(make([]byte, size)), pause: testRequestTimeout}), nil
		},
	})
	if err != nil || upid != uploadUPID {
		t.Fatalf("Upload = %q, %v", upid, err)
	}
}

// slowReader hands out one byte per pause.
type slowReader struct {
	r     io.Reader
	pause time.Duration
}

func (s *slowReader) Read(p []byte) (int, error) {
	time.Sleep(s.pause)
	return s.r.Read(p[:1])
}
