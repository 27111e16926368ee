package pvesim

// Where qemu-server checks: what an API handler checks before fork_worker
// answers the call with an error; what its worker checks under lock_config
// runs in the worker's begin, once the worker holds the guest's config
// flock, so it fails the task at its start and sees what an earlier worker
// that held the flock left behind. The effect (work) shows when the task
// stops.

// startQemuWorker forks a QEMU task whose worker holds the guest's config
// flock for its whole run: begin is what the worker checks and changes
// under lock_config at its start, work the effect. Call with the model
// locked.
func (s *Sim) startQemuWorker(node, typ string, vmid int, user identity, begin, work func(t *Task) error) *Task {
	return s.startWorker(node, typ, itoa(vmid), user, workerSpec{
		locks: s.guestTaskLocks(typ, itoa(vmid)), begin: begin, work: work,
	})
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
