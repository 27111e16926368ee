package pveapi

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
)

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
	config, err := c.GuestConfig(ctx, node, GuestTypeLXC, vmid)
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
