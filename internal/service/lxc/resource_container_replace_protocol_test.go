package lxc_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// protocolCT creates container 100 on pve1 with a 4G root disk and a
// detached 2G volume (unused0), and imports it.
func protocolCT(t *testing.T, p *acctest.Protocol) {
	t.Helper()
	ctx := context.Background()
	upid, err := p.Client.CreateGuest(ctx, "pve1", pveapi.GuestTypeLXC, 100, url.Values{
		"ostemplate": {ctTemplate}, "hostname": {"cache"}, "rootfs": {"local-lvm:4"}, "mp0": {"local-lvm:2,mp=/data"},
	})

	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Client.WaitTask(ctx, upid); err != nil {
		t.Fatal(err)
	}
	if err := p.Client.UpdateGuestConfig(ctx, "pve1", pveapi.GuestTypeLXC, 100, url.Values{"delete": {"mp0"}}); err != nil {
		t.Fatal(err)
	}
}

// Switching unprivileged replaces the container, with a warning naming
// each volume destroyed, the detached one included.
func TestContainerReplacementWarnsWithVolumes(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	protocolCT(t, p)
	state := p.Import(t, "pve_container", "100")
	config := p.WithAttribute(t, "pve_container", p.ConfigFromState(t, "pve_container", state), "unprivileged", tftypes.NewValue(tftypes.Bool, false))
	resp := p.PlanResponse(t, "pve_container", state, config)
	if len(resp.RequiresReplace) != 1 {
		t.Fatalf("RequiresReplace = %v, want unprivileged", resp.RequiresReplace)
	}
	acctest.WantAll(t, "the replacement warning", acctest.Warning(resp.Diagnostics, "Container Will Be Replaced"),
		"unprivileged changes from true to false", "so container 100 on node pve1 is destroyed",
		"rootfs local-lvm:vm-100-disk-0 (4G)", "unused0 local-lvm:vm-100-disk-1 (2G)", "set unprivileged back to true")
}

// The destroy plan warns that the detached volume goes with the
// container, and how to keep it.
func TestContainerDestroyWarnsAboutDetachedVolumes(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	protocolCT(t, p)
	state := p.Import(t, "pve_container", "100")
	acctest.WantAll(t, "the destroy warning", acctest.Warning(p.PlanResponse(t, "pve_container", state, nil).Diagnostics, "Destroy Deletes Detached Volumes"),
		"container 100 on node pve1", "unused0 local-lvm:vm-100-disk-1 (2G)", "move it to another container first", "move_volume", "target-vmid")
}
