package snapshot_test

import (
	"context"
	"regexp"
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// Bad input fails at plan time naming the attribute.
func TestSnapshotResourcePlanRefusals(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	for _, c := range []struct {
		typeName, attr string
		attrs          map[string]any
		want           string
	}{
		{"pve_vm_snapshot", "name", map[string]any{"node": "pve1", "vmid": 100, "name": "pending"}, `PVE reserves \(current, pending\)`},
		{"pve_vm_snapshot", "name", map[string]any{"node": "pve1", "vmid": 100, "name": "current"}, `PVE reserves`},
		{"pve_vm_snapshot", "name", map[string]any{"node": "pve1", "vmid": 100, "name": "1st"}, `must be a letter`},
		{"pve_vm_snapshot", "name", map[string]any{"node": "pve1", "vmid": 100, "name": "a12345678901234567890123456789012345678901"}, `2 to 40 characters`},
		{"pve_container_snapshot", "name", map[string]any{"node": "pve1", "vmid": 100, "name": "vzdump"}, `PVE reserves \(current, vzdump\)`},
		{"pve_vm_snapshot", "vmid", map[string]any{"node": "pve1", "vmid": 99, "name": "ok1"}, `between 100 and 999999999`},
		{"pve_vm_snapshot", "node", map[string]any{"node": "bad_node!", "vmid": 100, "name": "ok1"}, `node name`},
		{"pve_vm_snapshot", "description", map[string]any{"node": "pve1", "vmid": 100, "name": "ok1", "description": ""}, `at least 1`},
	} {
		acctest.WantError(t, p.PlanCreate(t, c.typeName, c.attrs), c.attr, regexp.MustCompile(c.want))
	}
}

// What only PVE can tell is refused at apply, before anything changes:
// RAM of a VM that is not running, a guest that does not exist, and at
// import a bad id, a guest of the other type or on another node, and a
// snapshot the guest does not have.
func TestSnapshotResourceApplyRefusals(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	protocolGuest(t, p, pveapi.GuestTypeQemu, 100, false)
	protocolGuest(t, p, pveapi.GuestTypeLXC, 101, false)

	acctest.WantError(t, p.ApplyCreate(t, "pve_vm_snapshot", map[string]any{"node": "pve1", "vmid": 100, "name": "withram", "vmstate": true}),
		"vmstate", regexp.MustCompile(`vmstate saves the RAM of a running VM, but VM 100 is stopped`))
	acctest.WantError(t, p.ApplyCreate(t, "pve_container_snapshot", map[string]any{"node": "pve1", "vmid": 100, "name": "x1"}),
		"vmid", regexp.MustCompile(`No container 100 exists on node pve1`))
	acctest.WantError(t, p.ApplyCreate(t, "pve_vm_snapshot", map[string]any{"node": "pve2", "vmid": 100, "name": "x1"}),
		"vmid", regexp.MustCompile(`No VM 100 exists on node pve2`))
	snaps, err := p.Client.ListSnapshots(context.Background(), "pve1", pveapi.GuestTypeQemu, 100)
	if err != nil || len(snaps) != 0 {
		t.Fatalf("snapshots after refusals: %+v %v", snaps, err)
	}

	for _, c := range []struct {
		typeName, id, want string
	}{
		{"pve_vm_snapshot", "100", `import pve_vm_snapshot by NODE/VMID/NAME`},
		{"pve_vm_snapshot", "pve1/100/x1/y", `import pve_vm_snapshot by NODE/VMID/NAME`},
		{"pve_vm_snapshot", "pve1/abc/x1", `has no valid VMID`},
		{"pve_vm_snapshot", "100/current", `is no valid snapshot name`},
		{"pve_vm_snapshot", "101/x1", `Guest 101 is a container, not a VM: use pve_container_snapshot`},
		{"pve_container_snapshot", "100/x1", `Guest 100 is a VM, not a container: use pve_vm_snapshot`},
		{"pve_vm_snapshot", "pve2/100/x1", `VM 100 is on node pve1, not pve2`},
		{"pve_vm_snapshot", "999/x1", `No guest with VMID 999`},
		{"pve_vm_snapshot", "100/x1", `VM 100 on node pve1 has no snapshot "x1"`},
	} {
		acctest.WantError(t, p.ImportDiagnostics(t, c.typeName, c.id), "", regexp.MustCompile(c.want))
	}
}

// A snapshot deleted outside Terraform, or whose guest was, leaves the
// state at the next refresh, so the next plan creates it again.
func TestSnapshotResourceDisappears(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	ctx := context.Background()
	protocolGuest(t, p, pveapi.GuestTypeQemu, 100, false)
	protocolGuest(t, p, pveapi.GuestTypeLXC, 101, false)

	vm := p.Create(t, "pve_vm_snapshot", map[string]any{"node": "pve1", "vmid": 100, "name": "gone"})
	ct := p.Create(t, "pve_container_snapshot", map[string]any{"node": "pve1", "vmid": 101, "name": "gone"})

	upid, err := p.Client.DeleteSnapshot(ctx, "pve1", pveapi.GuestTypeQemu, 100, "gone")
	if err == nil {
		_, err = p.Client.WaitTask(ctx, upid)
	}
	if err != nil {
		t.Fatal(err)
	}
	if state := p.StateValue(t, "pve_vm_snapshot", p.Refresh(t, "pve_vm_snapshot", vm).State); !state.IsNull() {
		t.Errorf("state after the snapshot was deleted: %v", state)
	}

	upid, err = p.Client.DeleteGuest(ctx, "pve1", pveapi.GuestTypeLXC, 101, false, false)
	if err == nil {
		_, err = p.Client.WaitTask(ctx, upid)
	}
	if err != nil {
		t.Fatal(err)
	}
	if state := p.StateValue(t, "pve_container_snapshot", p.Refresh(t, "pve_container_snapshot", ct).State); !state.IsNull() {
		t.Errorf("state after the container was deleted: %v", state)
	}
}
