package qemu_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// protocolVM creates VM 100 on pve1 with scsi0 (4G) and a detached 2G
// volume (unused0), and imports it.
func protocolVM(t *testing.T, p *acctest.Protocol) {
	t.Helper()
	ctx := context.Background()
	upid, err := p.Client.CreateGuest(ctx, "pve1", pveapi.GuestTypeQemu, 100, url.Values{
		"name": {"web"}, "scsi0": {"local-lvm:4"}, "scsi1": {"local-lvm:2"}, "ide2": {"none,media=cdrom"},
	})

	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Client.WaitTask(ctx, upid); err != nil {
		t.Fatal(err)
	}
	if err := p.Client.UpdateGuestConfig(ctx, "pve1", pveapi.GuestTypeQemu, 100, url.Values{"delete": {"scsi1"}}); err != nil {
		t.Fatal(err)
	}
}

// A plan that replaces the VM (a new vmid) warns, naming every volume the
// old VM's destroy deletes, the detached one included; the CD-ROM is none.
func TestVMReplacementWarnsWithVolumes(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	protocolVM(t, p)
	state := p.Import(t, "pve_vm", "100")
	config := p.WithAttribute(t, "pve_vm", p.ConfigFromState(t, "pve_vm", state), "vmid", tftypes.NewValue(tftypes.Number, 120))
	resp := p.PlanResponse(t, "pve_vm", state, config)
	if len(resp.RequiresReplace) != 1 {
		t.Fatalf("RequiresReplace = %v, want vmid", resp.RequiresReplace)
	}
	warning := acctest.Warning(resp.Diagnostics, "VM Will Be Replaced")
	acctest.WantAll(t, "the replacement warning", warning, "vmid changes from 100 to 120", "so VM 100 on node pve1 is destroyed",
		"scsi0 local-lvm:vm-100-disk-0 (4G)", "unused0 local-lvm:vm-100-disk-1 (2G)", "set vmid back to 100")
	if strings.Contains(warning, "ide2") {
		t.Errorf("the warning names the CD-ROM:\n%s", warning)
	}

	same := p.PlanResponse(t, "pve_vm", state, p.ConfigFromState(t, "pve_vm", state))
	if w := acctest.Warning(same.Diagnostics, "VM Will Be Replaced"); w != "" {
		t.Errorf("a plan without replacement warns: %s", w)
	}
}

// The destroy plan warns that the detached volume goes with the VM, and
// how to keep it.
func TestVMDestroyWarnsAboutDetachedVolumes(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	protocolVM(t, p)
	state := p.Import(t, "pve_vm", "100")
	resp := p.PlanResponse(t, "pve_vm", state, nil)
	warning := acctest.Warning(resp.Diagnostics, "Destroy Deletes Detached Volumes")
	acctest.WantAll(t, "the destroy warning", warning, "VM 100 on node pve1", "unused0 local-lvm:vm-100-disk-1 (2G)",
		"move it to another VM first", "move_disk", "target-vmid")
	if strings.Contains(warning, "scsi0") {
		t.Errorf("the destroy warning names a declared disk:\n%s", warning)
	}
}

// A template's destroy plan warns the same way: pve_vm_template shares
// the VM's plan.
func TestVMTemplateDestroyWarnsAboutDetachedVolumes(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	protocolVM(t, p)
	ctx := context.Background()
	upid, err := p.Client.TemplateQemu(ctx, "pve1", 100, "")
	if err == nil {
		_, err = p.Client.WaitTask(ctx, upid)
	}
	if err != nil {
		t.Fatal(err)
	}
	state := p.Import(t, "pve_vm_template", "100")
	acctest.WantAll(t, "the destroy warning", acctest.Warning(p.PlanResponse(t, "pve_vm_template", state, nil).Diagnostics, "Destroy Deletes Detached Volumes"),
		"VM template 100 on node pve1", "unused0 local-lvm:", "move_disk")
}
