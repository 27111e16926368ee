package guestops

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// Power actions both guest kinds have (POST .../status/{action}).
const (
	ActionStart    = "start"
	ActionStop     = "stop"
	ActionShutdown = "shutdown"
	ActionReboot   = "reboot"
)

// Graceful shutdown gets half of what is left of the timeout, within these
// bounds, before the guest is stopped.
const (
	minShutdownWait = 10 * time.Second
	maxShutdownWait = 5 * time.Minute
	// haStopSlack is how much longer than its timeout an HA shutdown
	// request is waited for: HA acts at its next rounds.
	haStopSlack = 30 * time.Second
)

// PowerAction runs one power task and waits for it. Where the action takes
// a timeout it is set from what is left of the resource's timeout, so PVE
// gives up no later than the provider does. A container refuses a start
// when it runs and a stop or shutdown when it is stopped: that state is
// what was asked for, so it counts as success.
func (a API) PowerAction(ctx context.Context, node string, vmid int, action string, params url.Values, diags *diag.Diagnostics) bool {
	summary := "Unable To " + fwutil.Capitalize(action) + " " + a.Kind.Title
	if a.Kind.takesTimeout(action) && !params.Has("timeout") {
		params = url.Values{"timeout": {strconv.Itoa(int(TaskWait(ctx, maxShutdownWait).Seconds()))}}
	}
	upid, err := a.statusAction(ctx, node, vmid, action, params)
	switch {
	case err == nil:
	case action == ActionStart && pveapi.IsCTAlreadyRunning(err),
		(action == ActionStop || action == ActionShutdown) && pveapi.IsCTNotRunning(err):
		return true
	default:
		fwutil.AddAPIError(diags, summary, err)
		return false
	}
	if !fwutil.SettleTask(ctx, a.Client, upid, fmt.Sprintf("%s of %s %d", action, a.Kind.Noun, vmid), summary, diags) {
		return false
	}
	if !pveapi.IsHARequestTask(upid) || action == ActionReboot {
		return true
	}
	// PVE passed the request to HA: the task ended before the guest
	// changed state. A guest HA let go of meanwhile is acted on directly.
	waitCtx := ctx
	if action == ActionShutdown {
		// HA shuts the guest down with this timeout (a VM is then
		// stopped: pve-ha-manager src/PVE/HA/Resources/PVEVM.pm
		// shutdown, forceStop; a container is not, PVECT.pm); past it,
		// the caller's stop follows, a hard stop through HA.
		seconds, _ := strconv.Atoi(params.Get("timeout"))
		var cancel context.CancelFunc
		waitCtx, cancel = context.WithTimeout(ctx, time.Duration(seconds)*time.Second+haStopSlack)
		defer cancel()
	}
	done, unmanaged := a.awaitHAPower(waitCtx, node, vmid, action == ActionStart, summary, diags)
	if unmanaged {
		return a.PowerAction(ctx, node, vmid, action, params, diags)
	}
	return done
}

// PowerOff shuts the guest down gracefully within part of the timeout,
// then stops it if it still runs.
func (a API) PowerOff(ctx context.Context, node string, vmid int, diags *diag.Diagnostics) bool {
	params := url.Values{"timeout": {strconv.Itoa(int(TaskWait(ctx, maxShutdownWait).Seconds()))}}
	var shutdownDiags diag.Diagnostics
	if a.PowerAction(ctx, node, vmid, ActionShutdown, params, &shutdownDiags) {
		status, err := a.Status(ctx, node, vmid)
		if err == nil && status.Status != pveapi.PowerRunning {
			return true
		}
	}
	// A guest that ignores the shutdown request fails the shutdown task:
	// that is what the stop is for, so the shutdown error is not reported.
	return a.PowerAction(ctx, node, vmid, ActionStop, nil, diags)
}

// TaskWait is half of what is left of ctx's deadline, within
// [minShutdownWait, limit].
func TaskWait(ctx context.Context, limit time.Duration) time.Duration {
	deadline, ok := ctx.Deadline()
	if !ok {
		return limit
	}
	return min(max(time.Until(deadline)/2, minShutdownWait), limit)
}

// PowerPlan is the power state an update ends in.
type PowerPlan struct {
	Started bool
	// ConfigWritten is set when the update changed the config, which may
	// have left changes pending until the next start.
	ConfigWritten bool
	// RebootAfterUpdate reboots a running guest that has pending changes;
	// otherwise a warning names them.
	RebootAfterUpdate bool
}

// SettlePower brings the guest to the planned power state. A guest that
// stays up after a config change is asked for the changes PVE keeps
// pending until the next start: it is rebooted when the plan says so,
// otherwise a warning names the keys.
func (a API) SettlePower(ctx context.Context, node string, vmid int, want PowerPlan, diags *diag.Diagnostics) bool {
	status, err := a.Status(ctx, node, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read "+a.Kind.Title+" Status", err)
		return false
	}
	running := status.Status == pveapi.PowerRunning
	switch {
	case want.Started && !running:
		return a.PowerAction(ctx, node, vmid, ActionStart, nil, diags)
	case !want.Started && running:
		return a.PowerOff(ctx, node, vmid, diags)
	case !running || !want.ConfigWritten:
		return true
	}
	entries, err := a.Pending(ctx, node, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read Pending "+a.Kind.Title+" Changes", err)
		return false
	}
	keys := PendingKeys(entries)
	if len(keys) == 0 {
		return true
	}
	if want.RebootAfterUpdate {
		return a.PowerAction(ctx, node, vmid, ActionReboot, nil, diags)
	}
	diags.AddWarning(a.Kind.Title+" Changes Wait For A Reboot",
		fmt.Sprintf("%s %d runs with its old settings for %s: PVE applies them at the next start. "+
			"Reboot the %s, or set reboot_after_update = true to have updates reboot it.",
			fwutil.Capitalize(a.Kind.Noun), vmid, strings.Join(keys, ", "), a.Kind.Noun))
	return true
}

// PendingKeys lists the keys whose change waits for a restart.
func PendingKeys(entries []pveapi.PendingEntry) []string {
	var keys []string
	for _, e := range entries {
		if e.HasPending || e.DeletePending() {
			keys = append(keys, e.Key)
		}
	}
	slices.Sort(keys)
	return keys
}
