package qemu

import (
	"slices"
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// W32: only a cdrom holding iso/pve-seed-N.iso is a seed, and N is its
// owner.
func TestSeedOwnerW32(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		owner int
		ok    bool
	}{
		"local:iso/pve-seed-9000.iso,media=cdrom":            {9000, true},
		"shared-nfs:iso/pve-seed-101.iso,media=cdrom,size=1": {101, true},
		"local:iso/pve-seed-9000.iso.bak,media=cdrom":        {0, false},
		"local:iso/pve-seed-.iso,media=cdrom":                {0, false},
		"local:iso/pve-seed-0101.iso,media=cdrom":            {0, false},
		"local:iso/debian-13-netinst.iso,media=cdrom":        {0, false},
		"none,media=cdrom":                                   {0, false},
		"local-lvm:vm-100-disk-0,size=4G":                    {0, false},
	}
	for value, want := range cases {
		owner, ok := seedOwner(value)
		if owner != want.owner || ok != want.ok {
			t.Errorf("seedOwner(%q) = %d, %v; want %d, %v", value, owner, ok, want.owner, want.ok)
		}
	}
}

// W15, W32: a clone's inherited seeds are the cdroms holding another VM's
// seed that the configuration does not declare; its own seed is not one.
func TestInheritedSeedSlotsW15W32(t *testing.T) {
	t.Parallel()
	config := pveapi.GuestConfig{
		"ide2":  "local:iso/pve-seed-9000.iso,media=cdrom",
		"ide3":  "local:iso/pve-seed-150.iso,media=cdrom",
		"sata0": "local:iso/pve-seed-9001.iso,media=cdrom",
		"scsi0": "local-lvm:vm-150-disk-0,size=4G",
	}
	plan := &vmModel{CDROMs: map[string]cdromModel{"sata0": {}}}
	if got := inheritedSeedSlots(config, 150, plan); !slices.Equal(got, []string{"ide2"}) {
		t.Errorf("inherited seed slots = %v, want [ide2]", got)
	}
}

func TestVMsHaveIt(t *testing.T) {
	t.Parallel()
	if got := vmsHaveIt([]int{101}); got != "VM 101 has it" {
		t.Errorf("one VM: %q", got)
	}
	if got := vmsHaveIt([]int{101, 102}); got != "VMs 101, 102 have it" {
		t.Errorf("two VMs: %q", got)
	}
}
