package snapshot_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

func protocolGuest(t *testing.T, p *acctest.Protocol, typ string, vmid int, start bool) {
	t.Helper()
	ctx := context.Background()
	params := url.Values{"scsi0": {"local-lvm:4"}, "memory": {"512"}}
	if typ == pveapi.GuestTypeLXC {
		params = url.Values{"ostemplate": {"local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst"}, "rootfs": {"local-lvm:4"}}
	}
	upid, err := p.Client.CreateGuest(ctx, "pve1", typ, vmid, params)
	if err == nil {
		_, err = p.Client.WaitTask(ctx, upid)
	}
	if err == nil && start {
		upid, err = p.Client.GuestStatusAction(ctx, "pve1", typ, vmid, "start", nil)
		if err == nil {
			_, err = p.Client.WaitTask(ctx, upid)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
}

func wantOK(t *testing.T, what string, got acctest.Invoked, progress string) {
	t.Helper()
	if acctest.HasErrors(got.Diagnostics) {
		t.Fatalf("%s: %s", what, acctest.DiagnosticsText(got.Diagnostics))
	}
	all := strings.Join(got.Progress, "\n")
	if !strings.Contains(all, progress) {
		t.Errorf("%s: progress %q lacks %q", what, all, progress)
	}
}

func wantError(t *testing.T, what string, diags string, parts ...string) {
	t.Helper()
	acctest.WantAll(t, what, diags, parts...)
}

// pve_guest_snapshot takes a snapshot with RAM and a description (the
// node looked up), rolls back to it and deletes it, each as one task.
func TestSnapshotActionLifecycle(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	protocolGuest(t, p, pveapi.GuestTypeQemu, 100, true)
	ctx := context.Background()

	got := p.InvokeAction(t, "pve_guest_snapshot", map[string]any{
		"vmid": 100, "operation": "create", "name": "before", "description": "before the upgrade", "vmstate": true,
	})
	wantOK(t, "create", got, "Took snapshot before of VM 100 on node pve1.")
	snap, found, err := p.Client.FindSnapshot(ctx, "pve1", pveapi.GuestTypeQemu, 100, "before")
	if err != nil || !found || !snap.VMState || snap.Description != "before the upgrade" {
		t.Fatalf("snapshot after create: %+v found=%v err=%v", snap, found, err)
	}

	got = p.InvokeAction(t, "pve_guest_snapshot", map[string]any{"vmid": 100, "node": "pve1", "operation": "rollback", "name": "before"})
	wantOK(t, "rollback", got, "plans, at its next plan, to change back")

	got = p.InvokeAction(t, "pve_guest_snapshot", map[string]any{"vmid": 100, "operation": "delete", "name": "before"})
	wantOK(t, "delete", got, "Deleted snapshot before")
	if _, found, err := p.Client.FindSnapshot(ctx, "pve1", pveapi.GuestTypeQemu, 100, "before"); err != nil || found {
		t.Fatalf("snapshot after delete: found=%v err=%v", found, err)
	}
}

// What the snapshot action refuses, before any change: attributes of
// another operation, a bad or reserved name, RAM of a container, a guest
// that does not exist or is on another node, a snapshot that does not
// exist.
func TestSnapshotActionRefusals(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	protocolGuest(t, p, pveapi.GuestTypeLXC, 101, false)

	diags := acctest.DiagnosticsText(p.ValidateAction(t, "pve_guest_snapshot", map[string]any{
		"vmid": 101, "operation": "delete", "name": "x1", "description": "d",
	}))
	wantError(t, "description on delete", diags, "description", `only applies to operation = "create"`)
	diags = acctest.DiagnosticsText(p.ValidateAction(t, "pve_guest_snapshot", map[string]any{"vmid": 101, "operation": "create", "name": "1bad"}))
	wantError(t, "bad name", diags, "name must be a letter")
	diags = acctest.DiagnosticsText(p.ValidateAction(t, "pve_guest_snapshot", map[string]any{"vmid": 101, "operation": "clone", "name": "x1"}))
	wantError(t, "bad operation", diags, "operation")

	for what, c := range map[string]struct {
		attrs map[string]any
		parts []string
	}{
		"container RAM":    {map[string]any{"vmid": 101, "operation": "create", "name": "x1", "vmstate": true}, []string{"never hold RAM"}},
		"reserved name":    {map[string]any{"vmid": 101, "operation": "create", "name": "vzdump"}, []string{"reserved by PVE for a container"}},
		"missing guest":    {map[string]any{"vmid": 999, "operation": "create", "name": "x1"}, []string{"No guest with VMID 999"}},
		"other node":       {map[string]any{"vmid": 101, "node": "pve2", "operation": "create", "name": "x1"}, []string{"is on node pve1, not pve2"}},
		"missing snapshot": {map[string]any{"vmid": 101, "operation": "rollback", "name": "nope"}, []string{"Unable To Roll Back To Snapshot", "snapshot 'nope' does not exist"}},
	} {
		got := p.InvokeAction(t, "pve_guest_snapshot", c.attrs)
		wantError(t, what, acctest.DiagnosticsText(got.Diagnostics), c.parts...)
	}
	snaps, err := p.Client.ListSnapshots(context.Background(), "pve1", pveapi.GuestTypeLXC, 101)
	if err != nil || len(snaps) != 0 {
		t.Fatalf("snapshots after refusals: %+v %v", snaps, err)
	}
}

// pve_guest_power shuts a VM down and starts it again, and says what the
// next plan of a resource managing it will do.
func TestPowerAction(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	protocolGuest(t, p, pveapi.GuestTypeQemu, 100, true)
	protocolGuest(t, p, pveapi.GuestTypeLXC, 101, false)
	ctx := context.Background()
	power := func(typ string, vmid int) string {
		s, err := p.Client.GuestStatus(ctx, "pve1", typ, vmid)
		if err != nil {
			t.Fatal(err)
		}
		return s.PowerState()
	}

	got := p.InvokeAction(t, "pve_guest_power", map[string]any{"vmid": 100, "operation": "shutdown", "timeout": 30})
	wantOK(t, "shutdown", got, "started = true (the default) plans to start it again")
	if s := power(pveapi.GuestTypeQemu, 100); s != pveapi.PowerStopped {
		t.Fatalf("VM after shutdown: %s", s)
	}
	got = p.InvokeAction(t, "pve_guest_power", map[string]any{"vmid": 100, "operation": "start"})
	wantOK(t, "start", got, "started = false plans to stop it again")
	if s := power(pveapi.GuestTypeQemu, 100); s != pveapi.PowerRunning {
		t.Fatalf("VM after start: %s", s)
	}

	got = p.InvokeAction(t, "pve_guest_power", map[string]any{"vmid": 101, "operation": "start"})
	wantOK(t, "container start", got, "Container 101 on node pve1 is running")
	got = p.InvokeAction(t, "pve_guest_power", map[string]any{"vmid": 101, "operation": "start"})
	wantOK(t, "container start again", got, "already is where start would take it")

	got = p.InvokeAction(t, "pve_guest_power", map[string]any{"vmid": 100, "operation": "suspend"})
	wantOK(t, "suspend", got, "may plan to resume it")
	if s := power(pveapi.GuestTypeQemu, 100); s != pveapi.PowerPaused {
		t.Fatalf("VM after suspend: %s", s)
	}
	got = p.InvokeAction(t, "pve_guest_power", map[string]any{"vmid": 100, "operation": "resume"})
	wantOK(t, "resume", got, "VM 100 on node pve1 is running")
	if s := power(pveapi.GuestTypeQemu, 100); s != pveapi.PowerRunning {
		t.Fatalf("VM after resume: %s", s)
	}
	got = p.InvokeAction(t, "pve_guest_power", map[string]any{"vmid": 100, "node": "pve1", "operation": "reboot", "timeout": 10})
	wantOK(t, "reboot", got, "VM 100 on node pve1 rebooted.")
	got = p.InvokeAction(t, "pve_guest_power", map[string]any{"vmid": 101, "operation": "stop"})
	wantOK(t, "container stop", got, "Container 101 on node pve1 is stopped")
	got = p.InvokeAction(t, "pve_guest_power", map[string]any{"vmid": 101, "operation": "shutdown"})
	wantOK(t, "container shutdown when stopped", got, "already is where shutdown would take it")

	got = p.InvokeAction(t, "pve_guest_power", map[string]any{"vmid": 100, "node": "pve2", "operation": "stop"})
	wantError(t, "other node", acctest.DiagnosticsText(got.Diagnostics), "is on node pve1, not pve2")
	if s := power(pveapi.GuestTypeQemu, 100); s != pveapi.PowerRunning {
		t.Fatalf("VM after a refused stop: %s", s)
	}

	diags := acctest.DiagnosticsText(p.ValidateAction(t, "pve_guest_power", map[string]any{"vmid": 100, "operation": "start", "timeout": 5}))
	wantError(t, "timeout on start", diags, "timeout only applies")
}
