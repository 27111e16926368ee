package backupjob

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// rootPrincipal is the one login PVE lets set the root-only options.
const rootPrincipal = "root@pam"

// ValidateConfig checks what PVE would refuse, or store differently than
// declared, before anything is sent: the guest selection, the retention
// and fleecing.
func (r *backupJobResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m backupJobModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	validateSelection(&m, &resp.Diagnostics)
	fwutil.ValidateRetention(m.Retention, path.Root("retention"), "use the storage's retention", &resp.Diagnostics)
	if f := m.Fleecing; f != nil && f.Enabled.IsNull() && f.Storage.IsNull() {
		resp.Diagnostics.AddAttributeError(path.Root("fleecing"), "Empty Fleecing",
			"fleecing needs enabled or storage; leave fleecing out to use PVE's default (no fleecing).")
	}
	if pf := m.Performance; pf != nil && pf.MaxWorkers.IsNull() && pf.PBSEntriesMax.IsNull() {
		resp.Diagnostics.AddAttributeError(path.Root("performance"), "Empty Performance Settings",
			"performance needs max_workers or pbs_entries_max; leave performance out to use PVE's defaults.")
	}
	if f := m.Fleecing; f != nil && f.Enabled.ValueBool() && f.Storage.IsNull() {
		resp.Diagnostics.AddAttributeError(path.Root("fleecing").AtName("storage"), "Fleecing Needs A Storage",
			"fleecing.enabled = true needs fleecing.storage: the storage the fleecing images are written to.")
	}
}

// validateSelection is PVE's selection rule (pve-manager PVE/VZDump.pm
// verify_vzdump_parameters): a job backs up all guests, a list of guests or
// a pool; the list excludes the others. PVE also takes all with pool and
// exclude with pool, but then ignores all and exclude
// (get_included_guests), so the plan refuses them.
func validateSelection(m *backupJobModel, diags *diag.Diagnostics) {
	if m.All.IsUnknown() || m.Pool.IsUnknown() {
		return
	}
	all := m.All.ValueBool()
	if !m.All.IsNull() && !all {
		// PVE keeps no all=0: it would show as a change after every apply.
		diags.AddAttributeError(path.Root("all"), "All Set To False",
			"all = false selects nothing, and PVE does not keep it; leave all out and select the guests with vmids or pool.")
		return
	}
	var chosen []string
	if all {
		chosen = append(chosen, "all")
	}
	if !m.VMIDs.IsNull() {
		chosen = append(chosen, "vmids")
	}
	if !m.Pool.IsNull() {
		chosen = append(chosen, "pool")
	}
	switch len(chosen) {
	case 0:
		diags.AddAttributeError(path.Root("vmids"), "No Guests Selected",
			"A backup job needs exactly one of all = true, vmids (a list of guests) or pool.")
	case 1:
	default:
		diags.AddAttributeError(path.Root(chosen[1]), "Conflicting Guest Selection",
			fmt.Sprintf("%s and %s both select guests; a backup job takes exactly one of all = true, vmids or pool.", chosen[0], chosen[1]))
	}
	if !m.Exclude.IsNull() && !all && len(chosen) == 1 {
		diags.AddAttributeError(path.Root("exclude"), "Exclude Needs All",
			fmt.Sprintf("exclude leaves guests out of all = true; with %s it has no effect in PVE. List only the wanted guests instead.", chosen[0]))
	}
}

// refusePVE8Options refuses on PVE 9 the notification options PVE 9
// removed (notification-policy, notification-target: in the PVE 8.4 API
// schema of /cluster/backup, not in 9.x's).
func (r *backupJobResource) refusePVE8Options(ctx context.Context, plan *backupJobModel, diags *diag.Diagnostics) {
	if plan.NotificationPolicy.IsNull() && plan.NotificationTarget.IsNull() {
		return
	}
	release, err := fwutil.PVERelease(ctx, r.client)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read The PVE Release", err)
		return
	}
	if !release.AtLeast(wire.PVE90) {
		return
	}
	for attr, v := range map[string]types.String{"notification_policy": plan.NotificationPolicy, "notification_target": plan.NotificationTarget} {
		if v.IsNull() {
			continue
		}
		diags.AddAttributeError(path.Root(attr), "Option Removed In PVE 9",
			fmt.Sprintf("%s exists only up to PVE 8; this cluster runs PVE %s. Use notification_mode = \"notification-system\" "+
				"and a notification matcher that selects backup jobs instead.", attr, release))
	}
}

// ModifyPlan refuses at plan time the options PVE 9 removed, and those PVE reserves to root@pam
// (pve-manager PVE/API2/Backup.pm assert_param_permission_common,
// assert_param_permission_update) when the provider logs in otherwise.
func (r *backupJobResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.client == nil {
		return
	}
	var plan backupJobModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	var state *backupJobModel
	if !req.State.Raw.IsNull() {
		state = &backupJobModel{}
		resp.Diagnostics.Append(req.State.Get(ctx, state)...)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	r.refusePVE8Options(ctx, &plan, &resp.Diagnostics)
	if !r.client.UsesAPIToken() && r.client.Principal() == rootPrincipal {
		return
	}
	principal := r.client.Principal()
	if r.client.UsesAPIToken() {
		principal += " (an API token)"
	}
	for _, k := range wire.BackupJobRootOnlyKeys {
		attr := k
		planned := *plan.stringOptions()[k]
		prior := types.StringNull()
		if state != nil {
			prior = *state.stringOptions()[k]
		}
		if planned.Equal(prior) {
			continue
		}
		resp.Diagnostics.AddAttributeError(path.Root(attr), "Option Needs root@pam",
			fmt.Sprintf("%s can be set or removed only by root@pam logged in with a password; the provider authenticates as %s, "+
				"and PVE refuses even root@pam's own API tokens. Configure the provider with username = \"root@pam\" and its password, "+
				"or leave %s as it is in PVE.", attr, principal, attr))
	}
	// PVE lets no one but root@pam edit a job that writes to a dumpdir.
	if state != nil && !state.DumpDir.IsNull() && plan.DumpDir.Equal(state.DumpDir) && !req.Plan.Raw.Equal(req.State.Raw) {
		resp.Diagnostics.AddAttributeError(path.Root("dumpdir"), "Job Needs root@pam",
			fmt.Sprintf("This job writes to dumpdir %s, and PVE lets only root@pam logged in with a password change such a job; "+
				"the provider authenticates as %s.", state.DumpDir.ValueString(), principal))
	}
}
