package replication_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

const jobType = "pve_replication_job"

// planError plans a new job from config and returns the error diagnostic,
// failing when there is none.
func planError(t *testing.T, p *acctest.Protocol, config *tfprotov6.DynamicValue) *tfprotov6.Diagnostic {
	t.Helper()
	resp := p.PlanResponse(t, jobType, p.NullState(t, jobType), config)
	for _, d := range resp.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			return d
		}
	}
	t.Fatalf("plan accepted: %v", resp.Diagnostics)
	return nil
}

func attributeName(d *tfprotov6.Diagnostic) string {
	if d.Attribute == nil || len(d.Attribute.Steps()) == 0 {
		return ""
	}
	name, _ := d.Attribute.Steps()[0].(tftypes.AttributeName)
	return string(name)
}

// What PVE's create refuses and the provider can see at plan time:
// a disk on a storage without the replicate feature (qemu-server
// src/PVE/QemuConfig.pm get_replicatable_volumes, "missing replicate
// feature on volume"), a guest with nothing to replicate, and a target
// that is the guest's own node ("Source and target must not be
// identical"). A guest that does not exist yet is not checked.
func TestPlanRefusesWhatPVERefuses(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	addZFS(t, p.Sim)
	createVM(t, p.Client, 100, "local-zfs:4")
	createVM(t, p.Client, 101, "local-lvm:4")
	createVM(t, p.Client, 102, "shared-nfs:4")
	p.Sim.ReportStats() // the guests are in /cluster/resources
	if err := p.Client.CreateReplicationJob(context.Background(), "100-0", "pve2", nil); err != nil {
		t.Fatal(err)
	}
	config := p.ConfigFromState(t, jobType, p.Import(t, jobType, "100-0"))
	with := func(name string, v tftypes.Value) *tfprotov6.DynamicValue {
		return p.WithAttribute(t, jobType, config, name, v)
	}
	forGuest := func(vmid int64) *tfprotov6.DynamicValue {
		c := p.WithAttribute(t, jobType, config, "vmid", tftypes.NewValue(tftypes.Number, vmid))
		return p.WithAttribute(t, jobType, c, "job_number", tftypes.NewValue(tftypes.Number, nil))
	}

	d := planError(t, p, forGuest(101))
	if attributeName(d) != "vmid" {
		t.Errorf("error on %q", attributeName(d))
	}
	acctest.WantAll(t, "lvm refusal", d.Summary+"\n"+d.Detail, "Guest Cannot Be Replicated", "scsi0",
		"local-lvm:vm-101-disk-0", `"local-lvm"`, "lvmthin", "ZFS")

	d = planError(t, p, forGuest(102))
	acctest.WantAll(t, "shared-only refusal", d.Detail, "no disk to replicate")

	d = planError(t, p, with("target", tftypes.NewValue(tftypes.String, "pve1")))
	if attributeName(d) != "target" {
		t.Errorf("error on %q", attributeName(d))
	}
	acctest.WantAll(t, "same-node refusal", d.Detail, "pve1", "another node")

	// A guest created in the same apply is not there yet: no verdict.
	resp := p.PlanResponse(t, jobType, p.NullState(t, jobType), forGuest(150))
	for _, d := range resp.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			t.Errorf("plan for a guest not created yet: %s: %s", d.Summary, d.Detail)
		}
	}

	// A bad schedule is refused before the plan, naming the attribute.
	v, err := p.Server.ValidateResourceConfig(context.Background(), &tfprotov6.ValidateResourceConfigRequest{
		TypeName: jobType, Config: with("schedule", tftypes.NewValue(tftypes.String, "fry 25:00")),
	})
	if err != nil || len(v.Diagnostics) == 0 || attributeName(v.Diagnostics[0]) != "schedule" {
		t.Errorf("bad schedule: %v %v", err, v.Diagnostics)
	}
}

// Import ids are PVE's job ids; anything else is refused with the form.
func TestImportRefusesBadID(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	for _, id := range []string{"100", "99-0", "vm:100", "100-01"} {
		resp, err := p.Server.ImportResourceState(context.Background(), &tfprotov6.ImportResourceStateRequest{TypeName: jobType, ID: id})
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Diagnostics) == 0 || !strings.Contains(resp.Diagnostics[0].Detail, "<vmid>-<job number>") {
			t.Errorf("import %q: %v", id, resp.Diagnostics)
		}
	}
}

// When the guest moves to the job's target, PVE turns the job around
// (pve-guest-common src/PVE/ReplicationState.pm job_status,
// ReplicationConfig.pm switch_replication_job_target_nolock). The refresh
// keeps the declared target and the next plan is empty: no replacement
// that would fight the move (an HA recovery, a migration).
func TestJobFollowsItsGuest(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	addZFS(t, p.Sim)
	createVM(t, p.Client, 100, "local-zfs:4")
	ctx := context.Background()
	if err := p.Client.CreateReplicationJob(ctx, "100-0", "pve2", nil); err != nil {
		t.Fatal(err)
	}
	state := p.Import(t, jobType, "100-0")
	config := p.ConfigFromState(t, jobType, state)

	if err := p.Sim.Update(func(c *pvesim.Cluster) error {
		c.Guests[100].Node = "pve2"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	p.Sim.RunReplication()
	job, err := p.Client.GetReplicationJob(ctx, "100-0")
	if err != nil {
		t.Fatal(err)
	}
	if job.Target != "pve1" || job.Source != "pve2" {
		t.Fatalf("PVE did not turn the job around: %+v", job)
	}

	refreshed := p.Read(t, jobType, state, nil)
	got := p.StateValue(t, jobType, refreshed)
	var attrs map[string]tftypes.Value
	if err := got.As(&attrs); err != nil {
		t.Fatal(err)
	}
	var target, source string
	_ = attrs["target"].As(&target)
	_ = attrs["source"].As(&source)
	if target != "pve2" || source != "pve2" {
		t.Errorf("refreshed target %q source %q, want the declared pve2 and the guest's node pve2", target, source)
	}
	resp := p.PlanResponse(t, jobType, refreshed, config)
	if len(resp.RequiresReplace) != 0 || len(resp.Diagnostics) != 0 {
		t.Errorf("plan after the move: replace %v, diagnostics %v", resp.RequiresReplace, resp.Diagnostics)
	}
	planned, err := resp.PlannedState.Unmarshal(got.Type())
	if err != nil {
		t.Fatal(err)
	}
	if !planned.Equal(got) {
		t.Errorf("plan after the move is not empty:\n%v\n%v", planned, got)
	}
}
