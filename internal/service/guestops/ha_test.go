package guestops

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// privateKeys is private state as a map, for the HA record's tests.
type privateKeys map[string][]byte

func (p privateKeys) GetKey(_ context.Context, key string) ([]byte, diag.Diagnostics) {
	return p[key], nil
}

func (p privateKeys) SetKey(_ context.Context, key string, value []byte) diag.Diagnostics {
	if len(value) == 0 {
		delete(p, key)
		return nil
	}
	p[key] = value
	return nil
}

func haLive(node string, managed bool) Live {
	status := &pveapi.GuestStatus{Status: pveapi.PowerRunning}
	if managed {
		status.HA = pveapi.HAStatus{Managed: true, State: "started"}
	}
	return Live{Node: node, Status: status}
}

// A guest HA moved keeps its declared node in state; the real one is
// recorded, every request uses it, and the warning comes once per move.
func TestFollowHAKeepsDeclaredNodeAndWarnsOncePerMove(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := API{Kind: KindOf(pveapi.GuestTypeQemu, false)}
	private := privateKeys{}

	var diags diag.Diagnostics
	if got := a.followHA(ctx, "pve1", 100, haLive("pve2", true), private, private, &diags); got != "pve1" {
		t.Fatalf("state node = %q, want the declared pve1", got)
	}
	if len(diags) != 1 || !strings.Contains(diags[0].Summary(), "VM 100 Moved By HA") ||
		!strings.Contains(diags[0].Detail(), "from pve1 to pve2") {
		t.Fatalf("diags = %v", diags)
	}
	if got := a.NodeOf(ctx, private, "pve1"); got != "pve2" {
		t.Fatalf("NodeOf = %q, want pve2", got)
	}

	// The next refresh finds it where it was: no new warning.
	diags = nil
	if got := a.followHA(ctx, "pve1", 100, haLive("pve2", true), private, private, &diags); got != "pve1" || len(diags) != 0 {
		t.Fatalf("second refresh: node %q, diags %v", got, diags)
	}

	// HA moves it again: one warning naming the move.
	if got := a.followHA(ctx, "pve1", 100, haLive("pve3", true), private, private, &diags); got != "pve1" || len(diags) != 1 ||
		!strings.Contains(diags[0].Detail(), "from pve2 to pve3") {
		t.Fatalf("third refresh: node %q, diags %v", got, diags)
	}

	// Back on the declared node: nothing recorded beyond HA management.
	diags = nil
	if got := a.followHA(ctx, "pve1", 100, haLive("pve1", true), private, private, &diags); got != "pve1" || len(diags) != 0 {
		t.Fatalf("back home: node %q, diags %v", got, diags)
	}
	if got := a.NodeOf(ctx, private, "pve1"); got != "pve1" {
		t.Fatalf("NodeOf after the return = %q", got)
	}
}

// A guest HA does not manage follows a move outside Terraform as before:
// state takes the node it is on, so the plan migrates it back.
func TestFollowHAWithoutHATakesTheLiveNode(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := API{Kind: KindOf(pveapi.GuestTypeLXC, false)}
	private := privateKeys{}
	var diags diag.Diagnostics
	if got := a.followHA(ctx, "pve1", 101, haLive("pve2", false), private, private, &diags); got != "pve2" || len(diags) != 0 {
		t.Fatalf("node %q, diags %v", got, diags)
	}
	if len(private) != 0 {
		t.Fatalf("private = %v, want nothing recorded", private)
	}
}

func TestIsHARequestTask(t *testing.T) {
	t.Parallel()
	for upid, want := range map[string]bool{
		"UPID:pve1:0000C530:00A9A4F2:6568A3B2:hamigrate:100:root@pam:": true,
		"UPID:pve1:0000C530:00A9A4F2:6568A3B2:hastart:100:root@pam:":   true,
		"UPID:pve1:0000C530:00A9A4F2:6568A3B2:hastop:100:root@pam:":    true,
		"UPID:pve1:0000C530:00A9A4F2:6568A3B2:qmstart:100:root@pam:":   false,
		"": false,
	} {
		if got := pveapi.IsHARequestTask(upid); got != want {
			t.Errorf("IsHARequestTask(%q) = %v", upid, got)
		}
	}
}
