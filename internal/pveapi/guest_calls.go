package pveapi

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// The calls VMs and containers share take the guest type (GuestTypeQemu or
// GuestTypeLXC) as a value; what the two types' endpoints differ in is
// described once, in guestAPIs, rather than in a pair of functions per call.
// Calls only one type has (a VM's asynchronous config update and unlink, a
// container's migrate options) live in qemu.go and lxc.go.

// guestAPI is what one guest type's endpoints differ in.
type guestAPI struct {
	// noun is how PVE names the type in its messages: "VM", "CT".
	noun string
	// word is how the provider's own messages name it.
	word string
	// moveVolume is the endpoint moving a disk or mount point, and
	// moveParam its parameter naming the slot.
	moveVolume, moveParam string
	// statusActions are the actions of POST .../status/{action}, in the
	// order an error lists them.
	statusActions []string
	// createRequires is a create parameter PVE requires of this type.
	createRequires string
	// createOnly is a config key PVE refuses to set or delete after
	// create, with "unable to modify read-only option" (W34).
	createOnly string
}

var guestAPIs = map[string]guestAPI{
	GuestTypeQemu: {
		noun: "VM", word: "VM",
		moveVolume: "/move_disk", moveParam: "disk",
		statusActions: []string{QemuStart, QemuStop, QemuShutdown, QemuReboot, QemuSuspend, QemuResume, QemuReset},
	},
	GuestTypeLXC: {
		noun: "CT", word: "container",
		moveVolume: "/move_volume", moveParam: "volume",
		statusActions: []string{LXCStart, LXCStop, LXCShutdown, LXCReboot, LXCSuspend, LXCResume},
		// W35: PVE requires ostemplate and never reports it back.
		createRequires: "ostemplate",
		createOnly:     "unprivileged",
	},
}

// guestAPIOf returns the facts of guestType, or an error for a type that
// is neither qemu nor lxc.
func guestAPIOf(guestType string) (guestAPI, error) {
	api, ok := guestAPIs[guestType]
	if !ok {
		return guestAPI{}, fmt.Errorf("pve: unknown guest type %q (want %s or %s)", guestType, GuestTypeQemu, GuestTypeLXC)
	}
	return api, nil
}

// GuestConfig reads a guest's configuration (GET
// /nodes/{node}/{qemu|lxc}/{vmid}/config) with pending changes applied,
// PVE's default, so a change that waits for a restart reads back as
// written. A container's mount points come in the live form with their
// volume ids (W37), NICs with ip/gw inline (W38), features as one
// composite value (W33); the ostemplate a container was made from is never
// reported (W35). A missing guest gives the W12 error (IsNotFound).
func (c *Client) GuestConfig(ctx context.Context, node, guestType string, vmid int) (GuestConfig, error) {
	if _, err := guestAPIOf(guestType); err != nil {
		return nil, err
	}
	var config GuestConfig
	if err := c.Get(ctx, guestPath(node, guestType, vmid, "/config"), nil, &config); err != nil {
		return nil, err
	}
	if config == nil {
		config = GuestConfig{}
	}
	return config, nil
}

// GuestPending lists each config key with its current value and the
// change waiting for the next restart (GET .../pending).
func (c *Client) GuestPending(ctx context.Context, node, guestType string, vmid int) ([]PendingEntry, error) {
	if _, err := guestAPIOf(guestType); err != nil {
		return nil, err
	}
	var entries []PendingEntry
	if err := c.Get(ctx, guestPath(node, guestType, vmid, "/pending"), nil, &entries); err != nil {
		return nil, err
	}
	return entries, nil
}

// GuestStatus reads GET .../status/current. Use PowerState, not Status, to
// tell a paused VM from a running one (W18); a container has no QMP state
// and is running or stopped.
func (c *Client) GuestStatus(ctx context.Context, node, guestType string, vmid int) (*GuestStatus, error) {
	if _, err := guestAPIOf(guestType); err != nil {
		return nil, err
	}
	var raw guestStatusWire
	if err := c.Get(ctx, guestPath(node, guestType, vmid, "/status/current"), nil, &raw); err != nil {
		return nil, err
	}
	status := raw.status()
	if status.VMID == 0 {
		status.VMID = vmid
	}
	return status, nil
}

// CreateGuest creates a VM or container (POST /nodes/{node}/{qemu|lxc})
// and returns the task id. vmid is added to a copy of params; params is not
// modified. A container needs ostemplate, which PVE never reports back
// (W35); PVE 9 makes it unprivileged unless params say unprivileged=0, and
// the choice is final (W34). A taken vmid fails synchronously (IsAlreadyExists,
// W13). Every config key, a container's tty included (W39), may be sent here.
func (c *Client) CreateGuest(ctx context.Context, node, guestType string, vmid int, params url.Values) (string, error) {
	api, err := guestAPIOf(guestType)
	if err != nil {
		return "", err
	}
	if api.createRequires != "" && params.Get(api.createRequires) == "" {
		return "", fmt.Errorf("pve: create %s %d needs %s", api.noun, vmid, api.createRequires)
	}
	form := cloneValues(params)
	id := strconv.Itoa(vmid)
	if given := form.Get("vmid"); given != "" && given != id {
		return "", fmt.Errorf("pve: create %s %d: the parameters name vmid %s", api.noun, vmid, given)
	}
	form.Set("vmid", id)
	return c.postForUPID(ctx, "/nodes/"+url.PathEscape(node)+"/"+guestType, form)
}

// UpdateGuestConfig changes a guest's configuration synchronously (PUT
// .../config, W9): when it returns nil the change is made or pending. Build
// params with wire.ConfigDelta. Refused here, as PVE would refuse them: a
// key both set and deleted (W16), and a container's unprivileged, which is
// fixed at create (W34: changing it means a new container).
//
// On a running container PVE applies what it can at once and keeps the rest
// pending until the next restart (see GuestPending); when applying a change
// fails PVE still saves the others and answers 400 with the failed key in
// Error.Errors ("unable to hotplug KEY: ..."). Under an API token, a
// container's bind mounts and feature flags other than nesting are 403
// (W33, W36, see IsRootOnly).
func (c *Client) UpdateGuestConfig(ctx context.Context, node, guestType string, vmid int, params url.Values) error {
	api, err := guestAPIOf(guestType)
	if err != nil {
		return err
	}
	if api.createOnly != "" && touchesKey(params, api.createOnly) {
		return fmt.Errorf("pve: %s is fixed when a container is created; PVE refuses to modify or delete it, so a change needs a new container", api.createOnly)
	}
	if err := checkConfigUpdate(params); err != nil {
		return err
	}
	return c.Put(ctx, guestPath(node, guestType, vmid, "/config"), params, nil)
}

// touchesKey reports whether params set or delete key.
func touchesKey(params url.Values, key string) bool {
	if params.Has(key) {
		return true
	}
	for _, list := range params["delete"] {
		for _, deleted := range wire.SplitList(list) {
			if deleted == key {
				return true
			}
		}
	}
	return false
}

// ResizeGuestDisk grows disk (a VM's disk slot, a container's "rootfs" or
// "mpN") to size (PUT .../resize), a task (W22). size is an absolute size
// ("32G") or an increment ("+1G"). A VM's shrink fails in the task, a
// container's before it starts (500 "unable to shrink disk size"): callers
// refuse it earlier.
func (c *Client) ResizeGuestDisk(ctx context.Context, node, guestType string, vmid int, disk, size string) (string, error) {
	if _, err := guestAPIOf(guestType); err != nil {
		return "", err
	}
	form := url.Values{"disk": {disk}, "size": {size}}
	var upid string
	if err := c.Put(ctx, guestPath(node, guestType, vmid, "/resize"), form, &upid); err != nil {
		return "", err
	}
	return upid, nil
}

// MoveGuestVolume moves a VM's disk (POST .../move_disk) or a container's
// "rootfs", "mpN" or "unusedN" (POST .../move_volume) to storage, keeping
// its data (W23). deleteSource removes the old volume after the copy;
// without it the old volume stays as unusedN. MoveQemuDisk also sets the
// target format.
func (c *Client) MoveGuestVolume(ctx context.Context, node, guestType string, vmid int, volume, storage string, deleteSource bool) (string, error) {
	api, err := guestAPIOf(guestType)
	if err != nil {
		return "", err
	}
	if volume == "" || storage == "" {
		return "", fmt.Errorf("pve: moving a %s volume needs the volume and the target storage", api.word)
	}
	form := url.Values{api.moveParam: {volume}, "storage": {storage}}
	if deleteSource {
		form.Set("delete", FormBool(true))
	}
	return c.postForUPID(ctx, guestPath(node, guestType, vmid, api.moveVolume), form)
}

// GuestStatusAction runs a power action (POST .../status/{action}) and
// returns its task id. params carries the action's options (timeout,
// forceStop, todisk, overrule-shutdown, ...) and may be nil. A VM's start on
// a locked VM is accepted and waits for the lock inside its task (W10).
// Unlike a VM's, a container's power action on the wrong state fails
// synchronously: start or resume of a running container is 500 "CT N
// already running" (IsCTAlreadyRunning), stop, shutdown or suspend of a
// stopped one 500 "CT N not running" (IsCTNotRunning). A container has no
// reset.
func (c *Client) GuestStatusAction(ctx context.Context, node, guestType string, vmid int, action string, params url.Values) (string, error) {
	api, err := guestAPIOf(guestType)
	if err != nil {
		return "", err
	}
	known := false
	for _, a := range api.statusActions {
		known = known || a == action
	}
	if !known {
		last := len(api.statusActions) - 1
		return "", fmt.Errorf("pve: unknown %s power action %q (want %s or %s)", api.word, action,
			strings.Join(api.statusActions[:last], ", "), api.statusActions[last])
	}
	return c.postForUPID(ctx, guestPath(node, guestType, vmid, "/status/"+action), cloneValues(params))
}

// DeleteGuest destroys a guest and its volumes (DELETE
// /nodes/{node}/{qemu|lxc}/{vmid}), templates included (W17), with its
// options in the query, where PVE wants them on a DELETE. purge also
// removes it from backup jobs, replication and HA; destroyUnreferenced also
// destroys volumes of this VMID that the config does not reference. PVE
// refuses to destroy a running guest: stop it first. A missing guest gives
// the W12 error (IsNotFound).
func (c *Client) DeleteGuest(ctx context.Context, node, guestType string, vmid int, purge, destroyUnreferenced bool) (string, error) {
	if _, err := guestAPIOf(guestType); err != nil {
		return "", err
	}
	query := url.Values{}
	if purge {
		query.Set("purge", FormBool(true))
	}
	if destroyUnreferenced {
		query.Set("destroy-unreferenced-disks", FormBool(true))
	}
	var upid string
	if err := c.Delete(ctx, guestPath(node, guestType, vmid, ""), query, &upid); err != nil {
		return "", err
	}
	return upid, nil
}

// CloneGuest clones guest or template vmid (POST .../clone); params carries
// newid and the clone options (full, name or hostname, storage, target,
// pool, ...). Neither type's clone has a start option (W14): start the
// clone afterwards with GuestStatusAction. A taken newid fails
// synchronously (IsAlreadyExists, W13); a lost answer must be resolved by
// looking at newid, not by cloning again.
func (c *Client) CloneGuest(ctx context.Context, node, guestType string, vmid int, params url.Values) (string, error) {
	if _, err := guestAPIOf(guestType); err != nil {
		return "", err
	}
	if params.Has("start") {
		return "", errors.New("pve: clone takes no start parameter; start the clone with a separate power action")
	}
	if params.Get("newid") == "" {
		return "", errors.New("pve: clone needs newid")
	}
	return c.postForUPID(ctx, guestPath(node, guestType, vmid, "/clone"), params)
}
