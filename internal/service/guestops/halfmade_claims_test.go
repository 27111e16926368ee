package guestops

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// The search for a half-made guest before each create skips the guests
// other resources of the same apply created: they are never taken over,
// and in a large apply the listing holds many of them without a name yet,
// whose configs would each be read once per create.
func TestFindHalfMadeSkipsGuestsOfThisApply(t *testing.T) {
	t.Parallel()
	token := "root@pam!claims=0123456789abcdef"
	sim, err := pvesim.New(pvesim.Options{Tokens: []string{token}})
	if err != nil {
		t.Fatal(err)
	}
	for _, vmid := range []int{150, 151} {
		if err := sim.AddGuest(pvesim.Guest{VMID: vmid, Node: "pve1", Type: pvesim.QEMU, Config: map[string]string{"memory": "512"}}); err != nil {
			t.Fatal(err)
		}
	}
	a := API{Client: simClient(t, sim, token), Kind: VM, Locks: &fwutil.GuestLocks{}, Claims: &fwutil.GuestClaims{}}
	a.Claims.Claim(150) // created by another resource of this apply

	sim.ResetCounters()
	var diags diag.Diagnostics
	req := CreateRequest{Node: "pve1"}
	if _, found, err := a.findHalfMade(context.Background(), req, CreateMarker(VM, ""), "hash", &diags); err != nil || found || diags.HasError() {
		t.Fatalf("findHalfMade = found %v, %v, %v; want nothing found", found, err, diags)
	}
	reads := map[string]int{}
	for _, r := range sim.Requests() {
		if r.Method == "GET" {
			reads[r.Path]++
		}
	}
	if reads["/nodes/pve1/qemu/150/config"] != 0 {
		t.Errorf("read the config of guest 150, which this apply created: %v", reads)
	}
	if reads["/nodes/pve1/qemu/151/config"] != 1 {
		t.Errorf("did not read the config of the nameless guest 151 once: %v", reads)
	}
}
