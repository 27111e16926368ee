package pvesim

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	testToken     = "root@pam!test=0b5e8f2c-7d1a-4c39-9e6f-3a2b1c0d9e8f"
	testTokenUser = "root@pam!test"
	testPassword  = "alice@pve=correct horse"
)

// fakeClock is a settable clock for tickets and tasks.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 5, 20, 10, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// env is a simulator served over plain HTTP with a client for it.
type env struct {
	sim    *Sim
	srv    *Server
	client *http.Client
	auth   func(*http.Request)
}

func newEnv(t *testing.T, opts Options) *env {
	t.Helper()
	if opts.Tokens == nil {
		opts.Tokens = []string{testToken}
	}
	sim, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	srv, err := sim.StartHTTP("127.0.0.1:0")
	if err != nil {
		t.Fatalf("StartHTTP: %v", err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return &env{
		sim:    sim,
		srv:    srv,
		client: &http.Client{Timeout: 10 * time.Second},
		auth: func(r *http.Request) {
			r.Header.Set("Authorization", "PVEAPIToken="+testToken)
		},
	}
}

// answer is a decoded response.
type answer struct {
	status  int
	reason  string
	header  http.Header
	body    []byte
	data    json.RawMessage
	message string
	errors  map[string]string
	total   int
	proto   int
	closed  bool // the server asked to close the connection
}

func (a *answer) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(a.data, v); err != nil {
		t.Fatalf("decode data %s: %v", a.data, err)
	}
}

// call sends a request; form goes in the body for POST/PUT and in the query
// otherwise. Extra header edits run after the default auth.
func (e *env) call(t *testing.T, method, path string, form url.Values, edits ...func(*http.Request)) *answer {
	t.Helper()
	a, err := e.try(method, path, form, edits...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// try is call for goroutines: it reports failures instead of stopping the
// test.
func (e *env) try(method, path string, form url.Values, edits ...func(*http.Request)) (*answer, error) {
	target := e.srv.URL + apiPrefix + path
	var body io.Reader
	if method == http.MethodPost || method == http.MethodPut {
		body = strings.NewReader(form.Encode())
	} else if len(form) > 0 {
		target += "?" + form.Encode()
	}
	req, err := http.NewRequestWithContext(context.Background(), method, target, body)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", formType)
	}
	e.auth(req)
	for _, edit := range edits {
		edit(req)
	}
	return e.do(req)
}

func (e *env) send(t *testing.T, req *http.Request) *answer {
	t.Helper()
	a, err := e.do(req)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func (e *env) do(req *http.Request) (*answer, error) {
	resp, err := e.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", req.Method, req.URL.Path, err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("read body: %w", err)
	}
	a := &answer{
		status: resp.StatusCode,
		reason: strings.TrimPrefix(resp.Status, strconv.Itoa(resp.StatusCode)+" "),
		header: resp.Header,
		body:   raw,
		proto:  resp.ProtoMajor,
		closed: resp.Close,
	}
	// pveproxy's own errors carry their text as a plain body, without a
	// Content-Type (pve-http-server src/PVE/APIServer/AnyEvent.pm error).
	if len(raw) > 0 && resp.Header.Get("Content-Type") != "" {
		var env struct {
			Data    json.RawMessage   `json:"data"`
			Message string            `json:"message"`
			Errors  map[string]string `json:"errors"`
			Total   int               `json:"total"`
		}
		if err := json.Unmarshal(raw, &env); err != nil {
			return nil, fmt.Errorf("%s %s: body is not JSON: %q", req.Method, req.URL.Path, raw)
		}
		a.data, a.message, a.errors, a.total = env.Data, env.Message, env.Errors, env.Total
	}
	return a, nil
}

// wantStatus fails unless the answer has that status and reason phrase.
func (a *answer) wantStatus(t *testing.T, status int, reason string) {
	t.Helper()
	if a.status != status || a.reason != reason {
		t.Fatalf("got %d %q (body %s), want %d %q", a.status, a.reason, a.body, status, reason)
	}
}

// wantOK fails unless the answer is a 200.
func (a *answer) wantOK(t *testing.T) {
	t.Helper()
	a.wantStatus(t, http.StatusOK, "OK")
}

func form(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	return v
}

func withoutAuth(r *http.Request) { r.Header.Del("Authorization") }

func withHeader(k, v string) func(*http.Request) {
	return func(r *http.Request) { r.Header.Set(k, v) }
}
