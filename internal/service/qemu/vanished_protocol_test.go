package qemu_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// A declared disk removed outside Terraform: the refresh drops it, and the
// plan that re-creates it empty warns, naming the unusedN entry PVE kept
// and the command that re-attaches it. Driven over the plugin protocol,
// as Terraform does, because a warning is not observable in a test step.
func TestVM_diskRemovedOutsideWarnsAtPlan(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	ctx := context.Background()
	const vmid = 130
	upid, err := p.Client.CreateGuest(ctx, "pve1", pveapi.GuestTypeQemu, vmid, url.Values{
		"name": {"gone-disk"}, "scsi0": {"local-lvm:2"}, "scsi1": {"local-lvm:1"},
	})

	if err == nil {
		_, err = p.Client.WaitTask(ctx, upid)
	}
	if err != nil {
		t.Fatal(err)
	}
	state := p.Import(t, "pve_vm", "130")
	config := p.ConfigFromState(t, "pve_vm", state)
	plan := func(prior *tfprotov6.DynamicValue, private []byte) []*tfprotov6.Diagnostic {
		resp, err := p.Server.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
			TypeName: "pve_vm", PriorState: prior, ProposedNewState: config, Config: config, PriorPrivate: private,
		})
		if err != nil {
			t.Fatal(err)
		}
		return resp.Diagnostics
	}
	read := func(prior *tfprotov6.DynamicValue, private []byte) (*tfprotov6.DynamicValue, []byte) {
		resp, err := p.Server.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: "pve_vm", CurrentState: prior, Private: private})
		if err != nil || len(errorsOf(resp.Diagnostics)) > 0 {
			t.Fatalf("read: %v %v", err, errorsOf(resp.Diagnostics))
		}
		return resp.NewState, resp.Private
	}

	// Detached in the web interface: PVE parks it as unused0.
	if err := p.Client.UpdateGuestConfig(ctx, "pve1", pveapi.GuestTypeQemu, vmid, url.Values{"delete": {"scsi1"}}); err != nil {
		t.Fatal(err)
	}
	refreshed, private := read(state, nil)
	warnings := warningsOf(plan(refreshed, private))
	for _, want := range []string{"Disk Removed Outside Terraform", "Disk scsi1 is declared", "local-lvm:vm-130-disk-1",
		"NEW, EMPTY 1 GiB volume", "as unused0", "qm set 130 --scsi1 local-lvm:vm-130-disk-1"} {
		if !strings.Contains(warnings, want) {
			t.Errorf("plan warnings lack %q:\n%s", want, warnings)
		}
	}
	// A second refresh, as after `terraform apply -refresh-only`, keeps
	// the note while the slot stays empty.
	again, private := read(refreshed, private)
	if w := warningsOf(plan(again, private)); !strings.Contains(w, "as unused0") {
		t.Errorf("the second plan lost the warning:\n%s", w)
	}

	// Deleted for good: the warning says the data is gone.
	if err := p.Client.UpdateGuestConfig(ctx, "pve1", pveapi.GuestTypeQemu, vmid, url.Values{"delete": {"unused0"}}); err != nil {
		t.Fatal(err)
	}
	_, private = read(again, private)
	if w := warningsOf(plan(again, private)); !strings.Contains(w, "PVE kept no unused volume") {
		t.Errorf("plan warnings after the volume was destroyed:\n%s", w)
	}
}
