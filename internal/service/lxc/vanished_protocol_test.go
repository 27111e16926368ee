package lxc_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// A declared mount point removed outside Terraform: the plan that
// re-creates it empty warns, naming the unusedN entry PVE kept and the
// command that re-attaches it. Driven over the plugin protocol, as
// Terraform does, because a warning is not observable in a test step.
func TestContainer_mountPointRemovedOutsideWarnsAtPlan(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	ctx := context.Background()
	const vmid = 131
	upid, err := p.Client.CreateGuest(ctx, "pve1", pveapi.GuestTypeLXC, vmid, url.Values{
		"ostemplate": {ctTemplate}, "hostname": {"gone-mp"}, "rootfs": {"local-lvm:2"}, "mp0": {"local-lvm:1,mp=/data"},
	})

	if err == nil {
		_, err = p.Client.WaitTask(ctx, upid)
	}
	if err != nil {
		t.Fatal(err)
	}
	state := p.Import(t, "pve_container", "131")
	config := p.ConfigFromState(t, "pve_container", state)

	if err := p.Client.UpdateGuestConfig(ctx, "pve1", pveapi.GuestTypeLXC, vmid, url.Values{"delete": {"mp0"}}); err != nil {
		t.Fatal(err)
	}
	read, err := p.Server.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: "pve_container", CurrentState: state})
	if err != nil || diagnosticsOf(read.Diagnostics, tfprotov6.DiagnosticSeverityError) != "" {
		t.Fatalf("read: %v %v", err, read.Diagnostics)
	}
	plan, err := p.Server.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
		TypeName: "pve_container", PriorState: read.NewState, ProposedNewState: config, Config: config, PriorPrivate: read.Private,
	})
	if err != nil {
		t.Fatal(err)
	}
	warnings := diagnosticsOf(plan.Diagnostics, tfprotov6.DiagnosticSeverityWarning)
	for _, want := range []string{"Mount Point Removed Outside Terraform", "Mount point mp0 is declared", "local-lvm:vm-131-disk-1",
		"NEW, EMPTY 1 GiB volume", "as unused0", "pct set 131 --mp0 local-lvm:vm-131-disk-1,mp=/data"} {
		if !strings.Contains(warnings, want) {
			t.Errorf("plan warnings lack %q:\n%s", want, warnings)
		}
	}
}
