// Package backupjob holds the cluster backup jobs: pve_backup_job and the
// pve_backup_jobs and pve_guests_not_backed_up data sources.
package backupjob

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// backupJobModel is pve_backup_job's configuration and state.
type backupJobModel struct {
	ID           types.String `tfsdk:"id"`
	Schedule     types.String `tfsdk:"schedule"`
	Enabled      types.Bool   `tfsdk:"enabled"`
	Comment      types.String `tfsdk:"comment"`
	RepeatMissed types.Bool   `tfsdk:"repeat_missed"`

	All     types.Bool   `tfsdk:"all"`
	VMIDs   types.Set    `tfsdk:"vmids"`
	Pool    types.String `tfsdk:"pool"`
	Exclude types.Set    `tfsdk:"exclude"`
	Node    types.String `tfsdk:"node"`

	Storage       types.String    `tfsdk:"storage"`
	Mode          types.String    `tfsdk:"mode"`
	Compress      types.String    `tfsdk:"compress"`
	Zstd          types.Int64     `tfsdk:"zstd"`
	NotesTemplate types.String    `tfsdk:"notes_template"`
	Protected     types.Bool      `tfsdk:"protected"`
	Retention     *retentionModel `tfsdk:"retention"`
	PBSChangeMode types.String    `tfsdk:"pbs_change_detection_mode"`

	NotificationMode types.String `tfsdk:"notification_mode"`
	MailTo           types.Set    `tfsdk:"mailto"`
	MailNotification types.String `tfsdk:"mail_notification"`
	// PVE 8 only: removed in PVE 9.
	NotificationPolicy types.String `tfsdk:"notification_policy"`
	NotificationTarget types.String `tfsdk:"notification_target"`

	LockWait    types.Int64       `tfsdk:"lockwait"`
	StopWait    types.Int64       `tfsdk:"stopwait"`
	Remove      types.Bool        `tfsdk:"remove"`
	BWLimit     types.Int64       `tfsdk:"bwlimit"`
	IONice      types.Int64       `tfsdk:"ionice"`
	Fleecing    *fleecingModel    `tfsdk:"fleecing"`
	Performance *performanceModel `tfsdk:"performance"`

	Script  types.String `tfsdk:"script"`
	TmpDir  types.String `tfsdk:"tmpdir"`
	DumpDir types.String `tfsdk:"dumpdir"`
}

// retentionModel is prune-backups.
type retentionModel = fwutil.Retention

// fleecingModel is backup-fleecing.
type fleecingModel struct {
	Enabled types.Bool   `tfsdk:"enabled"`
	Storage types.String `tfsdk:"storage"`
}

// performanceModel is backup-performance.
type performanceModel struct {
	MaxWorkers    types.Int64 `tfsdk:"max_workers"`
	PBSEntriesMax types.Int64 `tfsdk:"pbs_entries_max"`
}

// Option keys, as PVE names them.
const (
	optSchedule = "schedule"
	optEnabled  = "enabled"
	optAll      = "all"
	optVMID     = "vmid"
	optPool     = "pool"
	optExclude  = "exclude"
	optDumpDir  = "dumpdir"
	optPrune    = "prune-backups"
	optFleecing = "fleecing"
	optPerf     = "performance"
	optMailTo   = "mailto"
)

// stringOptions map string attributes to their option.
func (m *backupJobModel) stringOptions() map[string]*types.String {
	return map[string]*types.String{
		optSchedule: &m.Schedule, "comment": &m.Comment, optPool: &m.Pool, "node": &m.Node,
		"storage": &m.Storage, "mode": &m.Mode, "compress": &m.Compress, "notes-template": &m.NotesTemplate,
		"pbs-change-detection-mode": &m.PBSChangeMode, "notification-mode": &m.NotificationMode,
		"mailnotification": &m.MailNotification, "notification-policy": &m.NotificationPolicy,
		"notification-target": &m.NotificationTarget, "script": &m.Script, "tmpdir": &m.TmpDir, optDumpDir: &m.DumpDir,
	}
}

func (m *backupJobModel) boolOptions() map[string]*types.Bool {
	return map[string]*types.Bool{
		optEnabled: &m.Enabled, "repeat-missed": &m.RepeatMissed, optAll: &m.All, "protected": &m.Protected,
		"remove": &m.Remove,
	}
}

func (m *backupJobModel) intOptions() map[string]*types.Int64 {
	return map[string]*types.Int64{
		"zstd": &m.Zstd, "bwlimit": &m.BWLimit, "ionice": &m.IONice, "lockwait": &m.LockWait, "stopwait": &m.StopWait,
	}
}

// toOptions is the job's options as a write sends them. all = false is
// not sent: it selects nothing, as its absence does.
func (m *backupJobModel) toOptions(ctx context.Context, diags *diag.Diagnostics) map[string]string {
	out := map[string]string{}
	for k, v := range m.stringOptions() {
		if !v.IsNull() && !v.IsUnknown() {
			out[k] = v.ValueString()
		}
	}
	for k, v := range m.boolOptions() {
		if !v.IsNull() && !v.IsUnknown() {
			out[k] = wire.Bool(v.ValueBool())
		}
	}
	if out[optAll] == "0" {
		delete(out, optAll)
	}
	for k, v := range m.intOptions() {
		if !v.IsNull() && !v.IsUnknown() {
			out[k] = strconv.FormatInt(v.ValueInt64(), 10)
		}
	}
	if ids := int64Set(ctx, m.VMIDs, diags); ids != nil {
		out[optVMID] = wire.FormatVMIDList(ids)
	}
	if ids := int64Set(ctx, m.Exclude, diags); ids != nil {
		out[optExclude] = wire.FormatVMIDList(ids)
	}
	if !m.MailTo.IsNull() && !m.MailTo.IsUnknown() {
		var to []string
		diags.Append(m.MailTo.ElementsAs(ctx, &to, false)...)
		slices.Sort(to)
		out[optMailTo] = strings.Join(to, ",")
	}
	if s := m.Retention.PropertyString(); s != "" {
		out[optPrune] = s
	}
	if f := m.Fleecing; f != nil {
		p := map[string]string{}
		if !f.Enabled.IsNull() {
			p["enabled"] = wire.Bool(f.Enabled.ValueBool())
		}
		if !f.Storage.IsNull() {
			p["storage"] = f.Storage.ValueString()
		}
		out[optFleecing] = wire.FormatPropertyString(p, "")
	}
	if pf := m.Performance; pf != nil {
		p := map[string]string{}
		if !pf.MaxWorkers.IsNull() {
			p["max-workers"] = strconv.FormatInt(pf.MaxWorkers.ValueInt64(), 10)
		}
		if !pf.PBSEntriesMax.IsNull() {
			p["pbs-entries-max"] = strconv.FormatInt(pf.PBSEntriesMax.ValueInt64(), 10)
		}
		out[optPerf] = wire.FormatPropertyString(p, "")
	}
	return out
}

// fromOptions sets the attributes from PVE's options. id is set by the
// caller.
func (m *backupJobModel) fromOptions(opts map[string]string) {
	for k, v := range m.stringOptions() {
		if s, ok := opts[k]; ok {
			*v = types.StringValue(s)
		} else {
			*v = types.StringNull()
		}
	}
	m.MailTo = types.SetNull(types.StringType)
	if s, ok := opts[optMailTo]; ok {
		m.MailTo = stringSet(splitList(s))
	}
	for k, v := range m.boolOptions() {
		if s, ok := opts[k]; ok {
			*v = types.BoolValue(truthy(s))
		} else {
			*v = types.BoolNull()
		}
	}
	// enabled is always answered (1 when absent from jobs.cfg).
	if m.Enabled.IsNull() {
		m.Enabled = types.BoolValue(true)
	}
	for k, v := range m.intOptions() {
		*v = int64Option(opts, k)
	}
	m.VMIDs = vmidSet(opts, optVMID)
	m.Exclude = vmidSet(opts, optExclude)
	m.Retention = fwutil.RetentionFromOption(opts[optPrune])
	m.Fleecing = nil
	if s, ok := opts[optFleecing]; ok {
		p, _ := wire.ParsePropertyString(s, "enabled")
		f := &fleecingModel{Enabled: types.BoolNull(), Storage: types.StringNull()}
		if v, ok := p["enabled"]; ok {
			f.Enabled = types.BoolValue(truthy(v))
		}
		if v, ok := p["storage"]; ok {
			f.Storage = types.StringValue(v)
		}
		m.Fleecing = f
	}
	m.Performance = nil
	if s, ok := opts[optPerf]; ok {
		p, _ := wire.ParsePropertyString(s, "")
		m.Performance = &performanceModel{MaxWorkers: int64Option(p, "max-workers"), PBSEntriesMax: int64Option(p, "pbs-entries-max")}
	}
}

func int64Option(opts map[string]string, k string) types.Int64 {
	if s, ok := opts[k]; ok {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return types.Int64Value(n)
		}
	}
	return types.Int64Null()
}

func vmidSet(opts map[string]string, k string) types.Set {
	s, ok := opts[k]
	if !ok {
		return types.SetNull(types.Int64Type)
	}
	ids := wire.ParseVMIDList(s)
	elems := make([]attr.Value, len(ids))
	for i, id := range ids {
		elems[i] = types.Int64Value(id)
	}
	return types.SetValueMust(types.Int64Type, elems)
}

func stringSet(items []string) types.Set {
	elems := make([]attr.Value, len(items))
	for i, s := range items {
		elems[i] = types.StringValue(s)
	}
	return types.SetValueMust(types.StringType, elems)
}

// splitList is PVE::Tools::split_list: commas, semicolons, spaces
// and NULs separate the items.
func splitList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return r == ',' || r == ';' || r == ' ' || r == '\t' || r == '\n' || r == 0
	})
}

// int64Set reads a known set of numbers; nil when null or unknown.
func int64Set(ctx context.Context, s types.Set, diags *diag.Diagnostics) []int64 {
	if s.IsNull() || s.IsUnknown() {
		return nil
	}
	var out []int64
	diags.Append(s.ElementsAs(ctx, &out, false)...)
	if out == nil {
		out = []int64{}
	}
	return out
}

// truthy is how PVE reads a stored boolean: anything but "" and "0".
func truthy(s string) bool { return s != "" && s != "0" }

// managedOptions are the options pve_backup_job has an attribute for.
func managedOptions() map[string]bool {
	var m backupJobModel
	out := map[string]bool{
		optVMID: true, optExclude: true, optMailTo: true, optPrune: true, optFleecing: true, optPerf: true,
	}
	for k := range m.stringOptions() {
		out[k] = true
	}
	for k := range m.boolOptions() {
		out[k] = true
	}
	for k := range m.intOptions() {
		out[k] = true
	}
	return out
}

// unmanagedOptions lists, sorted, the options of a job the resource has no
// attribute for: Terraform neither shows nor changes them.
func unmanagedOptions(opts map[string]string) []string {
	managed := managedOptions()
	var out []string
	for k := range opts {
		if !managed[k] {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// changedOutside lists, sorted, the options that differ between what the
// state recorded and what PVE holds now, leaving out the guest lists: a
// guest's purge takes its id out of them (pve-guest-common
// src/PVE/VZDump/Plugin.pm remove_vmid_from_backup_jobs), which is PVE's
// own bookkeeping rather than someone's change.
func changedOutside(recorded, current map[string]string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range []map[string]string{recorded, current} {
		for k := range m {
			if seen[k] || k == optVMID || k == optExclude {
				continue
			}
			seen[k] = true
			if rv, rok := recorded[k]; !rok || rv != current[k] {
				out = append(out, k)
			} else if _, cok := current[k]; !cok {
				out = append(out, k)
			}
		}
	}
	slices.Sort(out)
	return out
}
