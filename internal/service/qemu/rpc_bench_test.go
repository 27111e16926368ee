package qemu_test

import (
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/service/qemu"
)

// The four RPCs of one pve_vm (two disks, two NICs) in a plan of an
// unchanged configuration: what the provider costs per guest.
func BenchmarkVMRPC(b *testing.B) {
	p, state := benchVM(b)
	read := p.ReadResponse(b, "pve_vm", state, nil)
	acctest.BenchmarkGuestRPCs(b, p, "pve_vm", read.NewState, read.Private)
}

// The same RPCs and state against a bare pve_vm: the schema alone, no
// validation, refresh or plan logic. That is the plugin framework's floor;
// BenchmarkVMRPC minus this is the provider's share.
func BenchmarkVMBareRPC(b *testing.B) {
	p, state := benchVM(b)
	read := p.ReadResponse(b, "pve_vm", state, nil)
	bare := acctest.NewBareProtocol(b, qemu.NewVMResource)
	acctest.BenchmarkGuestRPCs(b, bare, "pve_vm", read.NewState, read.Private)
}
