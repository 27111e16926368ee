package pvesim

import (
	"net/http"
	"sort"
	"strings"
	"testing"
)

// upid decodes a task answer.
func upid(t *testing.T, a *answer) string {
	t.Helper()
	a.wantOK(t)
	var u string
	a.decode(t, &u)
	if !strings.HasPrefix(u, "UPID:") {
		t.Fatalf("answer %s is no UPID", a.body)
	}
	return u
}

// task returns the finished task of an answer.
func (e *env) task(t *testing.T, a *answer) TaskInfo {
	t.Helper()
	info, ok := e.sim.Task(upid(t, a))
	if !ok {
		t.Fatalf("task of %s not found", a.body)
	}
	if info.Running {
		t.Fatalf("task %s still running", info.UPID)
	}
	return info
}

// taskOK fails unless the answer's task ended OK.
func (e *env) taskOK(t *testing.T, a *answer) TaskInfo {
	t.Helper()
	info := e.task(t, a)
	if info.ExitStatus != "OK" {
		t.Fatalf("task %s ended %q, log %q", info.Type, info.ExitStatus, info.Log)
	}
	return info
}

// taskFails fails unless the answer's task ended with exactly msg.
func (e *env) taskFails(t *testing.T, a *answer, msg string) TaskInfo {
	t.Helper()
	info := e.task(t, a)
	if info.ExitStatus != msg {
		t.Fatalf("task %s ended %q, want %q (log %q)", info.Type, info.ExitStatus, msg, info.Log)
	}
	return info
}

// createVM creates a VM on pve1 and waits for its task to succeed.
func (e *env) createVM(t *testing.T, vmid string, kv ...string) {
	t.Helper()
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu", form(append([]string{"vmid", vmid}, kv...)...)))
}

// vmConfig reads GET .../config (pending applied unless current).
func (e *env) vmConfig(t *testing.T, node, vmid string, query ...string) map[string]string {
	t.Helper()
	a := e.call(t, http.MethodGet, "/nodes/"+node+"/qemu/"+vmid+"/config", form(query...))
	a.wantOK(t)
	var raw map[string]any
	a.decode(t, &raw)
	out := map[string]string{}
	for k, v := range raw {
		switch x := v.(type) {
		case string:
			out[k] = x
		default:
			out[k] = strings.TrimSuffix(strings.TrimSuffix(jsonText(x), ".0"), "\n")
		}
	}
	return out
}

func jsonText(v any) string { return string(encodeJSON(v)) }

// volids lists the volids of vmid's volumes.
func volids(s *Sim, vmid int) []string {
	var out []string
	for _, v := range s.VolumesOf(vmid) {
		out = append(out, v.VolID)
	}
	sort.Strings(out)
	return out
}

func wantVolids(t *testing.T, s *Sim, vmid int, want ...string) {
	t.Helper()
	sort.Strings(want)
	if got := volids(s, vmid); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("volumes of %d = %v, want %v", vmid, got, want)
	}
}

// wantParamError fails unless the answer is a 400 with text on param.
func (a *answer) wantParamError(t *testing.T, param, text string) {
	t.Helper()
	a.wantStatus(t, http.StatusBadRequest, "Parameter verification failed.")
	if a.errors[param] != text {
		t.Fatalf("errors = %q, want %s: %q", a.errors, param, text)
	}
}

// qemu-server src/PVE/QemuServer/Memory.pm get_current_memory and
// parse_memory: memory is a property string with the default key
// "current"; without the option the schema default, 512, applies.
func TestMemoryMiB(t *testing.T) {
	conf := defaultGuestSchema(t)
	for value, want := range map[string]int64{"4096": 4096, "current=2048": 2048, "": 512, "current=1024,foo=1": 512} {
		cfg := map[string]string{"memory": value}
		if value == "" {
			cfg = map[string]string{}
		}
		if got := conf.memoryMiB(cfg); got != want {
			t.Errorf("memoryMiB(%q) = %d, want %d", value, got, want)
		}
	}
	if got := conf.bootOrder(map[string]string{"boot": "order=scsi0;ide2;net0"}); len(got) != 3 || got[1] != "ide2" {
		t.Errorf("bootOrder = %q", got)
	}
	if got := conf.bootOrder(map[string]string{"boot": "cdn"}); len(got) != 0 {
		t.Errorf("legacy boot order = %q, want none", got)
	}
}
