package pvesim

import (
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
)

// Task is a PVE worker task (W8). Its fields are guarded by the simulator's
// lock; read them inside Sim.View or through Sim.Task.
type Task struct {
	UPID      string
	Node      string
	PID       int
	PStart    int64
	StartTime int64
	Type      string
	ID        string
	User      string
	EndTime   int64

	running    bool
	exitStatus string
	lines      []string
	warnings   int
	due        time.Time
	work       func(t *Task) error

	// A worker first takes its flocks (waiting while another worker holds
	// them, up to the lock's timeout), then runs begin: the checks and
	// changes PVE makes at the start of the worker. The locks stay held
	// until work ends the task at due.
	waiting   bool
	waitUntil time.Time
	locks     []flock
	begin     func(t *Task) error
	// beginLocksOnly releases the flocks once begin is done (see
	// workerSpec).
	beginLocksOnly bool
	// failure is an injected error (FaultTaskFail) that replaces the work;
	// undo restores what the request that started the task had changed.
	failure string
	undo    *taskUndo
}

// TaskInfo is a snapshot of a task.
type TaskInfo struct {
	UPID       string
	Node       string
	Type       string
	ID         string
	User       string
	Running    bool
	ExitStatus string
	Log        []string
}

// Log appends a line to the task log.
func (t *Task) Log(format string, args ...any) {
	t.lines = append(t.lines, fmt.Sprintf(format, args...))
}

// Warn is PVE's log_warn (pve-common src/PVE/RESTEnvironment.pm log_warn
// and warn): a "WARN: " line that is counted; a task with warnings ends
// "WARNINGS: N" and still counts as a success.
func (t *Task) Warn(format string, args ...any) {
	t.warnings++
	t.lines = append(t.lines, "WARN: "+fmt.Sprintf(format, args...))
}

// Note is a plain Perl warn inside a worker: the text lands in the task
// log as it is and is not counted, so the task still ends "OK".
func (t *Task) Note(format string, args ...any) {
	t.lines = append(t.lines, fmt.Sprintf(format, args...))
}

// Running tells whether the task has not finished yet.
func (t *Task) Running() bool { return t.running }

// ExitStatus is "OK", "WARNINGS: N" or the error text once stopped.
func (t *Task) ExitStatus() string { return t.exitStatus }

func (t *Task) info() TaskInfo {
	return TaskInfo{
		UPID: t.UPID, Node: t.Node, Type: t.Type, ID: t.ID, User: t.User,
		Running: t.running, ExitStatus: t.exitStatus,
		Log: append([]string(nil), t.lines...),
	}
}

// Task returns a snapshot of the task with that UPID.
func (s *Sim) Task(upid string) (TaskInfo, bool) {
	var out TaskInfo
	var ok bool
	s.View(func(c *Cluster) {
		if t := c.task(upid); t != nil {
			out, ok = t.info(), true
		}
	})
	return out, ok
}

// Tasks returns a snapshot of every task, oldest first.
func (s *Sim) Tasks() []TaskInfo {
	var out []TaskInfo
	s.View(func(c *Cluster) {
		for _, t := range c.tasks {
			out = append(out, t.info())
		}
	})
	return out
}

func (c *Cluster) task(upid string) *Task {
	for _, t := range c.tasks {
		if t.UPID == upid {
			return t
		}
	}
	return nil
}

// startTask forks a worker like PVE's fork_worker and returns it; the
// handler answers with its UPID. The worker holds its guest's config flock
// (guestTaskLocks) for its whole run; work runs with the model locked once
// the task's duration has passed (at once with TaskDuration 0) and its error
// becomes the task's exit status. Call with the model locked.
func (s *Sim) startTask(node, typ, id string, user identity, work func(t *Task) error) *Task {
	return s.startWorker(node, typ, id, user, workerSpec{locks: s.guestTaskLocks(typ, id), work: work})
}

// workerSpec is what a forked worker does: the flocks it takes first, the
// checks and changes at its start (begin) and the work that ends it.
type workerSpec struct {
	locks []flock
	begin func(t *Task) error
	work  func(t *Task) error
	// beginLocksOnly is a worker that holds its flocks for begin alone: it
	// calls lock_config around its first step and guards the guest with a
	// config lock after that (the snapshot workers, pve-guest-common
	// src/PVE/AbstractConfig.pm __snapshot_prepare, snapshot_rollback).
	beginLocksOnly bool
}

// startWorker forks a worker that runs spec. Call with the model locked.
func (s *Sim) startWorker(node, typ, id string, user identity, spec workerSpec) *Task {
	now := s.now()
	var pstart int64
	if n := s.cluster.Node(node); n != nil {
		// pstart is the worker's start in clock ticks (USER_HZ 100) since boot.
		pstart = int64(now.Sub(n.BootTime) / (10 * time.Millisecond))
	}
	s.pidNext += 1 + s.pidNext%7
	t := &Task{
		Node: node, PID: s.pidNext, PStart: pstart, StartTime: now.Unix(),
		Type: typ, ID: id, User: user.String(),
		running: true,
		due:     now.Add(s.opts.TaskDuration),
		work:    spec.work,
	}
	t.UPID = fmt.Sprintf("UPID:%s:%08X:%08X:%08X:%s:%s:%s:", t.Node, t.PID, t.PStart, t.StartTime, t.Type, t.ID, t.User)
	s.cluster.tasks = append(s.cluster.tasks, t)
	// A doomed task ends once its handler is done (handleArmed), so that
	// its undo covers everything the handler changed: its worker dies
	// before it takes a lock or changes anything.
	if s.doomTask(t) {
		return t
	}
	t.locks, t.begin, t.beginLocksOnly = spec.locks, spec.begin, spec.beginLocksOnly
	t.waiting = true
	t.waitUntil = now.Add(maxLockTimeout(t.locks))
	s.grantLocks(now)
	return t
}

// runTaskNow forks a worker that has finished when the handler answers,
// whatever TaskDuration is: for calls that fork a task but answer without
// its UPID, so a client could not wait for it. Call with the model locked.
func (s *Sim) runTaskNow(node, typ, id string, user identity, work func(t *Task) error) *Task {
	// The caller never sees this task, so an injected failure skips it.
	armed := s.armed
	s.armed = nil
	t := s.startWorker(node, typ, id, user, workerSpec{work: work})
	s.armed = armed
	if t.running {
		t.due = s.now()
		s.finishTask(t, t.due)
	}
	return t
}

// settleTasksLocked plays every event whose time has come, in time order:
// workers that end, workers that give up waiting for a lock, and the
// statistics cycle. It runs before any request or model access, so a
// task's effects become visible exactly when its status turns "stopped".
func (s *Sim) settleTasksLocked() {
	now := s.now()
	s.settleReplicationLocked(now)
	for {
		t, at := s.nextTaskEvent(now)
		if tick, ok := s.statsTickBefore(now, t, at); ok {
			s.takeStats(tick)
			continue
		}
		if t == nil {
			return
		}
		if t.waiting {
			file := s.blockingLock(t)
			// pve-common src/PVE/Tools.pm lock_file_full: the wait
			// for the flock timed out.
			s.endTask(t, at, errorf("%s", lockTimeoutMessage(file)))
		} else {
			s.finishTask(t, at)
		}
		s.grantLocks(at)
	}
}

// nextTaskEvent is the earliest task event due by now: a worker's end or a
// waiting worker's lock timeout; ends come first at the same time.
func (s *Sim) nextTaskEvent(now time.Time) (*Task, time.Time) {
	var next *Task
	var at time.Time
	for _, t := range s.cluster.tasks {
		if !t.running {
			continue
		}
		when := t.due
		if t.waiting {
			when = t.waitUntil
		}
		if when.After(now) {
			continue
		}
		if next == nil || when.Before(at) || when.Equal(at) && next.waiting && !t.waiting {
			next, at = t, when
		}
	}
	return next, at
}

// endTask ends a task with err at time at, without its work.
func (s *Sim) endTask(t *Task, at time.Time, err error) {
	t.waiting = false
	t.work = func(*Task) error { return err }
	s.finishTask(t, at)
}

func (s *Sim) finishTask(t *Task, at time.Time) {
	var err error
	if t.failure != "" {
		err = s.failTask(t)
	} else {
		err = runWork(t, t.work)
	}
	t.running, t.waiting = false, false
	t.EndTime = at.Unix()
	switch {
	case err != nil:
		msg := taskErrorLine(asAPIError(err).message)
		t.exitStatus = msg
		t.lines = append(t.lines, "TASK ERROR: "+msg)
	case t.warnings > 0:
		t.exitStatus = fmt.Sprintf("WARNINGS: %d", t.warnings)
		t.lines = append(t.lines, "TASK "+t.exitStatus)
	default:
		t.exitStatus = "OK"
		t.lines = append(t.lines, "TASK OK")
	}
}

// taskErrorLine is the exit status of a failed worker: fork_worker chomps
// the error and turns every remaining newline into a space (pve-common
// src/PVE/RESTEnvironment.pm fork_worker), so a multi-line error is one
// line in the task status and in the log's "TASK ERROR:" line.
func taskErrorLine(msg string) string {
	return strings.ReplaceAll(strings.TrimSuffix(msg, "\n"), "\n", " ")
}

// runWork turns a panic in a task's work into the task's failure, as a die
// inside a forked worker only ends that worker.
func runWork(t *Task, fn func(t *Task) error) (err error) {
	if fn == nil {
		return nil
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v", p)
		}
	}()
	return fn(t)
}

// upidPattern is upid_decode's grammar.
var upidPattern = regexp.MustCompile(`^UPID:([a-zA-Z0-9]([a-zA-Z0-9\-]*[a-zA-Z0-9])?):([0-9A-Fa-f]{8}):([0-9A-Fa-f]{8,9}):([0-9A-Fa-f]{8}):([^:\s]+):([^:\s]*):([^:\s]+):$`)

func (s *Sim) registerTaskRoutes() {
	s.handle(http.MethodGet, "/nodes/{node}/tasks", route{handle: s.listTasks})
	s.handle(http.MethodGet, "/nodes/{node}/tasks/{upid}", route{handle: func(*call) (any, error) {
		return []map[string]string{{"name": "log"}, {"name": "status"}}, nil
	}})
	s.handle(http.MethodGet, "/nodes/{node}/tasks/{upid}/status", route{handle: s.taskStatus})
	s.handle(http.MethodGet, "/nodes/{node}/tasks/{upid}/log", route{handle: s.taskLog})
}

// decodeUPID checks a {upid} parameter against upid_decode's grammar.
// pve-manager PVE/API2/Tasks.pm (upid_decode: "unable to parse worker upid")
func decodeUPID(upid string) error {
	if !upidPattern.MatchString(upid) {
		return paramError(map[string]string{"upid": "unable to parse worker upid"})
	}
	return nil
}

// lookupTask finds a task on the node the call was proxied to: PVE reads
// the task file there, so a UPID of another node is unknown on this one.
func lookupTask(c *call) *Task {
	t := c.cluster.task(c.str("upid"))
	if t == nil || t.Node != c.str("node") {
		return nil
	}
	return t
}

// splitTaskUser is convert_token_task: a token's tasks show the user and
// the token name apart.
func splitTaskUser(user string) (string, string) {
	if m := tokenIDPattern.FindStringSubmatch(user); m != nil {
		return m[1], user[len(m[1])+1:]
	}
	return user, ""
}

// ownsTask is check_task_user: a token sees its own tasks, a user its own
// and its tokens'.
func ownsTask(t *Task, caller identity) bool {
	user, token := splitTaskUser(t.User)
	if token != "" {
		return caller.String() == t.User || caller.String() == user
	}
	return caller.String() == t.User
}

// checkTaskAccess lets owners through and others only with priv on the
// node.
func checkTaskAccess(c *call, t *Task, priv string) error {
	if ownsTask(t, c.user) {
		return nil
	}
	return c.check("/nodes/"+c.str("node"), false, priv)
}

// taskFields are the upid_decode fields of a task, user split from token.
func taskFields(t *Task) map[string]any {
	user, token := splitTaskUser(t.User)
	out := map[string]any{
		"upid": t.UPID, "node": t.Node, "pid": t.PID, "pstart": t.PStart,
		"starttime": t.StartTime, "type": t.Type, "id": t.ID, "user": user,
	}
	if token != "" {
		out["tokenid"] = token
	}
	return out
}

// pve-manager PVE/API2/Tasks.pm read_task_status
func (s *Sim) taskStatus(c *call) (any, error) {
	if err := decodeUPID(c.str("upid")); err != nil {
		return nil, err
	}
	t := lookupTask(c)
	if t == nil {
		return nil, paramError(map[string]string{"upid": "no such task"})
	}
	if err := checkTaskAccess(c, t, "Sys.Audit"); err != nil {
		return nil, err
	}
	out := taskFields(t)
	out["status"] = "running"
	if !t.running {
		out["status"] = "stopped"
		out["exitstatus"] = t.exitStatus
	}
	return out, nil
}

// taskLog is read_task_log over dump_logfile: lines numbered from 1, start
// skips lines, limit 0 reads to the end, "total" counts all lines. PVE does
// not check that the task exists here: a missing log file reads as one
// line saying so.
// pve-manager PVE/API2/Tasks.pm read_task_log
func (s *Sim) taskLog(c *call) (any, error) {
	upid := c.str("upid")
	if err := decodeUPID(upid); err != nil {
		return nil, err
	}
	t := lookupTask(c)
	owner := &Task{User: upidPattern.FindStringSubmatch(upid)[8]}
	if t != nil {
		owner = t
	}
	if err := checkTaskAccess(c, owner, "Sys.Audit"); err != nil {
		return nil, err
	}
	if c.boolParam("download") {
		return nil, errorf("'download' is not supported by this simulator") // not simulated: the log download
	}
	if t == nil {
		total := 1
		c.total = &total
		return []map[string]any{{"n": 1, "t": "unable to open file - No such file or directory"}}, nil
	}
	start, limit := c.intParam("start", 0), c.intParam("limit", 50)
	lines := []map[string]any{}
	for i, text := range t.lines {
		if i < start {
			continue
		}
		if limit > 0 && len(lines) >= limit {
			break
		}
		lines = append(lines, map[string]any{"n": i + 1, "t": text})
	}
	total := len(t.lines)
	if total == 0 {
		total = 1
		lines = append(lines, map[string]any{"n": 1, "t": "no content"})
	}
	c.total = &total
	return lines, nil
}

// statusType is upid_normalize_status_type.
func statusType(status string) string {
	switch {
	case status == "":
		return "unknown"
	case status == "OK":
		return "ok"
	case strings.HasPrefix(status, "WARNINGS: "):
		return "warning"
	case status == "unexpected status":
		return "unknown"
	}
	return "error"
}

// listTasks is node_tasks: running tasks (source active or all) first, then
// finished ones, most recently finished first, as pveproxy reads its index
// file backwards.
func (s *Sim) listTasks(c *call) (any, error) {
	node := c.str("node")
	source := c.str("source")
	if source == "" {
		source = "archive"
	}
	wanted := map[string]bool{"ok": true, "warning": true, "error": true, "unknown": true}
	if f, ok := c.param("statusfilter"); ok && !c.boolParam("errors") {
		wanted = map[string]bool{}
		for _, v := range splitList(f) {
			wanted[strings.ToLower(v)] = true
		}
	} else if c.boolParam("errors") {
		wanted["ok"] = false
	}
	auditor := c.can("/nodes/"+node, false, "Sys.Audit")
	since, hasSince := c.param("since")
	until, hasUntil := c.param("until")
	keep := func(t *Task) bool {
		user, _ := splitTaskUser(t.User)
		if f := c.str("userfilter"); f != "" && !strings.Contains(strings.ToLower(user), strings.ToLower(f)) {
			return false
		}
		if !auditor && !ownsTask(t, c.user) {
			return false
		}
		if f := c.str("typefilter"); f != "" && t.Type != f {
			return false
		}
		if v := c.str("vmid"); v != "" && t.ID != v {
			return false
		}
		if n, err := strconv.ParseInt(since, 10, 64); hasSince && err == nil && t.StartTime < n {
			return false
		}
		if n, err := strconv.ParseInt(until, 10, 64); hasUntil && err == nil && t.StartTime > n {
			return false
		}
		return wanted[statusType(t.exitStatus)]
	}

	var active, finished []*Task
	for _, t := range c.cluster.tasks {
		if t.Node != node {
			continue
		}
		if t.running {
			active = append(active, t)
		} else {
			finished = append(finished, t)
		}
	}
	sort.SliceStable(active, func(i, j int) bool { return active[i].StartTime > active[j].StartTime })
	sort.SliceStable(finished, func(i, j int) bool { return finished[i].EndTime > finished[j].EndTime })
	var candidates []*Task
	if source != "archive" {
		candidates = append(candidates, active...)
	}
	if source != "active" {
		candidates = append(candidates, finished...)
	}

	start, limit := c.intParam("start", 0), c.intParam("limit", 50)
	count := 0
	out := []map[string]any{}
	for _, t := range candidates {
		if !keep(t) {
			continue
		}
		count++
		if count <= start || len(out) >= limit {
			continue
		}
		e := taskFields(t)
		if t.running {
			e["status"] = "RUNNING"
		} else {
			e["endtime"] = t.EndTime
			e["status"] = t.exitStatus
		}
		out = append(out, e)
	}
	c.total = &count
	return out, nil
}

// splitList is PVE::Tools::split_list (pvegrammar.SplitList).
func splitList(s string) []string { return pvegrammar.SplitList(s) }

// itoa is strconv.Itoa, for ids in messages and maps.
func itoa(n int) string { return strconv.Itoa(n) }
