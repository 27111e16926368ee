package guestops

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// The archive is checked by its name at plan time: a vzdump archive of
// the resource's guest type, else an error naming restore.archive.
func TestBackupArchiveValidator(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kind   Kind
		volid  string
		errors string
	}{
		{VM, "local:backup/vzdump-qemu-120-2026_11_01-00_00_00.vma.zst", ""},
		{Container, "nfs:backup/vzdump-lxc-130-2026_11_01-00_00_00.tar.zst", ""},
		{VM, "local:backup/vzdump-lxc-130-x.tar.zst", "is a lxc backup; pve_vm restores only qemu archives"},
		{Container, "local:backup/vzdump-qemu-120-x.vma", "is a qemu backup; pve_container restores only lxc archives"},
		{Container, "local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst", "is not a vzdump backup archive: restore.archive takes"},
	} {
		resp := &validator.StringResponse{}
		backupArchiveValidator{kind: tc.kind}.ValidateString(context.Background(), validator.StringRequest{
			Path: path.Root("restore").AtName("archive"), ConfigValue: types.StringValue(tc.volid),
		}, resp)
		switch {
		case tc.errors == "" && resp.Diagnostics.HasError():
			t.Errorf("%s: %v", tc.volid, resp.Diagnostics)
		case tc.errors != "" && (!resp.Diagnostics.HasError() || !strings.Contains(resp.Diagnostics[0].Detail(), tc.errors)):
			t.Errorf("%s: diagnostics %v, want %q", tc.volid, resp.Diagnostics, tc.errors)
		}
	}
}

// The restore marker is a create marker: recognised on the guest, and
// removed with the others once the guest is complete.
func TestRestoreMarkerIsRemovable(t *testing.T) {
	t.Parallel()
	marker := RestoreMarker(Container, "local:backup/vzdump-lxc-130-x.tar.zst")
	config := pveapi.GuestConfig{KeyDescription: WithCloneMarker("cache container", marker)}
	if !HasCloneMarker(config, marker) {
		t.Fatalf("marker not found in %q", config[KeyDescription])
	}
	if got, found := StripCloneMarker(config[KeyDescription]); !found || got != "cache container" {
		t.Errorf("stripped = %q, %v", got, found)
	}
	if got := ArchiveDescription(types.StringNull(), config); got != "cache container" {
		t.Errorf("archive description = %q", got)
	}
	if got := ArchiveDescription(types.StringValue("mine"), config); got != "mine" {
		t.Errorf("declared description = %q", got)
	}
}

// W40, W48: a restored guest its pool does not list is put back; with no
// pool declared nothing is touched.
func TestEnsurePoolW40W48(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := API{Client: importCluster(t), Kind: Container}
	var diags diag.Diagnostics
	if !a.EnsurePool(ctx, 200, types.StringValue("adopt"), &diags) || !a.EnsurePool(ctx, 201, types.StringNull(), &diags) {
		t.Fatal(diags)
	}
	for vmid, want := range map[int]bool{200: true, 201: false, 100: true} {
		if member, err := a.PoolHas(ctx, "adopt", vmid); err != nil || member != want {
			t.Errorf("guest %d in pool: %v (%v), want %v", vmid, member, err, want)
		}
	}
}
