package pvesim

import "time"

// Container handlers that take a config flock part-way: PVE runs their
// early checks first and only then waits for the flock (pve-guest-common
// src/PVE/AbstractConfig.pm lock_config, 10 s, and create_and_lock_config,
// 5 s; pve-common src/PVE/Tools.pm lock_file_full), so a bad request is
// refused at once even while a worker holds the container.

// createLockTimeout is create_and_lock_config's wait for the flock
// (pve-guest-common src/PVE/AbstractConfig.pm create_and_lock_config:
// lock_config_full with 5 s).
const createLockTimeout = 5 * time.Second

// ctHandlerFlock waits, inside a container handler, until no worker holds
// the container's config flock, for up to timeout; then it fails with
// lock_file_full's timeout (pve-common src/PVE/Tools.pm lock_file_full).
// The model is unlocked while it waits, so the worker can end; the
// handler's armed task failure is set aside meanwhile, so that another
// request's workers are not doomed by it. Call with the model locked; it
// returns with the model locked and its tasks settled.
func (s *Sim) ctHandlerFlock(vmid int, timeout time.Duration) error {
	file := GuestLockFile(LXC, vmid)
	deadline := s.now().Add(timeout)
	armed := s.armed
	defer func() { s.armed = armed }()
	for {
		s.settleTasksLocked()
		if !s.flockHeld(file, false, nil) {
			return nil
		}
		// With a test's clock the wait cannot pass by itself: a holder
		// that stays past the deadline makes the call time out at once.
		if !s.now().Before(deadline) || s.opts.Now != nil && s.flockFreeAt(file).After(deadline) {
			return errorf("%s", lockTimeoutMessage(file))
		}
		s.armed = nil
		s.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
		s.mu.Lock()
	}
}
