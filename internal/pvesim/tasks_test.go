package pvesim

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"
)

var tokenIdentity = identity{user: "root@pam", tokenID: testTokenUser}

// startTestTask forks a task the way a handler would.
func startTestTask(s *Sim, node, typ, id string, work func(*Task) error) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.startTask(node, typ, id, tokenIdentity, work).UPID
}

type taskStatusAnswer struct {
	Status     string `json:"status"`
	ExitStatus string `json:"exitstatus"`
	Type       string `json:"type"`
	ID         string `json:"id"`
	User       string `json:"user"`
	TokenID    string `json:"tokenid"`
	Node       string `json:"node"`
	PID        int    `json:"pid"`
	PStart     int64  `json:"pstart"`
	StartTime  int64  `json:"starttime"`
	UPID       string `json:"upid"`
}

type logLine struct {
	N int    `json:"n"`
	T string `json:"t"`
}

func taskStatus(t *testing.T, e *env, node, upid string) taskStatusAnswer {
	t.Helper()
	var st taskStatusAnswer
	e.call(t, http.MethodGet, "/nodes/"+node+"/tasks/"+url.PathEscape(upid)+"/status", nil).decode(t, &st)
	return st
}

func taskLog(t *testing.T, e *env, node, upid string, f url.Values) ([]logLine, int) {
	t.Helper()
	var lines []logLine
	a := e.call(t, http.MethodGet, "/nodes/"+node+"/tasks/"+url.PathEscape(upid)+"/log", f)
	a.wantOK(t)
	a.decode(t, &lines)
	return lines, a.total
}

// W8: a task's UPID follows upid_encode; its status goes from running to
// stopped, and exitstatus and the last log line tell OK, WARNINGS: N or the
// error.
func TestW8TaskLifecycle(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	e := newEnv(t, Options{Now: clock.Now, TaskDuration: 30 * time.Second})

	cases := []struct {
		name       string
		work       func(*Task) error
		exitStatus string
		lastLine   string
	}{
		{"ok", func(t *Task) error { t.Log("working"); return nil }, "OK", "TASK OK"},
		{"warnings", func(t *Task) error { t.Warn("first"); t.Warn("second"); return nil }, "WARNINGS: 2", "TASK WARNINGS: 2"},
		{"error", func(*Task) error { return errorf("clone failed: disk full") }, "clone failed: disk full", "TASK ERROR: clone failed: disk full"},
	}
	for _, c := range cases {
		upid := startTestTask(e.sim, "pve2", "qmclone", "100", c.work)
		m := upidPattern.FindStringSubmatch(upid)
		if m == nil || m[1] != "pve2" || m[6] != "qmclone" || m[7] != "100" || m[8] != testTokenUser {
			t.Fatalf("%s: UPID %q does not parse as expected", c.name, upid)
		}
		st := taskStatus(t, e, "pve2", upid)
		// A token's task shows user and token apart (convert_token_task).
		if st.Status != "running" || st.ExitStatus != "" || st.UPID != upid || st.User != "root@pam" ||
			st.TokenID != "test" || st.Node != "pve2" {
			t.Fatalf("%s: status while running = %+v", c.name, st)
		}
		pid, _ := strconv.ParseInt(m[3], 16, 64)
		start, _ := strconv.ParseInt(m[5], 16, 64)
		if int64(st.PID) != pid || st.StartTime != start || st.StartTime != clock.Now().Unix() {
			t.Errorf("%s: status fields %+v do not match UPID", c.name, st)
		}
		clock.Advance(30 * time.Second)
		st = taskStatus(t, e, "pve2", upid)
		if st.Status != "stopped" || st.ExitStatus != c.exitStatus {
			t.Fatalf("%s: status after = %+v", c.name, st)
		}
		lines, total := taskLog(t, e, "pve2", upid, nil)
		if len(lines) == 0 || lines[len(lines)-1].T != c.lastLine || total != len(lines) || lines[0].N != 1 {
			t.Errorf("%s: log = %+v (total %d)", c.name, lines, total)
		}
	}
}

// W8: with the default duration the task is done by the first status read.
func TestW8TaskZeroDuration(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	ran := false
	upid := startTestTask(e.sim, "pve1", "vzcreate", "200", func(*Task) error { ran = true; return nil })
	if !ran {
		t.Fatal("work did not run")
	}
	if st := taskStatus(t, e, "pve1", upid); st.Status != "stopped" || st.ExitStatus != "OK" {
		t.Fatalf("status = %+v", st)
	}
	if info, ok := e.sim.Task(upid); !ok || info.Running || info.ExitStatus != "OK" {
		t.Errorf("Task() = %+v", info)
	}
}

func TestW8TaskLogPaging(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	upid := startTestTask(e.sim, "pve1", "download", "", func(t *Task) error {
		for i := 1; i <= 5; i++ {
			t.Log("line %d", i)
		}
		return nil
	})
	lines, total := taskLog(t, e, "pve1", upid, form("start", "2", "limit", "2"))
	if total != 6 || len(lines) != 2 || lines[0].N != 3 || lines[0].T != "line 3" || lines[1].N != 4 {
		t.Errorf("page = %+v total %d", lines, total)
	}
	lines, _ = taskLog(t, e, "pve1", upid, form("start", "1", "limit", "0"))
	if len(lines) != 5 || lines[4].T != "TASK OK" {
		t.Errorf("rest = %+v", lines)
	}
}

func TestW8UnknownTask(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	upid := startTestTask(e.sim, "pve1", "qmstart", "100", nil)
	cases := []struct{ node, upid, want string }{
		{"pve1", "UPID:pve1:00001234:00000001:65000000:qmstart:100:root@pam:", "no such task"},
		{"pve2", upid, "no such task"},
		{"pve1", "garbage", "unable to parse worker upid"},
	}
	for _, c := range cases {
		a := e.call(t, http.MethodGet, "/nodes/"+c.node+"/tasks/"+url.PathEscape(c.upid)+"/status", nil)
		a.wantStatus(t, http.StatusBadRequest, "Parameter verification failed.")
		if a.errors["upid"] != c.want {
			t.Errorf("%s on %s: errors = %v", c.upid, c.node, a.errors)
		}
	}
	// read_task_log does not check for the task: the missing file reads as
	// one line.
	lines, total := taskLog(t, e, "pve2", upid, nil)
	if total != 1 || len(lines) != 1 || lines[0].T != "unable to open file - No such file or directory" {
		t.Errorf("log of unknown task = %+v", lines)
	}
	a := e.call(t, http.MethodGet, "/nodes/pve1/tasks/garbage/log", nil)
	if a.status != http.StatusBadRequest || a.errors["upid"] != "unable to parse worker upid" {
		t.Errorf("log of garbage = %d %v", a.status, a.errors)
	}
}

func TestTaskListing(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	e := newEnv(t, Options{Now: clock.Now})
	startTestTask(e.sim, "pve1", "qmstart", "100", nil)
	clock.Advance(time.Second)
	startTestTask(e.sim, "pve1", "qmstop", "101", func(*Task) error { return errors.New("boom") })
	clock.Advance(time.Second)
	startTestTask(e.sim, "pve2", "qmstart", "102", nil)

	var list []map[string]any
	a := e.call(t, http.MethodGet, "/nodes/pve1/tasks", nil)
	a.decode(t, &list)
	if len(list) != 2 || a.total != 2 || list[0]["type"] != "qmstop" || list[0]["status"] != "boom" || list[1]["status"] != "OK" {
		t.Fatalf("list = %v", list)
	}
	e.call(t, http.MethodGet, "/nodes/pve1/tasks", form("errors", "1")).decode(t, &list)
	if len(list) != 1 || list[0]["id"] != "101" {
		t.Errorf("errors=1 = %v", list)
	}
	e.call(t, http.MethodGet, "/nodes/pve1/tasks", form("vmid", "100", "statusfilter", "ok")).decode(t, &list)
	if len(list) != 1 || list[0]["type"] != "qmstart" || list[0]["user"] != "root@pam" || list[0]["tokenid"] != "test" {
		t.Errorf("vmid=100 = %v", list)
	}
	e.call(t, http.MethodGet, "/nodes/pve1/tasks", form("limit", "1", "start", "1")).decode(t, &list)
	if len(list) != 1 || list[0]["id"] != "100" {
		t.Errorf("page 2 = %v", list)
	}
}

// Another user (without Sys.Audit) neither sees nor reads a token's task.
func TestTaskOwnership(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Tokens: []string{testToken, "bob@pve!ci=s3cret"},
		Privileges: map[string][]string{"bob@pve": {}}})
	upid := startTestTask(e.sim, "pve1", "qmstart", "100", nil)
	asBob := withHeader("Authorization", "PVEAPIToken=bob@pve!ci=s3cret")
	e.call(t, http.MethodGet, "/nodes/pve1/tasks/"+url.PathEscape(upid)+"/status", nil, asBob).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/nodes/pve1, Sys.Audit)")
	var list []map[string]any
	e.call(t, http.MethodGet, "/nodes/pve1/tasks", nil, asBob).decode(t, &list)
	if len(list) != 0 {
		t.Errorf("bob sees %v", list)
	}
	e.call(t, http.MethodGet, "/nodes/pve1/tasks/"+url.PathEscape(upid)+"/status", nil).wantOK(t)
}
