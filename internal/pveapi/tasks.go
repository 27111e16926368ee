package pveapi

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// UPID identifies a PVE task (W8):
// UPID:NODE:PID:PSTART:STARTTIME:TYPE:ID:USER: with PID, PSTART and
// STARTTIME in hex.
type UPID struct {
	Raw       string
	Node      string
	PID       int64
	PStart    int64
	StartTime time.Time
	Type      string // e.g. qmcreate, qmclone, vzcreate, imgdel
	ID        string // usually the VMID; may be empty
	User      string // USER@REALM or USER@REALM!TOKENID
}

// Same shape PVE's own decoder accepts (pve-common upid_decode): pstart may
// have 9 hex digits on long-running hosts.
var upidPattern = regexp.MustCompile(`^UPID:([a-zA-Z0-9](?:[a-zA-Z0-9\-]*[a-zA-Z0-9])?):([0-9A-Fa-f]{8}):([0-9A-Fa-f]{8,9}):([0-9A-Fa-f]{8}):([^:\s]+):([^:\s]*):([^:\s]+):$`)

// ParseUPID decodes a task id.
func ParseUPID(s string) (UPID, error) {
	m := upidPattern.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return UPID{}, fmt.Errorf("pve: %q is not a task id (UPID:NODE:PID:PSTART:STARTTIME:TYPE:ID:USER:)", s)
	}
	pid, _ := strconv.ParseInt(m[2], 16, 64)
	pstart, _ := strconv.ParseInt(m[3], 16, 64)
	start, _ := strconv.ParseInt(m[4], 16, 64)
	return UPID{
		Raw:       strings.TrimSpace(s),
		Node:      m[1],
		PID:       pid,
		PStart:    pstart,
		StartTime: time.Unix(start, 0).UTC(),
		Type:      m[5],
		ID:        m[6],
		User:      m[7],
	}, nil
}

// TaskResult is a task that ended successfully. WarningCount is N from
// "WARNINGS: N"; Warnings holds the log lines starting with "WARN".
type TaskResult struct {
	UPID         string
	ExitStatus   string
	WarningCount int
	Warnings     []string
}

// TaskError is a task that ended with an error (W8). ExitStatus is PVE's
// error text; LogTail the last lines of the task log.
type TaskError struct {
	UPID       string
	ExitStatus string
	LogTail    []string
}

func (e *TaskError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "PVE task %s failed: %s", e.UPID, e.ExitStatus)
	if len(e.LogTail) > 0 {
		b.WriteString("\ntask log (last lines):\n")
		b.WriteString(strings.Join(e.LogTail, "\n"))
	}
	return b.String()
}

// TaskStillRunningError is returned when the context ends while the task
// still runs. The task goes on in PVE: resume with WaitTask(UPID).
type TaskStillRunningError struct {
	UPID string
	Err  error // the context's error
}

func (e *TaskStillRunningError) Error() string {
	return fmt.Sprintf("PVE task %s is still running (stopped waiting: %v); wait for it again or check it in PVE", e.UPID, e.Err)
}

func (e *TaskStillRunningError) Unwrap() error { return e.Err }

const (
	taskLogTailLines = 20
	taskLogPageSize  = 500
	taskLogMaxLines  = 100000
)

type taskStatus struct {
	Status     string `json:"status"`
	ExitStatus string `json:"exitstatus"`
}

var warningsExitPattern = regexp.MustCompile(`^WARNINGS: ([0-9]+)$`)

// WaitTask polls the task until it stops (W8). "OK" is success; "WARNINGS:
// N" is success with the warning lines of the log; anything else is a
// *TaskError carrying the log tail. An empty UPID is a write that already
// happened synchronously (W9) and succeeds at once. When ctx ends first the
// error is a *TaskStillRunningError.
func (c *Client) WaitTask(ctx context.Context, upid string) (*TaskResult, error) {
	if strings.TrimSpace(upid) == "" {
		return &TaskResult{ExitStatus: "OK"}, nil
	}
	parsed, err := ParseUPID(upid)
	if err != nil {
		return nil, err
	}
	// A task may change pool membership (create, restore, clone, destroy)
	// until it ends.
	defer c.noteWrite("")
	path := "/nodes/" + url.PathEscape(parsed.Node) + "/tasks/" + url.PathEscape(parsed.Raw) + "/status"
	for attempt := 0; ; attempt++ {
		var status taskStatus
		if err := c.Get(ctx, path, nil, &status); err != nil {
			if ctx.Err() != nil {
				return nil, &TaskStillRunningError{UPID: parsed.Raw, Err: ctx.Err()}
			}
			return nil, err
		}
		if status.Status == "stopped" {
			return c.taskOutcome(ctx, parsed, c.redactor.redact(strings.TrimSpace(status.ExitStatus)))
		}
		if err := sleepCtx(ctx, c.taskPollDelay(attempt)); err != nil {
			return nil, &TaskStillRunningError{UPID: parsed.Raw, Err: err}
		}
	}
}

func (c *Client) taskOutcome(ctx context.Context, upid UPID, exit string) (*TaskResult, error) {
	if exit == "OK" {
		return &TaskResult{UPID: upid.Raw, ExitStatus: exit}, nil
	}
	lines, logErr := c.fullTaskLog(ctx, upid)
	if m := warningsExitPattern.FindStringSubmatch(exit); m != nil {
		count, _ := strconv.Atoi(m[1])
		result := &TaskResult{UPID: upid.Raw, ExitStatus: exit, WarningCount: count}
		for _, line := range lines {
			if strings.HasPrefix(line, "WARN") {
				result.Warnings = append(result.Warnings, line)
			}
		}
		// The warnings are informative; failing to read them must not turn
		// a successful task into a failure.
		return result, nil
	}
	taskErr := &TaskError{UPID: upid.Raw, ExitStatus: exit}
	if exit == "" {
		taskErr.ExitStatus = "task stopped without an exit status"
	}
	if len(lines) > taskLogTailLines {
		lines = lines[len(lines)-taskLogTailLines:]
	}
	taskErr.LogTail = lines
	if logErr != nil {
		taskErr.LogTail = append(taskErr.LogTail, "(reading the task log failed: "+logErr.Error()+")")
	}
	return nil, taskErr
}

// fullTaskLog reads the whole log page by page. Paging with an explicit
// limit works on every PVE version (limit=0 means "all" only on newer ones).
func (c *Client) fullTaskLog(ctx context.Context, upid UPID) ([]string, error) {
	var all []string
	for start := 0; start < taskLogMaxLines; {
		page, err := c.TaskLog(ctx, upid.Node, upid.Raw, start, taskLogPageSize)
		if err != nil {
			return all, err
		}
		all = append(all, page...)
		if len(page) < taskLogPageSize {
			break
		}
		start += len(page)
	}
	return all, nil
}

// TaskLog returns lines [start, start+limit) of a task log
// (GET /nodes/{node}/tasks/{upid}/log).
func (c *Client) TaskLog(ctx context.Context, node, upid string, start, limit int) ([]string, error) {
	query := url.Values{"start": {strconv.Itoa(start)}, "limit": {strconv.Itoa(limit)}}
	var entries []struct {
		N IntOrString    `json:"n"`
		T StringOrNumber `json:"t"`
	}
	path := "/nodes/" + url.PathEscape(node) + "/tasks/" + url.PathEscape(upid) + "/log"
	if err := c.Get(ctx, path, query, &entries); err != nil {
		return nil, err
	}
	lines := make([]string, 0, len(entries))
	for _, e := range entries {
		lines = append(lines, c.redactor.redact(string(e.T)))
	}
	return lines, nil
}

// LockedError is returned by WaitUnlocked when the context ends while the
// guest is still locked.
type LockedError struct {
	Node  string
	VMID  int
	Lock  string
	Cause error
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("guest %d on node %s is still locked (%s): %v", e.VMID, e.Node, e.Lock, e.Cause)
}

func (e *LockedError) Unwrap() error { return e.Cause }

// lockSuspended marks a hibernated guest; it is not a task and never clears
// by waiting (W10).
const lockSuspended = "suspended"

// WaitUnlocked reads the guest config (guestType "qemu" or "lxc") until it
// carries no lock (W10) and returns that config. A "suspended" lock returns
// at once with the config: the caller decides. A missing guest gives the
// W12 error (IsNotFound).
func (c *Client) WaitUnlocked(ctx context.Context, node, guestType string, vmid int) (map[string]any, error) {
	if guestType != "qemu" && guestType != "lxc" {
		return nil, fmt.Errorf("pve: guest type must be qemu or lxc, not %q", guestType)
	}
	path := "/nodes/" + url.PathEscape(node) + "/" + guestType + "/" + strconv.Itoa(vmid) + "/config"
	lastLock := ""
	for {
		var config map[string]any
		if err := c.Get(ctx, path, nil, &config); err != nil {
			if lastLock != "" && ctx.Err() != nil {
				return nil, &LockedError{Node: node, VMID: vmid, Lock: lastLock, Cause: ctx.Err()}
			}
			return nil, err
		}
		lastLock = ConfigString(config, "lock")
		if lastLock == "" || lastLock == lockSuspended {
			return config, nil
		}
		if err := sleepCtx(ctx, c.pollInterval); err != nil {
			return nil, &LockedError{Node: node, VMID: vmid, Lock: lastLock, Cause: err}
		}
	}
}

// ConfigString returns config[key] as text, whatever JSON type PVE used.
func ConfigString(config map[string]any, key string) string {
	switch v := config[key].(type) {
	case nil:
		return ""
	case string:
		return v
	case fmt.Stringer:
		return v.String()
	default:
		return fmt.Sprint(v)
	}
}

// taskPollDelay is the wait before the task's next status read: a fifth of
// the poll interval first, doubling up to the interval. Most tasks of a
// config change or a power action end within a few hundred milliseconds on
// PVE and are seen ended that much sooner; a long task costs one or two
// reads more than at the interval alone.
func (c *Client) taskPollDelay(attempt int) time.Duration {
	d := c.pollInterval / 5
	for ; attempt > 0 && d < c.pollInterval; attempt-- {
		d *= 2
	}
	return min(d, c.pollInterval)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// IsTaskStillRunning reports a WaitTask that stopped waiting before the
// task ended, and returns its UPID.
func IsTaskStillRunning(err error) (upid string, ok bool) {
	var running *TaskStillRunningError
	if errors.As(err, &running) {
		return running.UPID, true
	}
	return "", false
}
