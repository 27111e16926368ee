package lxc_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/lxc"
)

// benchContainer creates a container with a root volume, a mount point and
// two NICs directly through the API, imports it and refreshes it once,
// returning the state and private state the next refresh starts from.
func benchContainer(b *testing.B) (*acctest.Protocol, *tfprotov6.ReadResourceResponse) {
	b.Helper()
	p := acctest.NewProtocol(b)
	ctx := context.Background()
	upid, err := p.Client.CreateGuest(ctx, "pve1", pveapi.GuestTypeLXC, 120, url.Values{
		"ostemplate": {"local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst"},
		"hostname":   {"bench"},
		"memory":     {"512"},
		"swap":       {"0"},
		"cores":      {"2"},
		"rootfs":     {"local-lvm:4"},
		"mp0":        {"local-lvm:8,mp=/srv"},
		"net0":       {"name=eth0,bridge=vmbr0,ip=dhcp"},
		"net1":       {"name=eth1,bridge=vmbr0,tag=20,ip=dhcp"},
		"tags":       {"bench;prod"},
	})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := p.Client.WaitTask(ctx, upid); err != nil {
		b.Fatal(err)
	}
	state := p.Import(b, "pve_container", "pve1/120")
	return p, p.ReadResponse(b, "pve_container", state, nil)
}

// The four RPCs of one pve_container in a plan of an unchanged
// configuration: what the provider costs per guest.
func BenchmarkContainerRPC(b *testing.B) {
	p, read := benchContainer(b)
	acctest.BenchmarkGuestRPCs(b, p, "pve_container", read.NewState, read.Private)
}

// The same RPCs and state against a bare pve_container: the plugin
// framework's floor for its schema.
func BenchmarkContainerBareRPC(b *testing.B) {
	_, read := benchContainer(b)
	bare := acctest.NewBareProtocol(b, lxc.NewContainerResource)
	acctest.BenchmarkGuestRPCs(b, bare, "pve_container", read.NewState, read.Private)
}
