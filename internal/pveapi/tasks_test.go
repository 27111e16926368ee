package pveapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

const testUPID = "UPID:pve1:000A1B2C:0123ABCD:6790ABCD:qmclone:9000:terraform@pve!provider:"

func TestParseUPID(t *testing.T) {
	t.Parallel()
	u, err := ParseUPID(testUPID)
	if err != nil {
		t.Fatal(err)
	}
	want := UPID{
		Raw: testUPID, Node: "pve1", PID: 0x000A1B2C, PStart: 0x0123ABCD,
		StartTime: time.Unix(0x6790ABCD, 0).UTC(), Type: "qmclone", ID: "9000", User: "terraform@pve!provider",
	}
	if u != want {
		t.Errorf("ParseUPID = %+v\nwant %+v", u, want)
	}
	valid := []string{
		"UPID:pve-node-2:00001234:123456789:6790ABCD:vzcreate:101:root@pam:",
		"UPID:pve1:00001234:12345678:6790ABCD:aptupdate::root@pam:",
	}
	for _, s := range valid {
		if _, err := ParseUPID(s); err != nil {
			t.Errorf("ParseUPID(%q): %v", s, err)
		}
	}
	invalid := []string{
		"",
		"UPID:pve1:1234:12345678:6790ABCD:qmstart:100:root@pam:",
		"UPID:pve1:00001234:12345678:6790ABCD:qmstart:100:root@pam",
		"UPID:-pve:00001234:12345678:6790ABCD:qmstart:100:root@pam:",
		"TASK:pve1:00001234:12345678:6790ABCD:qmstart:100:root@pam:",
	}
	for _, s := range invalid {
		if _, err := ParseUPID(s); err == nil {
			t.Errorf("ParseUPID(%q) accepted", s)
		}
	}
}

// taskPVE serves one task: status answers from a script, the log from a
// slice, paged like PVE (start, limit, 1-based n).
func taskPVE(t *testing.T, statuses []map[string]any, log []string) *fakePVE {
	f := newFakePVE(t)
	f.handle("GET /nodes/{node}/tasks/{upid}/status", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("node") != "pve1" || r.PathValue("upid") != testUPID {
			writeParamError(w, map[string]string{"upid": "no such task"})
			return
		}
		i := f.count("GET /nodes/{node}/tasks/{upid}/status") - 1
		if i >= len(statuses) {
			i = len(statuses) - 1
		}
		writeData(w, statuses[i])
	})
	f.handle("GET /nodes/{node}/tasks/{upid}/log", func(w http.ResponseWriter, r *http.Request) {
		start, _ := strconv.Atoi(r.URL.Query().Get("start"))
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		entries := []map[string]any{}
		for i := start; i < len(log) && i < start+limit; i++ {
			entries = append(entries, map[string]any{"n": i + 1, "t": log[i]})
		}
		writeData(w, entries)
	})
	return f
}

func running() map[string]any { return map[string]any{"status": "running", "upid": testUPID} }

func stopped(exit string) map[string]any {
	return map[string]any{"status": "stopped", "exitstatus": exit, "upid": testUPID}
}

// W8.
func TestW8WaitTaskOK(t *testing.T) {
	t.Parallel()
	f := taskPVE(t, []map[string]any{running(), running(), stopped("OK")}, []string{"TASK OK"})
	res, err := f.client().WaitTask(context.Background(), testUPID)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitStatus != "OK" || res.WarningCount != 0 || len(res.Warnings) != 0 || res.UPID != testUPID {
		t.Errorf("result = %+v", res)
	}
	if n := f.count("GET /nodes/{node}/tasks/{upid}/status"); n != 3 {
		t.Errorf("%d polls, want 3", n)
	}
	if n := f.count("GET /nodes/{node}/tasks/{upid}/log"); n != 0 {
		t.Errorf("log read %d times for an OK task", n)
	}
}

// W8: "WARNINGS: N" is success; the warnings are surfaced.
func TestW8WaitTaskWarningsAreSuccess(t *testing.T) {
	t.Parallel()
	log := []string{
		"create full clone of drive scsi0 (local-lvm:base-9000-disk-0)",
		"WARN: no efidisk configured! Using temporary efivars disk.",
		"transferred 1.0 GiB of 1.0 GiB (100.00%)",
		"WARN: iothread is only valid with virtio disk or virtio-scsi-single controller, ignoring",
		"TASK WARNINGS: 2",
	}
	f := taskPVE(t, []map[string]any{running(), stopped("WARNINGS: 2")}, log)
	res, err := f.client().WaitTask(context.Background(), testUPID)
	if err != nil {
		t.Fatalf("a task with warnings must succeed: %v", err)
	}
	if res.WarningCount != 2 || len(res.Warnings) != 2 || res.Warnings[0] != log[1] || res.Warnings[1] != log[3] {
		t.Errorf("result = %+v", res)
	}
}

// W8: a failed task carries its exit status and the log tail.
func TestW8WaitTaskFailureCarriesLogTail(t *testing.T) {
	t.Parallel()
	var log []string
	for i := 1; i <= 29; i++ {
		log = append(log, fmt.Sprintf("line %d", i))
	}
	exit := "unable to create CT 101 - volume 'local:vztmpl/missing.tar.zst' does not exist"
	log = append(log, "TASK ERROR: "+exit)
	f := taskPVE(t, []map[string]any{running(), stopped(exit)}, log)

	_, err := f.client().WaitTask(context.Background(), testUPID)
	var taskErr *TaskError
	if !errors.As(err, &taskErr) {
		t.Fatalf("want *TaskError, got %v", err)
	}
	if taskErr.ExitStatus != exit || taskErr.UPID != testUPID {
		t.Errorf("task error = %+v", taskErr)
	}
	if len(taskErr.LogTail) != taskLogTailLines || taskErr.LogTail[0] != "line 11" || taskErr.LogTail[19] != "TASK ERROR: "+exit {
		t.Errorf("log tail = %q", taskErr.LogTail)
	}
	if !strings.Contains(err.Error(), exit) || !strings.Contains(err.Error(), "line 29") {
		t.Errorf("Error() should carry exit status and tail: %s", err)
	}
}

func TestW8TaskLogIsReadInPages(t *testing.T) {
	t.Parallel()
	var log []string
	for i := 1; i <= 1203; i++ {
		log = append(log, "line "+strconv.Itoa(i))
	}
	f := taskPVE(t, []map[string]any{stopped("failed")}, log)
	_, err := f.client().WaitTask(context.Background(), testUPID)
	var taskErr *TaskError
	if !errors.As(err, &taskErr) || taskErr.LogTail[len(taskErr.LogTail)-1] != "line 1203" {
		t.Fatalf("want a tail ending at the last line, got %v", err)
	}
	if n := f.count("GET /nodes/{node}/tasks/{upid}/log"); n != 3 {
		t.Errorf("%d log pages, want 3", n)
	}
}

// W9: an empty UPID means the write already happened.
func TestW9EmptyUPIDIsImmediateSuccess(t *testing.T) {
	t.Parallel()
	f := taskPVE(t, []map[string]any{running()}, nil)
	res, err := f.client().WaitTask(context.Background(), "")
	if err != nil || res.ExitStatus != "OK" {
		t.Errorf("WaitTask(\"\") = %+v, %v", res, err)
	}
	if n := f.count("GET /nodes/{node}/tasks/{upid}/status"); n != 0 {
		t.Errorf("%d polls for an empty UPID", n)
	}
}

// W8: when the context ends first, the error names the still-running task
// so the caller can resume.
func TestW8WaitTaskContextEndsWhileRunning(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.handle("GET /nodes/{node}/tasks/{upid}/status", func(w http.ResponseWriter, _ *http.Request) {
		if f.count("GET /nodes/{node}/tasks/{upid}/status") == 3 {
			cancel()
		}
		writeData(w, running())
	})
	_, err := f.client().WaitTask(ctx, testUPID)
	upid, ok := IsTaskStillRunning(err)
	if !ok || upid != testUPID {
		t.Fatalf("want TaskStillRunningError for %s, got %v", testUPID, err)
	}
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), testUPID) {
		t.Errorf("error should wrap context.Canceled and name the UPID: %v", err)
	}

	deadline, stop := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer stop()
	_, err = f.client().WaitTask(deadline, testUPID)
	if _, ok := IsTaskStillRunning(err); !ok || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("deadline: want TaskStillRunningError wrapping DeadlineExceeded, got %v", err)
	}
}

func TestWaitTaskRejectsMalformedUPID(t *testing.T) {
	t.Parallel()
	f := taskPVE(t, []map[string]any{running()}, nil)
	if _, err := f.client().WaitTask(context.Background(), "not-a-upid"); err == nil {
		t.Error("want an error for a malformed UPID")
	}
}

// configPVE serves a guest config whose lock follows a script.
func configPVE(t *testing.T, locks []string) *fakePVE {
	f := newFakePVE(t)
	f.handle("GET /nodes/{node}/{type}/{vmid}/config", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("vmid") != "100" {
			writePVEError(w, 500, fmt.Sprintf("Configuration file 'nodes/%s/qemu-server/%s.conf' does not exist", r.PathValue("node"), r.PathValue("vmid")))
			return
		}
		i := f.count("GET /nodes/{node}/{type}/{vmid}/config") - 1
		if i >= len(locks) {
			i = len(locks) - 1
		}
		config := map[string]any{"name": "web", "memory": "2048", "cores": 2, "digest": "abc"}
		if locks[i] != "" {
			config["lock"] = locks[i]
		}
		writeData(w, config)
	})
	return f
}

// W10: wait while locked; return the unlocked config.
func TestW10WaitUnlocked(t *testing.T) {
	t.Parallel()
	f := configPVE(t, []string{"clone", "clone", ""})
	config, err := f.client().WaitUnlocked(context.Background(), "pve1", "qemu", 100)
	if err != nil {
		t.Fatal(err)
	}
	if _, locked := config["lock"]; locked || ConfigString(config, "name") != "web" || ConfigString(config, "cores") != "2" {
		t.Errorf("config = %v", config)
	}
	if n := f.count("GET /nodes/{node}/{type}/{vmid}/config"); n != 3 {
		t.Errorf("%d reads, want 3", n)
	}
}

// W10: "suspended" is not a task; never wait on it.
func TestW10SuspendedLockIsNotWaitedOn(t *testing.T) {
	t.Parallel()
	f := configPVE(t, []string{"suspended"})
	config, err := f.client().WaitUnlocked(context.Background(), "pve1", "qemu", 100)
	if err != nil || ConfigString(config, "lock") != "suspended" {
		t.Fatalf("config %v, err %v", config, err)
	}
	if n := f.count("GET /nodes/{node}/{type}/{vmid}/config"); n != 1 {
		t.Errorf("%d reads, want 1", n)
	}
}

func TestW10WaitUnlockedHonoursContext(t *testing.T) {
	t.Parallel()
	f := configPVE(t, []string{"backup"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Cancel once the waiter polls a second time: it has then read the
	// lock, however slow the machine is, and is waiting on it.
	go func() {
		for f.count("GET /nodes/{node}/{type}/{vmid}/config") < 2 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	_, err := f.client().WaitUnlocked(ctx, "pve1", "lxc", 100)
	var lockedErr *LockedError
	if !errors.As(err, &lockedErr) || lockedErr.Lock != "backup" || !errors.Is(err, context.Canceled) {
		t.Errorf("want LockedError(backup) wrapping context.Canceled, got %v", err)
	}
}

// W12 through the lock waiter.
func TestW12WaitUnlockedMissingGuest(t *testing.T) {
	t.Parallel()
	f := configPVE(t, []string{""})
	_, err := f.client().WaitUnlocked(context.Background(), "pve1", "qemu", 999)
	if !IsNotFound(err) {
		t.Errorf("want NotFound, got %v", err)
	}
	if _, err := f.client().WaitUnlocked(context.Background(), "pve1", "openvz", 100); err == nil {
		t.Error("unknown guest type accepted")
	}
}
