package pveapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	testTokenSecret = "5f0c8e2a-1b3d-4c5e-9f70-a1b2c3d4e5f6"
	testToken       = "terraform@pve!provider=" + testTokenSecret
)

// fakePVE is an httptest server answering like PVE for the routes a test
// registers, counting hits per route.
type fakePVE struct {
	t   *testing.T
	mux *http.ServeMux
	srv *httptest.Server

	mu   sync.Mutex
	hits map[string]int
}

func newFakePVE(t *testing.T) *fakePVE {
	t.Helper()
	f := &fakePVE{t: t, mux: http.NewServeMux(), hits: map[string]int{}}
	f.srv = httptest.NewServer(f.mux)
	t.Cleanup(f.srv.Close)
	return f
}

// handle registers pattern ("GET /version") under /api2/json.
func (f *fakePVE) handle(pattern string, h http.HandlerFunc) {
	method, path, ok := strings.Cut(pattern, " ")
	if !ok {
		f.t.Fatalf("pattern %q needs a method", pattern)
	}
	f.mux.HandleFunc(method+" "+apiPrefix+path, func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.hits[pattern]++
		f.mu.Unlock()
		h(w, r)
	})
}

func (f *fakePVE) count(pattern string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.hits[pattern]
}

// client builds a token client for the fake with fast retries and polling.
func (f *fakePVE) client(mutate ...func(*Config)) *Client {
	f.t.Helper()
	cfg := Config{
		Endpoint:         f.srv.URL,
		APIToken:         testToken,
		RetryWaitMin:     time.Millisecond,
		RetryWaitMax:     2 * time.Millisecond,
		TaskPollInterval: time.Millisecond,
	}
	for _, m := range mutate {
		m(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		f.t.Fatalf("New: %v", err)
	}
	return c
}

func writeData(w http.ResponseWriter, data any) {
	w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	_ = json.NewEncoder(w).Encode(map[string]any{"data": data})
}

// writeRaw answers with a custom reason phrase, which net/http's
// ResponseWriter cannot set but PVE always does (W4).
func writeRaw(w http.ResponseWriter, status int, reason, body string) {
	conn, buf, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(err)
	}
	defer func() { _ = conn.Close() }()
	_, _ = fmt.Fprintf(buf, "HTTP/1.1 %d %s\r\nContent-Type: application/json;charset=UTF-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		status, reason, len(body), body)
	_ = buf.Flush()
}

// writePVEError answers like a PVE 8.4+ handler error: reason phrase is the
// first line, body carries the full text with its trailing newline (W4).
func writePVEError(w http.ResponseWriter, status int, message string) {
	reason, _, _ := strings.Cut(message, "\n")
	body, _ := json.Marshal(map[string]any{"data": nil, "message": message + "\n"})
	writeRaw(w, status, reason, string(body))
}

// writePVEOldError answers like PVE before 8.4: text only in the reason
// phrase, body {"data":null}.
func writePVEOldError(w http.ResponseWriter, status int, message string) {
	writeRaw(w, status, message, `{"data":null}`)
}

func writeParamError(w http.ResponseWriter, errs map[string]string) {
	body, _ := json.Marshal(map[string]any{"data": nil, "errors": errs, "message": "Parameter verification failed.\n"})
	writeRaw(w, http.StatusBadRequest, "Parameter verification failed.", string(body))
}

// dropConnection reads the request, then closes the connection without an
// answer: the client cannot know whether the request was executed.
func dropConnection(w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(err)
	}
	_ = conn.Close()
}

type capturedLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *capturedLog) Debug(_ context.Context, msg string, fields map[string]any) {
	l.add("DEBUG", msg, fields)
}

func (l *capturedLog) Trace(_ context.Context, msg string, fields map[string]any) {
	l.add("TRACE", msg, fields)
}

func (l *capturedLog) add(level, msg string, fields map[string]any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf("%s %s %v", level, msg, fields))
}

func (l *capturedLog) all() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}
