package pveapi

import (
	"context"
)

// What a guest does under HA: PVE turns a migration, start or stop of an
// HA-managed guest into a request to the HA stack, whose task ends before
// the guest moves or changes power (qemu-server src/PVE/API2/Qemu.pm
// migrate_vm, vm_start, vm_stop, vm_shutdown; pve-container
// src/PVE/API2/LXC.pm migrate_vm and src/PVE/API2/LXC/Status.pm). The
// guest gets there in the HA manager's next rounds.

// Task types of the HA requests a guest endpoint makes instead of acting.
const (
	TaskHAStart   = "hastart"
	TaskHAStop    = "hastop"
	TaskHAMigrate = "hamigrate"
)

// IsHARequestTask tells whether the task only asked the HA stack to act:
// the guest is not yet where the task names.
func IsHARequestTask(upid string) bool {
	parsed, err := ParseUPID(upid)
	if err != nil {
		return false
	}
	switch parsed.Type {
	case TaskHAStart, TaskHAStop, TaskHAMigrate:
		return true
	}
	return false
}

// HASettled tells whether the HA manager's state of a service is one it
// stays in: started, stopped, or out of HA's hands (ignored, disabled).
// migrate, relocate, request_start, request_stop, fence, recovery and
// freeze are on the way; error stays until an operator acts.
// pve-ha-manager src/PVE/HA/Manager.pm (the next_state_* handlers).
func HASettled(state string) bool {
	switch state {
	case "started", "stopped", "ignored", "disabled", "":
		return true
	}
	return false
}

// PollUntil calls check at the client's poll interval until it reports
// done or fails, or ctx ends (then ctx's error).
func (c *Client) PollUntil(ctx context.Context, check func(ctx context.Context) (done bool, err error)) error {
	for attempt := 0; ; attempt++ {
		done, err := check(ctx)
		if err != nil || done {
			return err
		}
		if err := sleepCtx(ctx, c.taskPollDelay(attempt)); err != nil {
			return err
		}
	}
}
