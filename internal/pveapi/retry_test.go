package pveapi

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// A POST whose answer was lost may have been executed (a clone may be
// running): it must not be sent again (W13). The caller gets an error.
func TestPostWithLostResponseIsNotResent(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	f.handle("POST /nodes/{node}/qemu/{vmid}/clone", func(w http.ResponseWriter, _ *http.Request) { dropConnection(w) })
	c := f.client()

	err := c.Post(context.Background(), "/nodes/pve1/qemu/9000/clone", map[string][]string{"newid": {"101"}}, nil)
	var transportErr *TransportError
	if !errors.As(err, &transportErr) {
		t.Fatalf("want *TransportError, got %v", err)
	}
	if transportErr.NotSent {
		t.Error("a request the server received is reported as not sent")
	}
	if n := f.count("POST /nodes/{node}/qemu/{vmid}/clone"); n != 1 {
		t.Errorf("server handled the POST %d times, want 1", n)
	}
}

func TestWritesWithLostResponseAreNotResent(t *testing.T) {
	t.Parallel()
	for _, method := range []string{http.MethodPut, http.MethodDelete} {
		f := newFakePVE(t)
		f.handle(method+" /nodes/{node}/qemu/{vmid}", func(w http.ResponseWriter, _ *http.Request) { dropConnection(w) })
		c := f.client()
		var err error
		if method == http.MethodPut {
			err = c.Put(context.Background(), "/nodes/pve1/qemu/100", nil, nil)
		} else {
			err = c.Delete(context.Background(), "/nodes/pve1/qemu/100", nil, nil)
		}
		if err == nil {
			t.Errorf("%s: want an error", method)
		}
		if n := f.count(method + " /nodes/{node}/qemu/{vmid}"); n != 1 {
			t.Errorf("%s handled %d times, want 1", method, n)
		}
	}
}

// refusingDialer fails the first `failures` dials with ECONNREFUSED, then
// dials for real.
type refusingDialer struct {
	failures int32
	dials    atomic.Int32
}

func (d *refusingDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if d.dials.Add(1) <= d.failures {
		return nil, &net.OpError{Op: "dial", Net: network, Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	}
	var real net.Dialer
	return real.DialContext(ctx, network, addr)
}

// A write whose connection was refused never reached PVE: retrying it is
// safe and done.
func TestPostWithRefusedConnectionIsRetried(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	f.handle("POST /pools", func(w http.ResponseWriter, _ *http.Request) { writeData(w, nil) })
	dialer := &refusingDialer{failures: 2}
	c := f.client(func(cfg *Config) {
		cfg.HTTPClient = &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext}}
	})
	if err := c.CreatePool(context.Background(), "prod", ""); err != nil {
		t.Fatalf("CreatePool after refused dials: %v", err)
	}
	if dialer.dials.Load() != 3 || f.count("POST /pools") != 1 {
		t.Errorf("dials = %d, server hits = %d; want 3 and 1", dialer.dials.Load(), f.count("POST /pools"))
	}
}

func TestPostToClosedPortIsRetriedThenFails(t *testing.T) {
	t.Parallel()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := listener.Addr().String()
	_ = listener.Close()

	var dials atomic.Int32
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
	c, err := New(Config{
		Endpoint:     "http://" + addr,
		APIToken:     testToken,
		HTTPClient:   &http.Client{Transport: &http.Transport{DialContext: dial}},
		RetryWaitMin: time.Millisecond, RetryWaitMax: time.Millisecond, RetryMax: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	err = c.Post(context.Background(), "/pools", map[string][]string{"poolid": {"x"}}, nil)
	var transportErr *TransportError
	if !errors.As(err, &transportErr) || !transportErr.NotSent {
		t.Fatalf("want *TransportError with NotSent, got %#v", err)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("error should wrap ECONNREFUSED: %v", err)
	}
	if dials.Load() != 3 {
		t.Errorf("dials = %d, want 3 (first attempt + RetryMax 2)", dials.Load())
	}
}

func TestGetRetriesOn503ThenSucceeds(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	f.handle("GET /version", func(w http.ResponseWriter, _ *http.Request) {
		if f.count("GET /version") <= 2 {
			writePVEOldError(w, http.StatusServiceUnavailable, "Service Unavailable")
			return
		}
		writeData(w, map[string]string{"version": "9.1.1"})
	})
	v, err := f.client().Version(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if v.Version != "9.1.1" || f.count("GET /version") != 3 {
		t.Errorf("version %q after %d hits, want 9.1.1 after 3", v.Version, f.count("GET /version"))
	}
}

// 595/596/599 are pveproxy's answers when it cannot reach the node that
// owns the resource: transient for reads.
func TestGetRetriesGatewayAndProxyStatuses(t *testing.T) {
	t.Parallel()
	for _, status := range []int{502, 503, 504, 595, 596, 599} {
		f := newFakePVE(t)
		f.handle("GET /nodes", func(w http.ResponseWriter, _ *http.Request) {
			if f.count("GET /nodes") == 1 {
				writePVEOldError(w, status, "Connection refused")
				return
			}
			writeData(w, []map[string]string{{"node": "pve1", "status": "online"}})
		})
		nodes, err := f.client().Nodes(context.Background())
		if err != nil || len(nodes) != 1 {
			t.Errorf("status %d: nodes %v err %v", status, nodes, err)
		}
		if n := f.count("GET /nodes"); n != 2 {
			t.Errorf("status %d: %d hits, want 2", status, n)
		}
	}
}

func TestGetDoesNotRetry500(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	f.handle("GET /nodes/{node}/qemu/{vmid}/config", func(w http.ResponseWriter, _ *http.Request) {
		writePVEError(w, 500, "Configuration file 'nodes/pve1/qemu-server/100.conf' does not exist")
	})
	err := f.client().Get(context.Background(), "/nodes/pve1/qemu/100/config", nil, nil)
	if !IsNotFound(err) {
		t.Errorf("want NotFound, got %v", err)
	}
	if n := f.count("GET /nodes/{node}/qemu/{vmid}/config"); n != 1 {
		t.Errorf("%d hits, want 1", n)
	}
}

func TestWritesDoNotRetryOnAnyStatus(t *testing.T) {
	t.Parallel()
	for _, status := range []int{502, 503, 504, 595, 596, 599} {
		f := newFakePVE(t)
		f.handle("POST /nodes/{node}/qemu", func(w http.ResponseWriter, _ *http.Request) {
			writePVEOldError(w, status, "proxy error")
		})
		err := f.client().Post(context.Background(), "/nodes/pve1/qemu", nil, nil)
		apiErr, ok := AsError(err)
		if !ok || apiErr.StatusCode != status {
			t.Errorf("status %d: got %v", status, err)
		}
		if n := f.count("POST /nodes/{node}/qemu"); n != 1 {
			t.Errorf("status %d: POST sent %d times, want 1", status, n)
		}
	}
}

func TestGetRetriesExhaustedReturnLastStatus(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	f.handle("GET /version", func(w http.ResponseWriter, _ *http.Request) {
		writePVEOldError(w, 596, "Connection timed out")
	})
	c := f.client(func(cfg *Config) { cfg.RetryMax = 2 })
	_, err := c.Version(context.Background())
	apiErr, ok := AsError(err)
	if !ok || apiErr.StatusCode != 596 || apiErr.Message != "Connection timed out" {
		t.Fatalf("want *Error 596 Connection timed out, got %v", err)
	}
	if n := f.count("GET /version"); n != 3 {
		t.Errorf("%d hits, want 3", n)
	}
}

func TestGetRetriesDroppedConnection(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	f.handle("GET /cluster/resources", func(w http.ResponseWriter, _ *http.Request) {
		if f.count("GET /cluster/resources") == 1 {
			dropConnection(w)
			return
		}
		writeData(w, []map[string]any{})
	})
	if _, err := f.client().ClusterResources(context.Background(), "vm"); err != nil {
		t.Fatal(err)
	}
	if n := f.count("GET /cluster/resources"); n != 2 {
		t.Errorf("%d hits, want 2", n)
	}
}

func TestCancelledContextStopsRetries(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.handle("GET /version", func(w http.ResponseWriter, _ *http.Request) {
		cancel()
		writePVEOldError(w, http.StatusServiceUnavailable, "busy")
	})
	_, err := f.client().Version(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("want context.Canceled, got %v", err)
	}
	if n := f.count("GET /version"); n != 1 {
		t.Errorf("%d hits after cancel, want 1", n)
	}
}

func TestBackoffIsCappedExponentialWithJitter(t *testing.T) {
	t.Parallel()
	minWait, maxWait := 100*time.Millisecond, time.Second
	for attempt := 0; attempt < 70; attempt++ {
		ceiling := maxWait
		if attempt < 4 {
			ceiling = minWait << attempt
		}
		for range 20 {
			got := backoff(minWait, maxWait, attempt, nil)
			if got < ceiling/2 || got > ceiling {
				t.Fatalf("attempt %d: wait %v outside [%v, %v]", attempt, got, ceiling/2, ceiling)
			}
		}
	}
}

func TestRetryPolicyClassification(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dialErr := &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}
	readErr := &net.OpError{Op: "read", Err: syscall.ECONNRESET}
	cases := []struct {
		method string
		err    error
		want   bool
	}{
		{http.MethodGet, readErr, true},
		{http.MethodGet, dialErr, true},
		{http.MethodPost, dialErr, true},
		{http.MethodPost, &notSentError{err: errors.New("tls: handshake failure")}, true},
		{http.MethodPost, readErr, false},
		{http.MethodPut, errors.New("net/http: timeout awaiting response headers"), false},
		{http.MethodDelete, readErr, false},
	}
	for _, tc := range cases {
		got, err := retryPolicy(tc.method)(ctx, nil, tc.err)
		if err != nil || got != tc.want {
			t.Errorf("%s %v: retry=%t err=%v, want %t", tc.method, tc.err, got, err, tc.want)
		}
	}
}
