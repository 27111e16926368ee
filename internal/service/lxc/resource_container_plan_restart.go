package lxc

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

// migrationRestartWarning tells at plan time that moving a running
// container restarts it. PVE has no live migration for containers: a
// running one migrates only in restart mode (pve-container,
// src/PVE/LXC/Migrate.pm, prepare: "running container can only be
// migrated in restart mode"), which shuts it down, moves it and starts it
// on the target (phase3_cleanup). guestops.API.Migrate asks for that mode
// whenever the container runs.
func migrationRestartWarning(from string, state, plan *containerModel) []guestops.Issue {
	if state == nil || !guestops.Known(plan.Node) || plan.Node.Equal(state.Node) || plan.Node.ValueString() == from ||
		state.Status.ValueString() != pveapi.PowerRunning {
		return nil
	}
	to := plan.Node.ValueString()
	detail := fmt.Sprintf("Container %d runs on %s, and node changes to %s. PVE cannot move a running container live: "+
		"the migration shuts it down (waiting for a clean shutdown), moves it and starts it again on %s. "+
		"Its services are down meanwhile and its processes start afresh.", state.VMID.ValueInt64(), from, to, to)
	if guestops.Known(plan.Started) && !plan.Started.ValueBool() {
		detail += fmt.Sprintf(" As started = false, it is then shut down again on %s; to move it without that restart, "+
			"apply started = false first and change node in a later apply.", to)
	} else {
		detail += " To choose the moment, apply this change in a maintenance window, or stop the container first (started = false)."
	}
	return []guestops.Issue{{Path: path.Root("node"), Summary: "Container Will Restart", Detail: detail, Warning: true}}
}
