package pvesim

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// rawPost sends a pool creation on a fresh connection and returns the
// transport error, if any.
func rawPost(t *testing.T, e *env, poolid string) error {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, e.srv.URL+apiPrefix+"/pools",
		strings.NewReader("poolid="+poolid))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", formType)
	e.auth(req)
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	_ = resp.Body.Close()
	return nil
}

func TestFaultRespond(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	if err := e.sim.InjectFault(Fault{Method: "POST", Path: "/pools", Action: FaultRespond, Status: 503,
		Message: "proxy timeout", Count: 1}); err != nil {
		t.Fatal(err)
	}
	a := e.call(t, http.MethodPost, "/pools", form("poolid", "p1"))
	a.wantStatus(t, http.StatusServiceUnavailable, "proxy timeout")
	if _, ok := e.sim.Pool("p1"); ok {
		t.Fatal("faulted request ran")
	}
	// Count 1: the next request goes through.
	e.call(t, http.MethodPost, "/pools", form("poolid", "p1")).wantOK(t)
	if got := e.sim.Count("POST", "/pools"); got != 2 {
		t.Errorf("Count = %d, want 2", got)
	}
}

// A request pveproxy forwarded runs; its answer is lost and the client sees
// the proxy status instead.
func TestFaultRespondAfter(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	if err := e.sim.InjectFault(Fault{Method: "POST", Path: "/pools", Action: FaultRespondAfter, Status: 596,
		Message: "Connection timed out", Count: 1}); err != nil {
		t.Fatal(err)
	}
	e.call(t, http.MethodPost, "/pools", form("poolid", "p1")).wantStatus(t, 596, "Connection timed out")
	if _, ok := e.sim.Pool("p1"); !ok {
		t.Fatal("the request did not run")
	}
}

func TestFaultDropBefore(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	if err := e.sim.InjectFault(Fault{Path: "/pools", Action: FaultDropBefore}); err != nil {
		t.Fatal(err)
	}
	if err := rawPost(t, e, "p1"); err == nil {
		t.Fatal("dropped request got an answer")
	}
	if _, ok := e.sim.Pool("p1"); ok {
		t.Fatal("request dropped before running changed the cluster")
	}
	recs := e.sim.Requests()
	if len(recs) != 1 || !recs[0].Dropped || recs[0].Status != 0 || recs[0].Template != "/pools" {
		t.Errorf("records = %+v", recs)
	}
	if e.sim.Count(http.MethodPost, "/pools") != 1 {
		t.Errorf("Count = %d", e.sim.Count(http.MethodPost, "/pools"))
	}
}

// The change happens, the answer is lost: the client must look before it
// retries (W13-style recovery).
func TestFaultDropAfter(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	if err := e.sim.InjectFault(Fault{Method: http.MethodPost, Path: "/pools", Action: FaultDropAfter, Count: 1}); err != nil {
		t.Fatal(err)
	}
	if err := rawPost(t, e, "p1"); err == nil {
		t.Fatal("dropped request got an answer")
	}
	if _, ok := e.sim.Pool("p1"); !ok {
		t.Fatal("request dropped after running did not change the cluster")
	}
	e.call(t, http.MethodPost, "/pools", form("poolid", "p1")).
		wantStatus(t, http.StatusInternalServerError, "create pool failed: pool 'p1' already exists")
}

// A seeded rate fires on the same requests every run.
func TestFaultRateIsDeterministic(t *testing.T) {
	t.Parallel()
	pattern := func() string {
		e := newEnv(t, Options{Seed: 42})
		if err := e.sim.InjectFault(Fault{Path: "/version", Action: FaultRespond, Status: 502, Message: "bad gateway", Rate: 0.5}); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for i := 0; i < 20; i++ {
			if e.call(t, http.MethodGet, "/version", nil).status == http.StatusOK {
				b.WriteByte('.')
			} else {
				b.WriteByte('x')
			}
		}
		return b.String()
	}
	first, second := pattern(), pattern()
	if first != second || !strings.Contains(first, "x") || !strings.Contains(first, ".") {
		t.Fatalf("patterns %s and %s", first, second)
	}
}

func TestFaultValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	if e.sim.InjectFault(Fault{}) == nil || e.sim.InjectFault(Fault{Action: FaultRespond, Rate: 2}) == nil {
		t.Fatal("invalid fault accepted")
	}
	if err := e.sim.InjectFault(Fault{Path: "/version", Action: FaultRespond}); err != nil {
		t.Fatal(err)
	}
	e.call(t, http.MethodGet, "/version", nil).wantStatus(t, http.StatusInternalServerError, "Internal Server Error")
	e.sim.ClearFaults()
	e.call(t, http.MethodGet, "/version", nil).wantOK(t)
}

func TestRequestLogRedactsSecrets(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	var mu sync.Mutex
	e := newEnv(t, Options{Passwords: []string{testPassword}, AccessLog: lockedWriter{&mu, &log}})
	e.call(t, http.MethodPost, "/access/ticket", form("username", "alice@pve", "password", "correct horse"), withoutAuth).wantOK(t)
	recs := e.sim.Requests()
	if len(recs) != 1 || recs[0].Params["password"][0] != "<redacted>" || recs[0].Params["username"][0] != "alice@pve" {
		t.Fatalf("records = %+v", recs)
	}
	mu.Lock()
	line := log.String()
	mu.Unlock()
	if !strings.HasPrefix(line, "POST /access/ticket 200 ") || strings.Contains(line, "correct horse") {
		t.Errorf("access log = %q", line)
	}
	e.sim.ResetCounters()
	if len(e.sim.Requests()) != 0 || e.sim.Count("POST", "/access/ticket") != 0 {
		t.Error("reset kept records")
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func TestLatencyLookup(t *testing.T) {
	t.Parallel()
	s, err := New(Options{Latency: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	s.SetLatency("post", "/pools", 5*time.Millisecond)
	s.SetLatency("", "/nodes/pve1/status", 7*time.Millisecond)
	cases := []struct {
		method, path, template string
		want                   time.Duration
	}{
		{"POST", "/pools", "/pools", 6 * time.Millisecond},
		{"GET", "/pools", "/pools", time.Millisecond},
		{"GET", "/nodes/pve1/status", "/nodes/{node}/status", 8 * time.Millisecond},
		{"GET", "/nodes/pve2/status", "/nodes/{node}/status", time.Millisecond},
	}
	for _, c := range cases {
		if got := s.latencyFor(c.method, c.path, c.template); got != c.want {
			t.Errorf("latencyFor(%s %s) = %v, want %v", c.method, c.path, got, c.want)
		}
	}
	s.SetLatency("POST", "/pools", 0)
	s.SetGlobalLatency(0)
	if got := s.latencyFor("POST", "/pools", "/pools"); got != 0 {
		t.Errorf("after reset: %v", got)
	}
}

// Many clients at once: every pool is created exactly once, the counters
// add up, and -race finds no unguarded state.
func TestConcurrentPoolCreation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{TaskDuration: time.Millisecond})
	const n = 40
	var wg sync.WaitGroup
	errs := make(chan string, 2*n)
	for i := 0; i < n; i++ {
		wg.Add(2)
		go func(i int) {
			defer wg.Done()
			a, err := e.try(http.MethodPost, "/pools", form("poolid", fmt.Sprintf("p%02d", i)))
			if err != nil || a.status != http.StatusOK {
				errs <- fmt.Sprintf("create p%02d: %v %+v", i, err, a)
			}
		}(i)
		go func() {
			defer wg.Done()
			if a, err := e.try(http.MethodGet, "/cluster/resources", nil); err != nil || a.status != http.StatusOK {
				errs <- fmt.Sprintf("resources: %v %+v", err, a)
			}
			startTestTask(e.sim, "pve1", "qmstart", "100", nil)
		}()
	}
	wg.Wait()
	close(errs)
	for msg := range errs {
		t.Error(msg)
	}
	var pools []poolAnswer
	e.call(t, http.MethodGet, "/pools", nil).decode(t, &pools)
	if len(pools) != n || e.sim.Count(http.MethodPost, "/pools") != n || e.sim.Count(http.MethodGet, "/cluster/resources") != n {
		t.Errorf("pools %d, POST count %d, GET count %d", len(pools), e.sim.Count(http.MethodPost, "/pools"),
			e.sim.Count(http.MethodGet, "/cluster/resources"))
	}
}
