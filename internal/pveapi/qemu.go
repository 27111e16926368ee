package pveapi

import (
	"context"
	"errors"
	"net/url"
	"strings"
)

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

// TemplateQemu turns a VM into a template (POST .../template), a task for
// qemu (W9) and one-way (W17). disk converts only that disk and may be empty.
func (c *Client) TemplateQemu(ctx context.Context, node string, vmid int, disk string) (string, error) {
	form := url.Values{}
	if disk != "" {
		form.Set("disk", disk)
	}
	return c.postForUPID(ctx, guestPath(node, GuestTypeQemu, vmid, "/template"), form)
}
