package pvesim

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// RequestRecord is one request as the simulator saw it.
type RequestRecord struct {
	Method   string
	Path     string // below /api2/json, e.g. "/nodes/pve1/status"
	Template string // schema path template, "" if the path is unknown
	Params   map[string][]string
	User     string // identity, "" before or without authentication
	Status   int    // 0 when the connection was dropped without an answer
	Dropped  bool
	Duration time.Duration
}

// FaultAction is what an injected fault does.
type FaultAction int

// Fault actions.
const (
	// FaultRespond answers with Status and Message instead of running the
	// request.
	FaultRespond FaultAction = iota + 1
	// FaultDropBefore closes the connection before the request runs: the
	// change did not happen.
	FaultDropBefore
	// FaultDropAfter runs the request, then closes the connection without
	// the answer: the change happened but the client sees a broken
	// connection.
	FaultDropAfter
	// FaultLockTimeout answers 500 "can't lock file 'FILE' - got timeout"
	// for the config lock file of the guest the path names, as a handler
	// does that waited in vain for the guest's flock (PVE's lock_file_full)
	// before changing anything. Reads and requests whose path names no
	// guest pass.
	FaultLockTimeout
	// FaultTaskFail lets the request run and answer with its UPID, then
	// ends the task it started with Message as its error, as a worker that
	// dies does. The worker dies before its first change and its cleanup
	// undoes what the request had set up (hooks_tasks.go). Requests that
	// start no task pass, so Rate is the share of matching tasks that fail.
	FaultTaskFail
	// FaultStall answers 200 with headers announcing a body, sends the
	// first bytes of it, then sends nothing more until the client hangs
	// up: a proxy or a network that stalls in the middle of an answer.
	// Test machinery, not a PVE behaviour; the request does not run.
	FaultStall
	// FaultRespondAfter runs the request, then answers with Status and
	// Message instead of its answer: what a client sees when pveproxy
	// forwarded the request to the guest's node and lost the answer.
	// pve-http-server's AnyEvent.pm proxy_request passes on the status of
	// AnyEvent::HTTP's http_request (timeout 30 s), which reports 596 for
	// errors while sending the request or waiting for the answer's headers.
	FaultRespondAfter
)

// Fault describes an injected failure. A request matches when its method
// (empty: any) and path match; Path is a schema template ("/pools",
// "/nodes/{node}/qemu") or an exact path ("/nodes/pve1/qemu"), empty for
// any. Rate (0..1, 0 meaning always) draws from the seeded source; Count
// limits the fault to the first N requests it hits (0: unlimited).
//
// A dropped connection is what a client sees when a proxy or the network
// fails. Go's http.Transport itself retries an idempotent request (GET) once
// when a reused connection breaks; Count then shows both attempts.
type Fault struct {
	Method  string
	Path    string
	Action  FaultAction
	Status  int    // FaultRespond, FaultRespondAfter: HTTP status, default 500
	Message string // FaultRespond, FaultRespondAfter: the error text; FaultTaskFail: the task's, default "interrupted by signal"
	Rate    float64
	Count   int
}

type faultRule struct {
	Fault
	hits int
}

// InjectFault adds a fault; faults are tried in the order added and the
// first that fires wins.
func (s *Sim) InjectFault(f Fault) error {
	switch f.Action {
	case FaultRespond, FaultDropBefore, FaultDropAfter, FaultLockTimeout, FaultTaskFail, FaultStall, FaultRespondAfter:
	default:
		return fmt.Errorf("fault: unknown action %d", f.Action)
	}
	if f.Rate < 0 || f.Rate > 1 {
		return fmt.Errorf("fault: rate %v out of range 0..1", f.Rate)
	}
	responds := f.Action == FaultRespond || f.Action == FaultRespondAfter
	if responds && f.Status == 0 {
		f.Status = http.StatusInternalServerError
	}
	if responds && f.Message == "" {
		f.Message = http.StatusText(f.Status)
	}
	if f.Action == FaultTaskFail && f.Message == "" {
		f.Message = defaultTaskFailure
	}
	s.hooksMu.Lock()
	defer s.hooksMu.Unlock()
	s.faults = append(s.faults, &faultRule{Fault: f})
	return nil
}

// ClearFaults removes every injected fault.
func (s *Sim) ClearFaults() {
	s.hooksMu.Lock()
	defer s.hooksMu.Unlock()
	s.faults = nil
}

// pickFault returns the fault for this request, if one fires. Task
// failures are drawn later, when the handler runs (pickTaskFault).
func (s *Sim) pickFault(method, path, template string) *Fault {
	s.hooksMu.Lock()
	defer s.hooksMu.Unlock()
	for _, f := range s.faults {
		if f.Action == FaultTaskFail || !f.matches(method, path, template) {
			continue
		}
		lockFile := ""
		if f.Action == FaultLockTimeout {
			// Reads take no lock file.
			if lockFile = guestLockFile(path); lockFile == "" || strings.EqualFold(method, http.MethodGet) {
				continue
			}
		}
		if f.Rate > 0 && s.rng.Float64() >= f.Rate {
			continue
		}
		f.hits++
		fired := f.Fault
		if f.Action == FaultLockTimeout {
			fired.Action = FaultRespond
			fired.Status = http.StatusInternalServerError
			fired.Message = lockTimeoutMessage(lockFile)
		}
		return &fired
	}
	return nil
}

// matches tells whether the rule applies to the request and has hits left.
func (f *faultRule) matches(method, path, template string) bool {
	if f.Method != "" && !strings.EqualFold(f.Method, method) {
		return false
	}
	if f.Path != "" && f.Path != path && f.Path != template {
		return false
	}
	return f.Count == 0 || f.hits < f.Count
}

// SetLatency delays every request on method and path (template or exact;
// empty method: any) by d, on top of the global latency. d = 0 removes it.
func (s *Sim) SetLatency(method, path string, d time.Duration) {
	s.hooksMu.Lock()
	defer s.hooksMu.Unlock()
	key := strings.ToUpper(method) + " " + path
	if d == 0 {
		delete(s.latency, key)
		return
	}
	s.latency[key] = d
}

// SetGlobalLatency delays every request by d.
func (s *Sim) SetGlobalLatency(d time.Duration) {
	s.hooksMu.Lock()
	defer s.hooksMu.Unlock()
	s.globalLat = d
}

func (s *Sim) latencyFor(method, path, template string) time.Duration {
	s.hooksMu.Lock()
	defer s.hooksMu.Unlock()
	d := s.globalLat
	for _, m := range []string{method, ""} {
		for _, p := range []string{path, template} {
			if p == "" {
				continue
			}
			if extra, ok := s.latency[m+" "+p]; ok {
				return d + extra
			}
		}
	}
	return d
}

// Count is the number of requests received for method and path, where path
// is a schema template ("/pools") or, for a path outside the schema, the
// exact path. Every request counts, refused and faulted ones included.
func (s *Sim) Count(method, path string) int {
	s.hooksMu.Lock()
	defer s.hooksMu.Unlock()
	return s.counts[strings.ToUpper(method)+" "+path]
}

// Requests returns the request log, oldest first.
func (s *Sim) Requests() []RequestRecord {
	s.hooksMu.Lock()
	defer s.hooksMu.Unlock()
	return append([]RequestRecord(nil), s.requests...)
}

// ResetCounters clears the counters and the request log.
func (s *Sim) ResetCounters() {
	s.hooksMu.Lock()
	defer s.hooksMu.Unlock()
	s.counts = map[string]int{}
	s.requests = nil
}

func (s *Sim) countRequest(method, key string) {
	s.hooksMu.Lock()
	defer s.hooksMu.Unlock()
	s.counts[method+" "+key]++
}

func (s *Sim) record(rec RequestRecord) {
	s.hooksMu.Lock()
	s.requests = append(s.requests, rec)
	s.hooksMu.Unlock()
	if s.opts.AccessLog == nil {
		return
	}
	status := fmt.Sprint(rec.Status)
	if rec.Dropped {
		status = "dropped"
	}
	s.logMu.Lock()
	defer s.logMu.Unlock()
	_, _ = fmt.Fprintf(s.opts.AccessLog, "%s %s %s %s\n", rec.Method, rec.Path, status, rec.Duration)
}

// secretParams are never kept in the request log; keyring,
// encryption-key and master-pubkey are the storages' sensitive properties
// (pve-storage src/PVE/Storage/Plugin.pm sensitive_properties).
var secretParams = []string{
	"password", "secret", "otp", "tfa-challenge", "ticket", "token",
	"keyring", "encryption-key", "master-pubkey",
}

func redactParams(params map[string][]string) map[string][]string {
	out := make(map[string][]string, len(params))
	for _, k := range sortedKeys(params) {
		v := params[k]
		lk := strings.ToLower(k)
		for _, s := range secretParams {
			if strings.Contains(lk, s) {
				v = []string{"<redacted>"}
				break
			}
		}
		out[k] = append([]string(nil), v...)
	}
	return out
}
