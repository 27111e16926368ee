package qemu

import (
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

func diskPath(slot, attr string) path.Path {
	p := path.Root("disks").AtMapKey(slot)
	if attr != "" {
		p = p.AtName(attr)
	}
	return p
}

// checkConfig finds configuration errors that need no state: bus option
// rules (W26), a disk without size or image, a slot used twice, empty
// nested objects.
func checkConfig(m *vmModel) []guestops.Issue {
	var issues []guestops.Issue
	for _, slot := range slices.Sorted(maps.Keys(m.Disks)) {
		disk := m.Disks[slot]
		bus, _, _ := wire.DiskSlot(slot)
		if guestops.Known(disk.SSD) && disk.SSD.ValueBool() && (bus == "virtio") {
			issues = append(issues, guestops.Issue{
				Path:    diskPath(slot, "ssd"),
				Summary: "SSD Emulation Not Supported On This Bus",
				Detail: fmt.Sprintf("Disk %s is on the %s bus, which has no ssd option: PVE accepts ssd only on scsi, sata and ide. "+
					"Remove ssd from this disk, or declare it on a scsi or sata slot.", slot, bus),
			})
		}
		if guestops.Known(disk.IOThread) && disk.IOThread.ValueBool() && (bus == "sata" || bus == "ide") {
			issues = append(issues, guestops.Issue{
				Path:    diskPath(slot, "iothread"),
				Summary: "IO Thread Not Supported On This Bus",
				Detail: fmt.Sprintf("Disk %s is on the %s bus; iothread applies only to virtio and scsi disks. "+
					"Remove iothread from this disk, or declare it on a virtio or scsi slot (on scsi together with scsi_hardware = \"virtio-scsi-single\").", slot, bus),
			})
		}
		if disk.Size.IsNull() && disk.ImportFrom.IsNull() {
			issues = append(issues, guestops.Issue{
				Path:    diskPath(slot, "size"),
				Summary: "Disk Size Required",
				Detail:  fmt.Sprintf("Disk %s needs a size (GiB, or with a unit: \"512M\"), or import_from to seed it from an image.", slot),
			})
		}
		if _, both := m.CDROMs[slot]; both {
			issues = append(issues, guestops.Issue{
				Path:    path.Root("cdroms").AtMapKey(slot),
				Summary: "Slot Used Twice",
				Detail:  fmt.Sprintf("Slot %s is declared both in disks and in cdroms. Each drive slot holds one device: pick another slot for one of them.", slot),
			})
		}
	}
	if m.CPU != nil && guestops.AllNull(m.CPU.Cores, m.CPU.Sockets, m.CPU.Type, m.CPU.Units, m.CPU.Limit, m.CPU.NUMA) {
		issues = append(issues, guestops.Issue{Path: path.Root("cpu"), Summary: "Empty CPU Settings",
			Detail: "cpu sets none of its attributes. Set at least one, or leave cpu out to keep PVE's defaults."})
	}
	if m.Memory != nil && guestops.AllNull(m.Memory.Size, m.Memory.Balloon) {
		issues = append(issues, guestops.Issue{Path: path.Root("memory"), Summary: "Empty Memory Settings",
			Detail: "memory sets neither size nor balloon. Set at least one, or leave memory out to keep PVE's defaults."})
	}
	return issues
}

// checkPlan is the data-loss guard: it compares the planned disks with the
// disks in state and refuses what would lose data or silently make a new
// volume. Removing a disk is allowed, with a warning that says where its
// data goes.
func checkPlan(state, plan *vmModel) []guestops.Issue {
	var issues []guestops.Issue
	added := map[string]guestops.Volume{}
	for slot, disk := range plan.Disks {
		if _, existed := state.Disks[slot]; !existed {
			added[slot] = disk.volume()
		}
	}
	for _, slot := range slices.Sorted(maps.Keys(plan.Disks)) {
		want := plan.Disks[slot]
		had, existed := state.Disks[slot]
		if !existed {
			if _, wasCDROM := state.CDROMs[slot]; wasCDROM {
				issues = append(issues, slotSwitchIssue(diskPath(slot, ""), slot, "CD-ROM", "disk"))
			}
			continue
		}
		if issue, shrinks := guestops.ShrinkIssue(diskPath(slot, "size"), guestops.DiskNoun, slot, had.Size, want.Size); shrinks {
			issues = append(issues, issue)
		}
		if guestops.Known(had.ImportFrom) && guestops.Known(want.ImportFrom) && had.ImportFrom.ValueString() != want.ImportFrom.ValueString() {
			// import_from is create-time only (W25): PVE never re-imports into
			// a live disk, so a new value is recorded and nothing else happens.
			issues = append(issues, guestops.Issue{
				Path:    diskPath(slot, "import_from"),
				Summary: "Image Is Used Only At Creation",
				Detail: fmt.Sprintf("Disk %s was seeded from %s when it was created and holds its own data now. "+
					"It is not re-imported: %s is recorded and the disk stays as it is. "+
					"To start from the new image, declare a new disk in a free slot with it and remove this one.",
					slot, had.ImportFrom.ValueString(), want.ImportFrom.ValueString()),
				Warning: true,
			})
		}
	}
	for _, slot := range slices.Sorted(maps.Keys(state.Disks)) {
		if _, kept := plan.Disks[slot]; kept {
			continue
		}
		had := state.Disks[slot]
		if target, moved := guestops.Lookalike(had.volume(), added); moved {
			issues = append(issues, guestops.MovedSlotIssue(diskPath(target, ""), guestops.DiskNoun, slot, target, had.volume()))
			continue
		}
		if _, nowCDROM := plan.CDROMs[slot]; nowCDROM {
			issues = append(issues, slotSwitchIssue(path.Root("cdroms").AtMapKey(slot), slot, "disk", "CD-ROM"))
			continue
		}
		issues = append(issues, guestops.DetachIssue(diskPath(slot, ""), guestops.DiskNoun, slot, had.volume(), plan.PurgeRemovedDisks))
	}
	return issues
}

func slotSwitchIssue(p path.Path, slot, from, to string) guestops.Issue {
	return guestops.Issue{
		Path:    p,
		Summary: "Slot Cannot Change Device Kind In One Step",
		Detail: fmt.Sprintf("Slot %s holds a %s and the configuration declares a %s there. Remove the %s in one apply, then declare the %s in the next, "+
			"or use a free slot.", slot, from, to, from, to),
	}
}
