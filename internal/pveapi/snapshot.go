package pveapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
)

// Guest snapshots: GET/POST .../snapshot, DELETE .../snapshot/{name},
// POST .../snapshot/{name}/rollback and PUT .../snapshot/{name}/config
// (qemu-server src/PVE/API2/Qemu.pm, pve-container
// src/PVE/API2/LXC/Snapshot.pm). Creating, deleting and rolling back run
// as tasks; changing the description is synchronous.

// Snapshot is one entry of a guest's snapshot list.
type Snapshot struct {
	Name        string
	Description string
	// SnapTime is the creation time, Unix seconds (0 while one is being
	// made).
	SnapTime int64
	// VMState tells whether a VM snapshot holds the RAM; a container's
	// snapshot never does.
	VMState bool
	// Parent is the snapshot this one was taken on top of, "" for the
	// first.
	Parent string
	// SnapState is "prepare" or "delete" while a task works on it.
	SnapState string
}

type snapshotWire struct {
	Name        StringOrNumber  `json:"name"`
	Description json.RawMessage `json:"description"`
	SnapTime    IntOrString     `json:"snaptime"`
	VMState     IntOrString     `json:"vmstate"`
	Parent      StringOrNumber  `json:"parent"`
	SnapState   string          `json:"snapstate"`
}

// currentSnapshot is the list entry that stands for the guest's current
// state, not a snapshot.
const currentSnapshot = "current"

// ListSnapshots lists a guest's snapshots, without the "current" entry PVE
// appends. A missing guest gives the W12 error (IsNotFound).
func (c *Client) ListSnapshots(ctx context.Context, node, guestType string, vmid int) ([]Snapshot, error) {
	if _, err := guestAPIOf(guestType); err != nil {
		return nil, err
	}
	var raw []snapshotWire
	if err := c.Get(ctx, guestPath(node, guestType, vmid, "/snapshot"), nil, &raw); err != nil {
		return nil, err
	}
	out := make([]Snapshot, 0, len(raw))
	for _, s := range raw {
		if s.Name.String() == currentSnapshot {
			continue
		}
		snap := Snapshot{
			Name: s.Name.String(), SnapTime: int64(s.SnapTime), VMState: s.VMState.Int() != 0,
			Parent: s.Parent.String(), SnapState: s.SnapState,
		}
		// A description is kept verbatim, as a guest's is (W20).
		desc, _, err := verbatimScalar(s.Description)
		if err != nil {
			return nil, fmt.Errorf("snapshot %q description: %w", snap.Name, err)
		}
		snap.Description = desc
		out = append(out, snap)
	}
	return out, nil
}

// FindSnapshot returns the named snapshot of a guest; found is false when
// the guest has no such snapshot. A missing guest gives the W12 error.
func (c *Client) FindSnapshot(ctx context.Context, node, guestType string, vmid int, name string) (snap Snapshot, found bool, err error) {
	list, err := c.ListSnapshots(ctx, node, guestType, vmid)
	if err != nil {
		return Snapshot{}, false, err
	}
	for _, s := range list {
		if s.Name == name {
			return s, true, nil
		}
	}
	return Snapshot{}, false, nil
}

// CreateSnapshot takes a snapshot (POST .../snapshot) and returns its
// task. vmstate (a VM's RAM) is only sent for a VM: pve-container's
// method has no such parameter. PVE saves the RAM only of a running VM.
func (c *Client) CreateSnapshot(ctx context.Context, node, guestType string, vmid int, name, description string, vmstate bool) (string, error) {
	if _, err := guestAPIOf(guestType); err != nil {
		return "", err
	}
	form := url.Values{"snapname": {name}}
	if description != "" {
		form.Set("description", description)
	}
	if vmstate && guestType == GuestTypeQemu {
		form.Set("vmstate", FormBool(true))
	}
	return c.postForUPID(ctx, guestPath(node, guestType, vmid, "/snapshot"), form)
}

// UpdateSnapshotDescription sets a snapshot's description (PUT
// .../snapshot/{name}/config, synchronous); "" clears it.
func (c *Client) UpdateSnapshotDescription(ctx context.Context, node, guestType string, vmid int, name, description string) error {
	if _, err := guestAPIOf(guestType); err != nil {
		return err
	}
	return c.Put(ctx, snapshotPath(node, guestType, vmid, name, "/config"), url.Values{"description": {description}}, nil)
}

// DeleteSnapshot deletes a snapshot (DELETE .../snapshot/{name}) and
// returns its task.
func (c *Client) DeleteSnapshot(ctx context.Context, node, guestType string, vmid int, name string) (string, error) {
	if _, err := guestAPIOf(guestType); err != nil {
		return "", err
	}
	var upid string
	if err := c.Delete(ctx, snapshotPath(node, guestType, vmid, name, ""), nil, &upid); err != nil {
		return "", err
	}
	return upid, nil
}

// RollbackSnapshot rolls a guest back to a snapshot (POST
// .../snapshot/{name}/rollback) and returns its task: the guest's current
// state, and every change since the snapshot, is lost. start starts the
// guest afterwards; a VM snapshot with RAM always resumes it running.
func (c *Client) RollbackSnapshot(ctx context.Context, node, guestType string, vmid int, name string, start bool) (string, error) {
	if _, err := guestAPIOf(guestType); err != nil {
		return "", err
	}
	form := url.Values{}
	if start {
		form.Set("start", FormBool(true))
	}
	return c.postForUPID(ctx, snapshotPath(node, guestType, vmid, name, "/rollback"), form)
}

func snapshotPath(node, guestType string, vmid int, name, suffix string) string {
	return guestPath(node, guestType, vmid, "/snapshot/"+url.PathEscape(name)+suffix)
}

// snapshotMissingPattern is the answer to a method on a snapshot the
// guest does not have (pve-guest-common src/PVE/AbstractConfig.pm
// snapshot_delete, snapshot_rollback; update_snapshot_config of both
// kinds), synchronously or as a task's exit status.
var snapshotMissingPattern = regexp.MustCompile(`^snapshot '[^']*' does not exist$`)

// IsSnapshotNotFound reports "snapshot 'NAME' does not exist", from a call
// or from a failed task.
func IsSnapshotNotFound(err error) bool {
	if apiErr, ok := AsError(err); ok {
		return snapshotMissingPattern.MatchString(firstLine(apiErr.Message))
	}
	var taskErr *TaskError
	if errors.As(err, &taskErr) {
		return snapshotMissingPattern.MatchString(firstLine(taskErr.ExitStatus))
	}
	return false
}
