package guestops

import (
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

func TestIdentityIsOther(t *testing.T) {
	vm := pveapi.GuestConfig{"meta": "creation-qemu=9.2.0,ctime=1764600000", "smbios1": "uuid=0B4F6B1E-1C2D-4E5F-8A9B-0C1D2E3F4A5B"}
	clone := pveapi.GuestConfig{"meta": "creation-qemu=9.2.0,ctime=1764600000", "smbios1": "uuid=7f000000-0000-4000-8000-000000000001"}
	ct := pveapi.GuestConfig{"net0": "name=eth0,bridge=vmbr0,hwaddr=bc:24:11:00:00:01", "net1": "name=eth1,bridge=vmbr0,hwaddr=BC:24:11:00:00:02"}
	for _, c := range []struct {
		name             string
		kind             Kind
		recorded, live   pveapi.GuestConfig
		other, knowsSelf bool
	}{
		{"same VM", VM, vm, vm, false, true},
		{"UUID case differs", VM, vm, pveapi.GuestConfig{"meta": vm["meta"], "smbios1": "uuid=0b4f6b1e-1c2d-4e5f-8a9b-0c1d2e3f4a5b"}, false, true},
		// A clone copies its source's meta: the UUID tells them apart.
		{"clone of the same source", VM, vm, clone, true, true},
		{"VM without meta", VM, vm, pveapi.GuestConfig{"smbios1": vm["smbios1"]}, false, true},
		{"nothing recorded", VM, pveapi.GuestConfig{}, vm, false, false},
		{"same container, one NIC added", Container, ct, pveapi.GuestConfig{"net0": ct["net0"], "net2": "name=eth2,hwaddr=BC:24:11:00:00:09"}, false, true},
		{"container with other MACs", Container, ct, pveapi.GuestConfig{"net0": "name=eth0,hwaddr=BC:24:11:AA:00:01"}, true, true},
		{"container without NICs", Container, ct, pveapi.GuestConfig{}, false, true},
	} {
		a := API{Kind: c.kind}
		recorded := a.IdentityOf(c.recorded)
		if recorded.Known() != c.knowsSelf {
			t.Errorf("%s: Known() = %v", c.name, recorded.Known())
		}
		if got := recorded.IsOther(a.IdentityOf(c.live)); got != c.other {
			t.Errorf("%s: IsOther = %v, want %v", c.name, got, c.other)
		}
	}
}
