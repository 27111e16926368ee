package pvesim

import "time"

// Where qemu-server checks: what an API handler checks before fork_worker
// answers the call with an error; what its worker checks under lock_config
// runs in the worker's begin, once the worker holds the guest's config
// flock, so it fails the task at its start and sees what an earlier worker
// that held the flock left behind. The effect (work) shows when the task
// stops.

// qemuCreateLockTimeout is create_and_lock_config's wait for the config
// flock in create_vm's synchronous part (pve-guest-common
// src/PVE/AbstractConfig.pm create_and_lock_config: lock_config_full with
// 5 s).
const qemuCreateLockTimeout = 5 * time.Second

// startQemuWorker forks a QEMU task whose worker holds the guest's config
// flock for its whole run: begin is what the worker checks and changes
// under lock_config at its start, work the effect. Call with the model
// locked.
func (s *Sim) startQemuWorker(node, typ string, vmid int, user identity, begin, work func(t *Task) error) *Task {
	return s.startWorker(node, typ, itoa(vmid), user, workerSpec{
		locks: s.guestTaskLocks(typ, itoa(vmid)), begin: begin, work: work,
	})
}

// waitQemuFlock is lock_config (or lock_config_full with timeout) in the
// middle of a synchronous handler: the handler's early checks ran without
// the flock, the rest waits for it. While it waits, other calls and
// workers go on, so the handler must not have changed the model before.
// It returns with the model locked and settled, and fails with
// lock_file_full's timeout text (pve-common src/PVE/Tools.pm
// lock_file_full). Call with the model locked.
func (c *call) waitQemuFlock(vmid int, timeout time.Duration) error {
	s := c.sim
	file := GuestLockFile(QEMU, vmid)
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

// assertTagPermissions is assert_tag_permissions for a VM: VM.Config.Options
// on the VM (never the pool), whether or not the tags change. Each tag that
// changes would also need Sys.Modify on / unless datacenter.cfg's
// user-tag-access allows it (get_allowed_tags); the simulator has no
// datacenter.cfg, and the defaults (user-allow 'free', no registered tags)
// allow every tag.
// pve-guest-common src/PVE/GuestHelpers.pm assert_tag_permissions,
// get_allowed_tags; pve-access-control src/PVE/RPCEnvironment.pm
// check_vm_perm.
func assertTagPermissions(c *call, vmid int) error {
	return c.checkVMPerm(vmid, "", "VM.Config.Options")
}
