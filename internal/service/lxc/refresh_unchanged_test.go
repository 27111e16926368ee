package lxc_test

import (
	"bytes"
	"context"
	"net/url"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// A refresh of a container nothing changed returns the prior state as it
// was, value and private state, so a refresh-only plan has nothing to
// record. (Terraform 1.11 still exits 2 on such a plan with
// -detailed-exitcode: it compares decoded numbers by their internal
// precision, see docs/performance.md.)
func TestRefreshOfUnchangedContainerReturnsPriorState(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	ctx := context.Background()
	upid, err := p.Client.CreateGuest(ctx, "pve1", pveapi.GuestTypeLXC, 120, url.Values{
		"ostemplate": {"local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst"},
		"hostname":   {"refresh"},
		"memory":     {"256"},
		"swap":       {"0"},
		"rootfs":     {"local-lvm:1"},
		"net0":       {"name=eth0,bridge=vmbr0,ip=dhcp"},
	})

	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Client.WaitTask(ctx, upid); err != nil {
		t.Fatal(err)
	}
	state := p.Import(t, "pve_container", "pve1/120")
	var private []byte
	for i := range 3 {
		resp, err := p.Server.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: "pve_container", CurrentState: state, Private: private})
		if err != nil || len(resp.Diagnostics) != 0 || resp.NewState == nil {
			t.Fatalf("read %d: %v %v", i, err, resp.Diagnostics)
		}
		before, after := p.StateValue(t, "pve_container", state), p.StateValue(t, "pve_container", resp.NewState)
		if !after.Equal(before) {
			t.Fatalf("read %d changed the state:\nbefore %v\nafter  %v", i, before, after)
		}
		if i > 0 && !bytes.Equal(resp.Private, private) {
			t.Fatalf("read %d changed the private state: %q -> %q", i, private, resp.Private)
		}
		state, private = resp.NewState, resp.Private
	}
}
