package pveapi

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"

	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// LXCConfig reads a container's configuration (GET
// /nodes/{node}/lxc/{vmid}/config) with pending changes applied, so a change
// that waits for a restart reads back as written. Mount points come in the
// live form with their volume ids (W37), NICs with ip/gw inline (W38),
// features as one composite value (W33); the ostemplate a container was
// made from is never reported (W35). A missing container gives the W12
// error (IsNotFound).
func (c *Client) LXCConfig(ctx context.Context, node string, vmid int) (GuestConfig, error) {
	return c.guestConfig(ctx, node, GuestTypeLXC, vmid)
}

// LXCPendingConfig lists each config key with its current value and the
// change waiting for the next container restart (GET .../lxc/{vmid}/pending).
func (c *Client) LXCPendingConfig(ctx context.Context, node string, vmid int) ([]PendingEntry, error) {
	return c.guestPending(ctx, node, GuestTypeLXC, vmid)
}

// LXCStatus reads GET .../lxc/{vmid}/status/current. A container has no
// QMP state: PowerState is running or stopped.
func (c *Client) LXCStatus(ctx context.Context, node string, vmid int) (*GuestStatus, error) {
	return c.guestStatus(ctx, node, GuestTypeLXC, vmid)
}

// CreateLXC creates a container (POST /nodes/{node}/lxc) and returns the
// task id. params must carry ostemplate, which PVE requires and never
// reports back (W35); vmid is added; params is not modified. PVE 9 makes
// the container unprivileged unless params say unprivileged=0, and the
// choice is final (W34). A taken vmid fails synchronously with "CT N
// already exists on node 'X'" (IsAlreadyExists, W13). Every config key,
// tty included (W39), may be sent here.
func (c *Client) CreateLXC(ctx context.Context, node string, vmid int, params url.Values) (string, error) {
	if params.Get("ostemplate") == "" {
		return "", fmt.Errorf("pve: create CT %d needs ostemplate", vmid)
	}
	return c.createGuest(ctx, node, GuestTypeLXC, vmid, params)
}

// UpdateLXCConfig changes a container's configuration synchronously (PUT
// .../config, W9; containers have no asynchronous form). Build params with
// wire.ConfigDelta. Refused here, as PVE would refuse them: a key both set
// and deleted (W16), and any write or delete of unprivileged, which is fixed
// at create (W34: changing it means a new container).
//
// On a running container PVE applies what it can at once and keeps the rest
// pending until the next restart (see LXCPendingConfig); when applying a
// change fails PVE still saves the others and answers 400 with the failed
// key in Error.Errors ("unable to hotplug KEY: ..."). Under an API token,
// bind mounts and feature flags other than nesting are 403 (W33, W36, see
// IsRootOnly).
func (c *Client) UpdateLXCConfig(ctx context.Context, node string, vmid int, params url.Values) error {
	if err := checkLXCCreateOnly(params); err != nil {
		return err
	}
	return c.updateGuestConfig(ctx, node, GuestTypeLXC, vmid, params)
}

// lxcCreateOnlyKey is the config key PVE refuses to set or delete after
// create, with "unable to modify read-only option" (W34).
const lxcCreateOnlyKey = "unprivileged"

func checkLXCCreateOnly(params url.Values) error {
	touched := params.Has(lxcCreateOnlyKey)
	for _, list := range params["delete"] {
		for _, key := range wire.SplitList(list) {
			if key == lxcCreateOnlyKey {
				touched = true
			}
		}
	}
	if touched {
		return fmt.Errorf("pve: %s is fixed when a container is created; PVE refuses to modify or delete it, so a change needs a new container", lxcCreateOnlyKey)
	}
	return nil
}

// ResizeLXCDisk grows disk ("rootfs" or "mpN") to size (PUT .../resize), a
// task (W22). size is an absolute size ("32G") or an increment ("+1G").
// Unlike a VM's, a container's shrink is refused before the task starts:
// 500 "unable to shrink disk size".
func (c *Client) ResizeLXCDisk(ctx context.Context, node string, vmid int, disk, size string) (string, error) {
	return c.resizeGuestDisk(ctx, node, GuestTypeLXC, vmid, disk, size)
}

// MoveLXCVolume moves volume ("rootfs", "mpN" or "unusedN") to storage,
// keeping its data (POST .../move_volume, W23). deleteSource removes the old
// volume after the copy; without it the old volume stays as unusedN.
func (c *Client) MoveLXCVolume(ctx context.Context, node string, vmid int, volume, storage string, deleteSource bool) (string, error) {
	if volume == "" || storage == "" {
		return "", errors.New("pve: moving a container volume needs the volume and the target storage")
	}
	form := url.Values{"volume": {volume}, "storage": {storage}}
	if deleteSource {
		form.Set("delete", FormBool(true))
	}
	return c.postForUPID(ctx, guestPath(node, GuestTypeLXC, vmid, "/move_volume"), form)
}

// MigrateLXC moves a container to node target (POST .../migrate). PVE has
// no live migration for containers: a running one moves only with restart
// (shut down, move, start on target), else the task fails. timeout is the
// shutdown timeout of a restart migration in seconds; 0 keeps PVE's
// default (180).
func (c *Client) MigrateLXC(ctx context.Context, node string, vmid int, target string, restart bool, timeout int) (string, error) {
	if timeout < 0 {
		return "", fmt.Errorf("pve: migrate CT %d: negative shutdown timeout %d", vmid, timeout)
	}
	if timeout > 0 && !restart {
		return "", fmt.Errorf("pve: migrate CT %d: a shutdown timeout applies only to a restart migration", vmid)
	}
	form := url.Values{"target": {target}}
	if restart {
		form.Set("restart", FormBool(true))
	}
	if timeout > 0 {
		form.Set("timeout", strconv.Itoa(timeout))
	}
	return c.postForUPID(ctx, guestPath(node, GuestTypeLXC, vmid, "/migrate"), form)
}

// Power actions of POST .../lxc/{vmid}/status/{action}.
const (
	LXCStart    = "start"
	LXCStop     = "stop"
	LXCShutdown = "shutdown"
	LXCReboot   = "reboot"
	LXCSuspend  = "suspend"
	LXCResume   = "resume"
)

var lxcStatusActions = map[string]bool{
	LXCStart: true, LXCStop: true, LXCShutdown: true, LXCReboot: true,
	LXCSuspend: true, LXCResume: true,
}

// LXCStatusAction runs a power action (POST .../status/{action}) and returns
// its task id. params carries the action's options (timeout, forceStop,
// overrule-shutdown, ...) and may be nil. Unlike a VM's, a container's
// power action on the wrong state fails synchronously: start or resume of a
// running container is 500 "CT N already running" (IsCTAlreadyRunning),
// stop, shutdown or suspend of a stopped one 500 "CT N not running"
// (IsCTNotRunning).
func (c *Client) LXCStatusAction(ctx context.Context, node string, vmid int, action string, params url.Values) (string, error) {
	if !lxcStatusActions[action] {
		return "", fmt.Errorf("pve: unknown container power action %q (want start, stop, shutdown, reboot, suspend or resume)", action)
	}
	return c.guestStatusAction(ctx, node, GuestTypeLXC, vmid, action, params)
}

// DeleteLXC destroys a container and its volumes (DELETE .../lxc/{vmid}),
// templates included. purge also removes it from backup jobs, replication
// and HA; destroyUnreferenced also destroys volumes of this VMID that the
// config does not reference. PVE refuses to destroy a running container:
// stop it first. A missing container gives the W12 error (IsNotFound).
func (c *Client) DeleteLXC(ctx context.Context, node string, vmid int, purge, destroyUnreferenced bool) (string, error) {
	return c.deleteGuest(ctx, node, GuestTypeLXC, vmid, purge, destroyUnreferenced)
}

// TemplateLXC turns a container into a template (POST .../template), which
// is one-way and renames its volumes vm-ID-disk-N to base-ID-disk-N (W17).
// PVE answers data null, no UPID (W9), yet pve-container runs the
// conversion in a "vztemplate" task it starts before answering. So that the
// template exists when this returns nil, the call finds that task in the
// node's task list (the newest vztemplate task of vmid) and waits for it;
// the wait ends with ctx, giving a TaskStillRunningError. When no such task
// is listed the conversion is taken as done if the config says template.
func (c *Client) TemplateLXC(ctx context.Context, node string, vmid int) error {
	upid, err := c.postForUPID(ctx, guestPath(node, GuestTypeLXC, vmid, "/template"), url.Values{})
	if err != nil {
		return err
	}
	if upid == "" {
		if upid, err = c.newestGuestTask(ctx, node, lxcTemplateTaskType, vmid); err != nil {
			return err
		}
	}
	if upid != "" {
		_, err = c.WaitTask(ctx, upid)
		return err
	}
	config, err := c.LXCConfig(ctx, node, vmid)
	if err != nil {
		return err
	}
	if isTemplate, _ := ParseBool(config["template"]); !isTemplate {
		return fmt.Errorf("pve: CT %d: PVE accepted the template request, but lists no %s task and the container is not a template", vmid, lxcTemplateTaskType)
	}
	return nil
}

// lxcTemplateTaskType is the task type of pve-container's template worker.
const lxcTemplateTaskType = "vztemplate"

// newestGuestTask returns the UPID of the task of taskType for vmid that
// started last on node, running or finished (GET /nodes/{node}/tasks), or
// "" when there is none.
func (c *Client) newestGuestTask(ctx context.Context, node, taskType string, vmid int) (string, error) {
	query := url.Values{
		"source":     {"all"},
		"typefilter": {taskType},
		"vmid":       {strconv.Itoa(vmid)},
	}
	var tasks []struct {
		UPID      string      `json:"upid"`
		StartTime IntOrString `json:"starttime"`
	}
	if err := c.Get(ctx, "/nodes/"+url.PathEscape(node)+"/tasks", query, &tasks); err != nil {
		return "", err
	}
	newest, newestStart := "", IntOrString(-1)
	for _, t := range tasks {
		if t.UPID != "" && t.StartTime > newestStart {
			newest, newestStart = t.UPID, t.StartTime
		}
	}
	return newest, nil
}

// CloneLXC clones container or template vmid (POST .../clone); params
// carries newid and the clone options (full, hostname, storage, target,
// pool, ...). Clone has no start option: start the clone afterwards with
// LXCStatusAction. A taken newid fails synchronously (IsAlreadyExists,
// W13); a lost answer must be resolved by looking at newid, not by cloning
// again.
func (c *Client) CloneLXC(ctx context.Context, node string, vmid int, params url.Values) (string, error) {
	return c.cloneGuest(ctx, node, GuestTypeLXC, vmid, params)
}

var (
	// W33, W36: the free-text 403s of pve-container's config permission
	// check, for options only root@pam may write whatever its privileges.
	rootOnlyPattern = regexp.MustCompile(`^Permission check failed \((.* only allowed for root@pam)\)$`)
	ctNotRunning    = regexp.MustCompile(`^CT [0-9]+ not running$`)
	ctRunning       = regexp.MustCompile(`^CT [0-9]+ already running$`)
)

// IsRootOnly reports a 403 for something only root@pam may do, whatever
// privileges a user or token holds: "Permission check failed (mount point
// type bind is only allowed for root@pam)" (W36), "(changing feature flags
// (except nesting) is only allowed for root@pam)" (W33), and their kin for
// device passthrough and hookscripts. reason is the text in parentheses.
// Such a 403 names no path and privilege, so IsPermission reports it with
// both empty; granting a role cannot fix it, only a password login as
// root@pam can.
func IsRootOnly(err error) (reason string, ok bool) {
	apiErr, isAPI := AsError(err)
	if !isAPI || apiErr.StatusCode != 403 {
		return "", false
	}
	m := rootOnlyPattern.FindStringSubmatch(firstLine(apiErr.Message))
	if m == nil {
		return "", false
	}
	return m[1], true
}

// IsCTNotRunning reports 500 "CT N not running": stop, shutdown or suspend
// of a container that is already stopped.
func IsCTNotRunning(err error) bool {
	apiErr, ok := AsError(err)
	return ok && apiErr.StatusCode == 500 && ctNotRunning.MatchString(firstLine(apiErr.Message))
}

// IsCTAlreadyRunning reports 500 "CT N already running": start or resume of
// a container that runs.
func IsCTAlreadyRunning(err error) bool {
	apiErr, ok := AsError(err)
	return ok && apiErr.StatusCode == 500 && ctRunning.MatchString(firstLine(apiErr.Message))
}
