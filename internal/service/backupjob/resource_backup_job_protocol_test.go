package backupjob_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

const jobType = "pve_backup_job"

// jobConfig is a pve_backup_job configuration with the given attributes,
// every other one null. Values are strings, bools, ints ([]int for a set
// of VMIDs) or map[string]any for a nested object.
func jobConfig(tb testing.TB, p *acctest.Protocol, attrs map[string]any) *tfprotov6.DynamicValue {
	tb.Helper()
	typ := p.StateValue(tb, jobType, p.NullState(tb, jobType)).Type().(tftypes.Object)
	values := map[string]tftypes.Value{}
	for name, t := range typ.AttributeTypes {
		values[name] = tftypes.NewValue(t, nil)
	}
	for name, v := range attrs {
		values[name] = tfValue(tb, typ.AttributeTypes[name], v)
	}
	dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, values))
	if err != nil {
		tb.Fatalf("configuration: %v", err)
	}
	return &dv
}

func tfValue(tb testing.TB, t tftypes.Type, v any) tftypes.Value {
	tb.Helper()
	switch x := v.(type) {
	case string, bool:
		return tftypes.NewValue(t, x)
	case int:
		return tftypes.NewValue(t, int64(x))
	case []int:
		elems := make([]tftypes.Value, len(x))
		for i, n := range x {
			elems[i] = tftypes.NewValue(tftypes.Number, int64(n))
		}
		return tftypes.NewValue(t, elems)
	case map[string]any:
		ot := t.(tftypes.Object)
		vals := map[string]tftypes.Value{}
		for name, at := range ot.AttributeTypes {
			vals[name] = tftypes.NewValue(at, nil)
		}
		for name, av := range x {
			vals[name] = tfValue(tb, ot.AttributeTypes[name], av)
		}
		return tftypes.NewValue(t, vals)
	}
	tb.Fatalf("unsupported value %T", v)
	return tftypes.Value{}
}

// validate runs ValidateResourceConfig and returns its errors as
// "attribute: summary: detail" lines.
func validate(tb testing.TB, p *acctest.Protocol, config *tfprotov6.DynamicValue) string {
	tb.Helper()
	resp, err := p.Server.ValidateResourceConfig(context.Background(), &tfprotov6.ValidateResourceConfigRequest{TypeName: jobType, Config: config})
	if err != nil {
		tb.Fatal(err)
	}
	return errorsOf(resp.Diagnostics)
}

func errorsOf(diags []*tfprotov6.Diagnostic) string {
	var lines []string
	for _, d := range diags {
		if d.Severity != tfprotov6.DiagnosticSeverityError {
			continue
		}
		at := ""
		if d.Attribute != nil {
			at = d.Attribute.String()
		}
		lines = append(lines, at+": "+d.Summary+": "+d.Detail)
	}
	return strings.Join(lines, "\n")
}

func with(base map[string]any, kv ...any) map[string]any {
	out := map[string]any{}
	for k, v := range base {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

// Bad input is refused before anything is sent, naming the attribute.
func TestBackupJobPlanRefusals(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	base := map[string]any{"schedule": "21:00", "all": true}
	if msg := validate(t, p, jobConfig(t, p, base)); msg != "" {
		t.Fatalf("a valid job is refused: %s", msg)
	}
	for _, tc := range []struct {
		name  string
		attrs map[string]any
		want  []string
	}{
		{"no selection", map[string]any{"schedule": "21:00"}, []string{`AttributeName("vmids")`, "No Guests Selected"}},
		{"all and vmids", with(base, "vmids", []int{100}), []string{`AttributeName("vmids")`, "Conflicting Guest Selection"}},
		{"vmids and pool", map[string]any{"schedule": "21:00", "vmids": []int{100}, "pool": "prod"}, []string{`AttributeName("pool")`, "Conflicting"}},
		{"exclude with pool", map[string]any{"schedule": "21:00", "pool": "prod", "exclude": []int{100}}, []string{`AttributeName("exclude")`, "Exclude Needs All"}},
		{"bad schedule", with(base, "schedule", "tomorrow 25:00"), []string{`AttributeName("schedule")`, "invalid calendar event 'tomorrow 25:00'"}},
		{"keep all with counts", with(base, "retention", map[string]any{"keep_all": true, "keep_last": 3}),
			[]string{`AttributeName("retention")`, "keep-all cannot be set together"}},
		{"counts of zero", with(base, "retention", map[string]any{"keep_daily": 0}), []string{`AttributeName("retention")`, `"keep-all=1"`}},
		{"empty retention", with(base, "retention", map[string]any{}), []string{`AttributeName("retention")`, "Empty Retention"}},
		{"notes without storage", with(base, "notes_template", "{{guestname}}"), []string{`AttributeName("notes_template")`, "storage"}},
		{"unknown notes variable", with(base, "storage", "local", "notes_template", "{{hostname}}"),
			[]string{`AttributeName("notes_template")`, "variable '{{hostname}}'"}},
		{"fleecing without storage", with(base, "fleecing", map[string]any{"enabled": true}),
			[]string{`AttributeName("fleecing").AttributeName("storage")`, "Fleecing Needs A Storage"}},
		{"bad id", with(base, "id", "1nightly"), []string{`AttributeName("id")`, "must start with a letter"}},
		{"empty fleecing", with(base, "fleecing", map[string]any{}), []string{`AttributeName("fleecing")`, "Empty Fleecing"}},
		{"empty performance", with(base, "performance", map[string]any{}), []string{`AttributeName("performance")`, "Empty Performance"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			acctest.WantAll(t, "the refusal", validate(t, p, jobConfig(t, p, tc.attrs)), tc.want...)
		})
	}
}

// PVE lets only root@pam with a password set script, tmpdir and dumpdir
// (pve-manager PVE/API2/Backup.pm assert_param_permission_common); the
// protocol harness logs in with a root@pam token, which PVE refuses too.
func TestBackupJobRootOnlyOptionsUnderToken(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	null := p.NullState(t, jobType)
	for _, k := range []string{"script", "tmpdir", "dumpdir"} {
		resp := p.PlanResponse(t, jobType, null, jobConfig(t, p, map[string]any{"schedule": "21:00", "all": true, k: "/srv/x"}))
		acctest.WantAll(t, "the refusal of "+k, errorsOf(resp.Diagnostics), `AttributeName("`+k+`")`, "Option Needs root@pam", "API token")
	}

	// A job root made with a script: the script may stay as it is.
	if err := p.Sim.Update(func(c *pvesim.Cluster) error {
		c.BackupJobs.Jobs["rooted"] = &pvesim.BackupJob{ID: "rooted", Props: map[string]string{
			"schedule": "21:00", "all": "1", "script": "/usr/local/bin/hook", "enabled": "1",
		}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	state := p.Import(t, jobType, "rooted")
	keep := jobConfig(t, p, map[string]any{"id": "rooted", "schedule": "22:00", "all": true, "script": "/usr/local/bin/hook"})
	if msg := errorsOf(p.PlanResponse(t, jobType, state, keep).Diagnostics); msg != "" {
		t.Errorf("keeping root's script is refused: %s", msg)
	}
	drop := jobConfig(t, p, map[string]any{"id": "rooted", "schedule": "22:00", "all": true})
	acctest.WantAll(t, "the refusal to drop the script", errorsOf(p.PlanResponse(t, jobType, state, drop).Diagnostics),
		`AttributeName("script")`, "Option Needs root@pam")

	// A job root made with a dumpdir: PVE lets no one else change it
	// (assert_param_permission_update).
	if err := p.Sim.Update(func(c *pvesim.Cluster) error {
		c.BackupJobs.Jobs["dumped"] = &pvesim.BackupJob{ID: "dumped", Props: map[string]string{
			"schedule": "21:00", "all": "1", "dumpdir": "/srv/dump", "enabled": "1",
		}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	state = p.Import(t, jobType, "dumped")
	same := jobConfig(t, p, map[string]any{"id": "dumped", "schedule": "21:00", "all": true, "dumpdir": "/srv/dump"})
	if msg := errorsOf(p.PlanResponse(t, jobType, state, same).Diagnostics); msg != "" {
		t.Errorf("an unchanged dumpdir job is refused: %s", msg)
	}
	edit := jobConfig(t, p, map[string]any{"id": "dumped", "schedule": "21:00", "all": true, "dumpdir": "/srv/dump", "comment": "x"})
	acctest.WantAll(t, "the refusal to edit a dumpdir job", errorsOf(p.PlanResponse(t, jobType, state, edit).Diagnostics),
		`AttributeName("dumpdir")`, "Job Needs root@pam", "/srv/dump")
}

// PVE 9 removed notification-policy and notification-target (the PVE 8.4
// API schema of /cluster/backup has them, 9.x's has not): the plan says so.
func TestBackupJobPVE8NotificationOptionsOnPVE9(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	resp := p.PlanResponse(t, jobType, p.NullState(t, jobType), jobConfig(t, p, map[string]any{
		"schedule": "21:00", "all": true, "notification_policy": "failure",
	}))
	acctest.WantAll(t, "the refusal", errorsOf(resp.Diagnostics), `AttributeName("notification_policy")`,
		"Option Removed In PVE 9", "notification_mode")
}

// An imported job's settings without an attribute are named, not dropped
// silently.
func TestBackupJobImportNamesUnmanagedSettings(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	if err := p.Sim.Update(func(c *pvesim.Cluster) error {
		c.BackupJobs.Jobs["legacy"] = &pvesim.BackupJob{ID: "legacy", Props: map[string]string{
			"schedule": "21:00", "all": "1", "pigz": "4", "quiet": "1",
		}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	imp, err := p.Server.ImportResourceState(context.Background(), &tfprotov6.ImportResourceStateRequest{TypeName: jobType, ID: "legacy"})
	if err != nil {
		t.Fatal(err)
	}
	acctest.WantAll(t, "the import warning", acctest.Warning(imp.Diagnostics, fwutil.UnmanagedSummary), "legacy", "pigz, quiet")
}

// apply plans config against prior and applies it, as `terraform apply
// -refresh=false` does.
func apply(tb testing.TB, p *acctest.Protocol, prior, config *tfprotov6.DynamicValue) (*tfprotov6.DynamicValue, string) {
	tb.Helper()
	ctx := context.Background()
	plan := p.PlanResponse(tb, jobType, prior, config)
	if msg := errorsOf(plan.Diagnostics); msg != "" {
		tb.Fatalf("plan: %s", msg)
	}
	resp, err := p.Server.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{
		TypeName: jobType, PriorState: prior, PlannedState: plan.PlannedState, Config: config, PlannedPrivate: plan.PlannedPrivate,
	})
	if err != nil {
		tb.Fatal(err)
	}
	return resp.NewState, errorsOf(resp.Diagnostics)
}

// PVE keeps no digest for backup jobs: a change made outside Terraform
// after the refresh stops the update instead of being overwritten, and a
// guest's purge in between (PVE's own bookkeeping) does not.
func TestBackupJobChangedOutsideSinceRefresh(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	ctx := context.Background()
	if err := p.Client.CreateBackupJob(ctx, "nightly", map[string]string{"schedule": "21:00", "vmid": "100,101", "comment": "ours"}); err != nil {
		t.Fatal(err)
	}
	state := p.Import(t, jobType, "nightly")
	config := func(schedule string, vmids []int) *tfprotov6.DynamicValue {
		return jobConfig(t, p, map[string]any{"id": "nightly", "schedule": schedule, "vmids": vmids, "comment": "ours"})
	}

	// Guest 100's purge took it out of the list: the update goes on.
	if err := p.Sim.Update(func(c *pvesim.Cluster) error {
		c.BackupJobs.Jobs["nightly"].Props["vmid"] = "101"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	state, msg := apply(t, p, state, config("22:00", []int{101}))
	if msg != "" {
		t.Fatalf("the purge stopped the update: %s", msg)
	}

	// Someone edits the comment after the refresh.
	if err := p.Client.UpdateBackupJob(ctx, "nightly", wire.BackupJobDelta(map[string]string{"comment": "ours"}, map[string]string{"comment": "theirs"})); err != nil {
		t.Fatal(err)
	}
	_, msg = apply(t, p, state, config("23:00", []int{101}))
	acctest.WantAll(t, "the refusal", msg, "Changed Outside Terraform", "nightly", "(comment)", "plan again")
	if job, _, _ := p.Client.GetBackupJob(ctx, "nightly"); job.Options["schedule"] != "22:00" || job.Options["comment"] != "theirs" {
		t.Errorf("PVE has %v, want the other change kept and nothing written", job.Options)
	}
}
