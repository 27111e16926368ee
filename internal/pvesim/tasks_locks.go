package pvesim

import (
	"strconv"
	"time"
)

// Config flocks held by workers (pve-guest-common src/PVE/AbstractConfig.pm
// lock_config_full, lock_config_shared; pve-common src/PVE/Tools.pm
// lock_file_full). A worker that finds a flock taken waits for it up to the
// lock's timeout and then dies with "can't lock file '...' - got timeout";
// a synchronous call waits the same way before it answers.

// flock is a config flock a worker takes before it starts.
type flock struct {
	file    string
	shared  bool
	timeout time.Duration
}

const (
	// configLockTimeout is lock_config's timeout (AbstractConfig.pm
	// lock_config: lock_config_full with 10 s).
	configLockTimeout = 10 * time.Second
	// workerLockTimeout is the 1 s that qemu-server's create_vm and
	// clone_vm workers give lock_config_full (src/PVE/API2/Qemu.pm).
	workerLockTimeout = time.Second
)

// noLockTasks are guest tasks whose worker does not hold the guest's config
// flock for its run: pve-container's clone_vm takes the flocks only around
// each config write (lock_and_reload) and guards the guests with config
// locks instead (src/PVE/API2/LXC.pm clone_vm). The snapshot workers of
// both take it only around each config change and guard the guest with the
// "snapshot", "snapshot-delete" or "rollback" config lock meanwhile
// (pve-guest-common src/PVE/AbstractConfig.pm __snapshot_prepare,
// __snapshot_commit, snapshot_delete, snapshot_rollback).
// pve-container's move_volume worker takes the flock only around its
// final config write and is guarded by the "disk" config lock its handler
// sets (src/PVE/API2/LXC.pm move_volume $storage_realcmd); its vm_resume
// worker takes none at all (src/PVE/API2/LXC/Status.pm vm_resume).
var noLockTasks = map[string]bool{
	"vzclone":    true,
	"qmsnapshot": true, "qmdelsnapshot": true, "qmrollback": true,
	"vzsnapshot": true, "vzdelsnapshot": true, "vzrollback": true,
	"move_volume": true, "vzresume": true,
}

// guestTaskLocks is the flock a guest task's worker holds for its whole run:
// every worker of qemu-server and pve-container that changes a guest runs
// under lock_config (QemuServer.pm vm_start, vm_stop, destroy_vm; Qemu.pm
// resize_vm, move_vm_disk, update_vm_api's worker, template; LXC.pm and
// LXC/Status.pm likewise). qemu-server's create and restore workers wait
// 1 s for it (Qemu.pm create_vm: lock_config_full($vmid, 1, ...)). Call
// with the model locked.
func (s *Sim) guestTaskLocks(typ, id string) []flock {
	vmid, err := strconv.Atoi(id)
	if err != nil || noLockTasks[typ] {
		return nil
	}
	g := s.cluster.Guests[vmid]
	if g == nil {
		return nil
	}
	timeout := configLockTimeout
	if typ == "qmcreate" || typ == "qmrestore" {
		timeout = workerLockTimeout
	}
	return []flock{{file: GuestLockFile(g.Type, vmid), timeout: timeout}}
}

func maxLockTimeout(locks []flock) time.Duration {
	var out time.Duration
	for _, l := range locks {
		out = max(out, l.timeout)
	}
	return out
}

// blockingLock is the file of the first flock t wants that another running
// worker holds in a conflicting mode, "" when t can take all of them.
func (s *Sim) blockingLock(t *Task) string {
	for _, want := range t.locks {
		if s.flockHeld(want.file, want.shared, t) {
			return want.file
		}
	}
	return ""
}

// flockHeld tells whether a worker other than self holds file in a mode
// that conflicts with the wanted one (only shared locks go together).
func (s *Sim) flockHeld(file string, shared bool, self *Task) bool {
	for _, o := range s.cluster.tasks {
		if o == self || !o.running || o.waiting {
			continue
		}
		for _, held := range o.locks {
			if held.file == file && (!held.shared || !shared) {
				return true
			}
		}
	}
	return false
}

// grantLocks lets every waiting worker whose flocks are free take them at
// time at, oldest first, and start: begin runs, and the task runs for
// TaskDuration from then (ends at once with TaskDuration 0). A worker whose
// begin fails ends there and frees its locks for the next.
func (s *Sim) grantLocks(at time.Time) {
	for changed := true; changed; {
		changed = false
		for _, t := range s.cluster.tasks {
			if !t.running || !t.waiting || s.blockingLock(t) != "" {
				continue
			}
			changed = true
			t.waiting = false
			t.due = at.Add(s.opts.TaskDuration)
			if err := runWork(t, t.begin); err != nil {
				s.endTask(t, at, err)
				continue
			}
			if t.beginLocksOnly {
				t.locks = nil
			}
			if s.opts.TaskDuration <= 0 {
				s.finishTask(t, t.due)
			}
		}
	}
}

// createLockTimeout is create_and_lock_config's wait for the config flock
// in the create, restore and clone handlers' synchronous part
// (pve-guest-common src/PVE/AbstractConfig.pm create_and_lock_config:
// lock_config_full with 5 s).
const createLockTimeout = 5 * time.Second

// waitGuestFlock is lock_config (or lock_config_full with timeout) in the
// middle of a synchronous handler: the handler's early checks ran without
// the flock, the rest waits for it. While it waits, other calls and
// workers go on, so the handler must not have changed the model before.
// It returns with the model locked and settled, and fails with
// lock_file_full's timeout text (pve-common src/PVE/Tools.pm
// lock_file_full). Call with the model locked.
func (c *call) waitGuestFlock(typ GuestType, vmid int, timeout time.Duration) error {
	s := c.sim
	file := GuestLockFile(typ, vmid)
	if !s.flockHeld(file, false, nil) {
		return nil
	}
	// A task failure drawn for this call belongs to it alone: keep it
	// from the calls that run while this one waits, and take the state
	// it undoes after the wait (the handler changed nothing before).
	armed := s.armed
	s.armed = nil
	s.mu.Unlock()
	err := s.waitFlockFile(file, timeout)
	if err != nil {
		// waitFlockFile returns unlocked on a timeout.
		s.mu.Lock()
		s.settleTasksLocked()
	}
	s.armed = armed
	if armed != nil {
		armed.before = snapshotCluster(s.cluster)
	}
	return err
}

// waitFlock is lock_config in a synchronous handler: while a worker holds
// the guest's flock the call waits, and after configLockTimeout it fails
// with pve-common src/PVE/Tools.pm lock_file_full's timeout. It returns with the model locked and
// settled when the flock is free. Call with the model unlocked.
func (s *Sim) waitFlock(path string) error {
	return s.waitFlockFile(guestLockFile(path), configLockTimeout)
}

// waitFlockFile is lock_file_full in a synchronous handler for one lock
// file and timeout (lock_config's 10 s, create_and_lock_config's 5 s),
// failing with its timeout text (pve-common src/PVE/Tools.pm
// lock_file_full). It returns with the model locked and settled when the
// flock is free. Call with the model unlocked.
func (s *Sim) waitFlockFile(file string, timeout time.Duration) error {
	deadline := s.now().Add(timeout)
	for {
		s.mu.Lock()
		s.settleTasksLocked()
		if file == "" || !s.flockHeld(file, false, nil) {
			return nil
		}
		// With a test's clock the wait cannot pass by itself: a holder
		// that stays past the deadline makes the call time out at once.
		if !s.now().Before(deadline) || s.opts.Now != nil && s.flockFreeAt(file).After(deadline) {
			s.mu.Unlock()
			return errorf("%s", lockTimeoutMessage(file))
		}
		s.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
	}
}

// flockFreeAt is when the workers holding file will have ended.
func (s *Sim) flockFreeAt(file string) time.Time {
	var out time.Time
	for _, o := range s.cluster.tasks {
		if !o.running || o.waiting {
			continue
		}
		for _, held := range o.locks {
			if held.file == file && o.due.After(out) {
				out = o.due
			}
		}
	}
	return out
}
