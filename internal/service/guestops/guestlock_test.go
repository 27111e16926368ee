package guestops

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// The locks and claims belong to one provider configuration, shared by its
// guest resources: two provider configurations (two clusters) never share
// them.
func TestGuestLocksPerProviderConfiguration(t *testing.T) {
	t.Parallel()
	var diags diag.Diagnostics
	one, other := fwutil.NewProviderData(&pveapi.Client{}, nil), fwutil.NewProviderData(&pveapi.Client{}, nil)
	vm, _ := Configure(one, VM, &diags)
	ct, _ := Configure(one, Container, &diags)
	elsewhere, _ := Configure(other, VM, &diags)
	if vm.Locks == nil || vm.Locks != ct.Locks || vm.Claims == nil || vm.Claims != ct.Claims {
		t.Error("one provider configuration got two lock tables")
	}
	if vm.Locks == elsewhere.Locks || vm.Claims == elsewhere.Claims {
		t.Error("two provider configurations share a lock table")
	}
}

// W10: PVE keeps a container clone's source locked ("lock: disk") and a VM
// clone's non-template source under its exclusive flock while running;
// clones of a VM template share the flock.
func TestCloneSourceLockedWhileCloningW10(t *testing.T) {
	t.Parallel()
	template := CloneSource{VMID: 9000, Config: pveapi.GuestConfig{"template": "1"}}
	plain := CloneSource{VMID: 100, Config: pveapi.GuestConfig{}}
	for _, tc := range []struct {
		kind Kind
		src  CloneSource
		want bool
	}{
		{Container, template, true},
		{Container, plain, true},
		{VM, template, false},
		{VM, plain, true},
	} {
		if got := (API{Kind: tc.kind}).sourceLockedWhileCloning(tc.src); got != tc.want {
			t.Errorf("%s source %v: serialised %t, want %t", tc.kind.Noun, tc.src.Config, got, tc.want)
		}
	}
}

// A destroy waits for the provider's other work on the guest (W10): while
// a clone holds its source, Delete does not touch the guest, and a
// deadline that ends the wait is an error naming the guest, with no
// request sent.
func TestDeleteWaitsForTheGuestLockW10(t *testing.T) {
	t.Parallel()
	api := API{Client: &pveapi.Client{}, Kind: Container, Locks: &fwutil.GuestLocks{}}
	unlock, err := api.LockGuest(context.Background(), 300)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var diags diag.Diagnostics
	api.Delete(ctx, "pve1", 300, false, &diags)
	if !diags.HasError() || diags[0].Summary() != "Timed Out Waiting For Container" ||
		!strings.Contains(diags[0].Detail(), "container 300") {
		t.Fatalf("Delete of a held guest = %v, want the wait to end with an error naming it", diags)
	}
}
