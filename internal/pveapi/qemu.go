package pveapi

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// QemuConfig reads a VM's configuration (GET /nodes/{node}/qemu/{vmid}/config)
// with pending changes applied, so a change that waits for a reboot reads
// back as written. A missing VM gives the W12 error (IsNotFound).
func (c *Client) QemuConfig(ctx context.Context, node string, vmid int) (GuestConfig, error) {
	return c.guestConfig(ctx, node, GuestTypeQemu, vmid)
}

// QemuPendingConfig lists each config key with its current value and the
// change waiting for the next reboot (GET .../qemu/{vmid}/pending).
func (c *Client) QemuPendingConfig(ctx context.Context, node string, vmid int) ([]PendingEntry, error) {
	return c.guestPending(ctx, node, GuestTypeQemu, vmid)
}

// QemuStatus reads GET .../qemu/{vmid}/status/current. Use PowerState, not
// Status, to tell a paused VM from a running one (W18).
func (c *Client) QemuStatus(ctx context.Context, node string, vmid int) (*GuestStatus, error) {
	return c.guestStatus(ctx, node, GuestTypeQemu, vmid)
}

// CreateQemu creates a VM (POST /nodes/{node}/qemu) and returns the task id.
// vmid is added to params; params is not modified. A taken vmid fails
// synchronously (IsAlreadyExists, W13).
func (c *Client) CreateQemu(ctx context.Context, node string, vmid int, params url.Values) (string, error) {
	return c.createGuest(ctx, node, GuestTypeQemu, vmid, params)
}

// UpdateQemuConfig changes a VM's configuration synchronously (PUT
// .../config, W9): when it returns nil the change is made or pending. Build
// params with wire.ConfigDelta; a key both set and deleted is refused here,
// as PVE would refuse it (W16).
func (c *Client) UpdateQemuConfig(ctx context.Context, node string, vmid int, params url.Values) error {
	return c.updateGuestConfig(ctx, node, GuestTypeQemu, vmid, params)
}

// UpdateQemuConfigAsync changes a VM's configuration in a task (POST
// .../config, W9), the form to use when the change allocates storage or
// hotplugs. The UPID is empty when PVE finished within its background delay.
// Checks params like UpdateQemuConfig (W16).
func (c *Client) UpdateQemuConfigAsync(ctx context.Context, node string, vmid int, params url.Values) (string, error) {
	if err := checkConfigUpdate(params); err != nil {
		return "", err
	}
	return c.postForUPID(ctx, guestPath(node, GuestTypeQemu, vmid, "/config"), params)
}

// ResizeQemuDisk grows disk to size (PUT .../resize), a task (W22). size is
// an absolute size ("32G") or an increment ("+1G"); shrinking fails in the
// task, so callers refuse it earlier.
func (c *Client) ResizeQemuDisk(ctx context.Context, node string, vmid int, disk, size string) (string, error) {
	return c.resizeGuestDisk(ctx, node, GuestTypeQemu, vmid, disk, size)
}

// MoveQemuDisk moves disk to another storage, keeping its data (POST
// .../move_disk, W23). deleteSource removes the old volume after the copy;
// without it the old volume stays as unusedN. format ("raw", "qcow2",
// "vmdk") may be empty to keep PVE's choice.
func (c *Client) MoveQemuDisk(ctx context.Context, node string, vmid int, disk, storage string, deleteSource bool, format string) (string, error) {
	form := url.Values{"disk": {disk}, "storage": {storage}}
	if deleteSource {
		form.Set("delete", FormBool(true))
	}
	if format != "" {
		form.Set("format", format)
	}
	return c.postForUPID(ctx, guestPath(node, GuestTypeQemu, vmid, "/move_disk"), form)
}

// MigrateQemu moves a VM to node target (POST .../migrate). A running VM
// needs online; local disks need withLocalDisks.
func (c *Client) MigrateQemu(ctx context.Context, node string, vmid int, target string, online, withLocalDisks bool) (string, error) {
	form := url.Values{"target": {target}}
	if online {
		form.Set("online", FormBool(true))
	}
	if withLocalDisks {
		form.Set("with-local-disks", FormBool(true))
	}
	return c.postForUPID(ctx, guestPath(node, GuestTypeQemu, vmid, "/migrate"), form)
}

// UnlinkQemuDisks removes disks from the config (PUT .../unlink, synchronous).
// Without force a disk is detached to unusedN and its data stays (W24);
// with force, and always for unusedN keys, the volume is destroyed.
func (c *Client) UnlinkQemuDisks(ctx context.Context, node string, vmid int, ids []string, force bool) error {
	if len(ids) == 0 {
		return errors.New("pve: unlink needs at least one disk")
	}
	form := url.Values{"idlist": {strings.Join(ids, ",")}}
	if force {
		form.Set("force", FormBool(true))
	}
	return c.Put(ctx, guestPath(node, GuestTypeQemu, vmid, "/unlink"), form, nil)
}

// Power actions of POST .../qemu/{vmid}/status/{action}.
const (
	QemuStart    = "start"
	QemuStop     = "stop"
	QemuShutdown = "shutdown"
	QemuReboot   = "reboot"
	QemuSuspend  = "suspend"
	QemuResume   = "resume"
	QemuReset    = "reset"
)

var qemuStatusActions = map[string]bool{
	QemuStart: true, QemuStop: true, QemuShutdown: true, QemuReboot: true,
	QemuSuspend: true, QemuResume: true, QemuReset: true,
}

// QemuStatusAction runs a power action (POST .../status/{action}) and
// returns its task id. params carries the action's options (timeout,
// forceStop, todisk, ...) and may be nil. A start on a locked VM is
// accepted and waits for the lock inside its task (W10).
func (c *Client) QemuStatusAction(ctx context.Context, node string, vmid int, action string, params url.Values) (string, error) {
	if !qemuStatusActions[action] {
		return "", fmt.Errorf("pve: unknown VM power action %q (want start, stop, shutdown, reboot, suspend, resume or reset)", action)
	}
	return c.guestStatusAction(ctx, node, GuestTypeQemu, vmid, action, params)
}

// DeleteQemu destroys a VM and its disks (DELETE .../qemu/{vmid}), templates
// included (W17). purge also removes it from backup jobs, replication and HA;
// destroyUnreferenced also destroys volumes of this VMID that the config does
// not reference. PVE refuses to destroy a running VM: stop it first. A
// missing VM gives the W12 error (IsNotFound).
func (c *Client) DeleteQemu(ctx context.Context, node string, vmid int, purge, destroyUnreferenced bool) (string, error) {
	return c.deleteGuest(ctx, node, GuestTypeQemu, vmid, purge, destroyUnreferenced)
}

// TemplateQemu turns a VM into a template (POST .../template), a task for
// qemu (W9) and one-way (W17). disk converts only that disk and may be empty.
func (c *Client) TemplateQemu(ctx context.Context, node string, vmid int, disk string) (string, error) {
	form := url.Values{}
	if disk != "" {
		form.Set("disk", disk)
	}
	return c.postForUPID(ctx, guestPath(node, GuestTypeQemu, vmid, "/template"), form)
}

// CloneQemu clones VM or template vmid (POST .../clone); params carries
// newid and the clone options (full, name, storage, target, pool, ...).
// Clone has no start option (W14): start the clone afterwards with
// QemuStatusAction. A taken newid fails synchronously (IsAlreadyExists,
// W13); a lost answer must be resolved by looking at newid, not by
// cloning again.
func (c *Client) CloneQemu(ctx context.Context, node string, vmid int, params url.Values) (string, error) {
	return c.cloneGuest(ctx, node, GuestTypeQemu, vmid, params)
}
