// Package replication holds pve_replication_job: PVE's storage replication
// of a guest's ZFS volumes to another node.
package replication

import (
	"net/url"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// jobModel is pve_replication_job.
type jobModel struct {
	ID        types.String   `tfsdk:"id"`
	VMID      types.Int64    `tfsdk:"vmid"`
	JobNumber types.Int64    `tfsdk:"job_number"`
	Target    types.String   `tfsdk:"target"`
	Schedule  types.String   `tfsdk:"schedule"`
	Rate      types.Float64  `tfsdk:"rate"`
	Comment   types.String   `tfsdk:"comment"`
	Disable   types.Bool     `tfsdk:"disable"`
	Source    types.String   `tfsdk:"source"`
	Timeouts  timeouts.Value `tfsdk:"timeouts"`
}

// fromAPI sets what PVE holds of the job. Options PVE does not store are
// null (PVE's defaults are not copied into state). A job PVE turned around
// after its guest moved to the target keeps the declared target.
func (m *jobModel) fromAPI(j *pveapi.ReplicationJob) {
	declared := m.Target
	defer func() {
		if followedGuest(declared, m.Target, m.Source) {
			m.Target = declared
		}
	}()
	vmid, jobnum, err := wire.ParseReplicationJobID(j.ID)
	if err == nil {
		m.VMID = types.Int64Value(int64(vmid))
		m.JobNumber = types.Int64Value(int64(jobnum))
	}
	m.ID = types.StringValue(j.ID)
	m.Target = types.StringValue(j.Target)
	m.Source = optionalString(j.Source)
	m.Schedule = optionalString(j.Schedule)
	m.Comment = optionalString(j.Comment)
	m.Rate = types.Float64Null()
	if j.Rate != nil {
		m.Rate = types.Float64Value(float64(*j.Rate))
	}
	m.Disable = types.BoolNull()
	if j.Disable != nil {
		m.Disable = types.BoolValue(bool(*j.Disable))
	}
}

func optionalString(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

// createParams are the options a create sends besides id, type and
// target.
func (m *jobModel) createParams() url.Values {
	params := url.Values{}
	if v := m.Schedule; !v.IsNull() && !v.IsUnknown() {
		params.Set("schedule", v.ValueString())
	}
	if v := m.Rate; !v.IsNull() && !v.IsUnknown() {
		params.Set("rate", pveapi.FormatReplicationRate(v.ValueFloat64()))
	}
	if v := m.Comment; !v.IsNull() && !v.IsUnknown() {
		params.Set("comment", v.ValueString())
	}
	if v := m.Disable; !v.IsNull() && !v.IsUnknown() {
		params.Set("disable", pveapi.FormBool(v.ValueBool()))
	}
	return params
}

// updateParams is the change from state to plan: values to set and the
// options to delete (declared before, absent now).
func updateParams(state, plan *jobModel) (set url.Values, remove []string) {
	set = url.Values{}
	str := func(key string, old, cur types.String) {
		switch {
		case cur.IsNull():
			if !old.IsNull() {
				remove = append(remove, key)
			}
		case !cur.Equal(old):
			set.Set(key, cur.ValueString())
		}
	}
	str("schedule", state.Schedule, plan.Schedule)
	str("comment", state.Comment, plan.Comment)
	switch {
	case plan.Rate.IsNull():
		if !state.Rate.IsNull() {
			remove = append(remove, "rate")
		}
	case !plan.Rate.Equal(state.Rate):
		set.Set("rate", pveapi.FormatReplicationRate(plan.Rate.ValueFloat64()))
	}
	switch {
	case plan.Disable.IsNull():
		if !state.Disable.IsNull() {
			remove = append(remove, "disable")
		}
	case !plan.Disable.Equal(state.Disable):
		set.Set("disable", pveapi.FormBool(plan.Disable.ValueBool()))
	}
	return set, remove
}

// jobID is the model's job id, "" while vmid or job_number is unknown.
func (m *jobModel) jobID() string {
	if m.VMID.IsNull() || m.VMID.IsUnknown() || m.JobNumber.IsNull() || m.JobNumber.IsUnknown() {
		return ""
	}
	return wire.ReplicationJobID(int(m.VMID.ValueInt64()), int(m.JobNumber.ValueInt64()))
}

// firstFreeJobNumber is the lowest job number no job of the guest uses.
func firstFreeJobNumber(jobs []pveapi.ReplicationJob, vmid int) int {
	used := map[int]bool{}
	for _, j := range jobs {
		if g, n, err := wire.ParseReplicationJobID(j.ID); err == nil && g == vmid {
			used[n] = true
		}
	}
	n := 0
	for used[n] {
		n++
	}
	return n
}

// followedGuest tells whether PVE turned a job around, as it does when the
// guest moves to the job's target node (pve-guest-common
// src/PVE/ReplicationConfig.pm switch_replication_job_target_nolock, called
// by a migration and by ReplicationState.pm job_status on the guest's new
// node): the job now replicates from the declared target (its source) back
// to the node the guest left. The plan then stays empty, and the job goes
// on protecting the guest wherever it runs.
func followedGuest(declared, target, source types.String) bool {
	if declared.IsNull() || declared.IsUnknown() {
		return false
	}
	return source.Equal(declared) && !target.Equal(declared)
}
