package qemu

import (
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"

	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// planIssue is a plan-time finding about an attribute: an error that stops
// the plan, or a warning the plan shows.
type planIssue struct {
	path    path.Path
	summary string
	detail  string
	warning bool
}

func (i planIssue) String() string {
	kind := "error"
	if i.warning {
		kind = "warning"
	}
	return fmt.Sprintf("%s at %s: %s: %s", kind, i.path, i.summary, i.detail)
}

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
func checkConfig(m *vmModel) []planIssue {
	var issues []planIssue
	for _, slot := range slices.Sorted(maps.Keys(m.Disks)) {
		disk := m.Disks[slot]
		bus, _, _ := wire.DiskSlot(slot)
		if known(disk.SSD) && disk.SSD.ValueBool() && (bus == "virtio") {
			issues = append(issues, planIssue{
				path:    diskPath(slot, "ssd"),
				summary: "SSD Emulation Not Supported On This Bus",
				detail: fmt.Sprintf("Disk %s is on the %s bus, which has no ssd option (W26): PVE accepts ssd only on scsi, sata and ide. "+
					"Remove ssd from this disk, or declare it on a scsi or sata slot.", slot, bus),
			})
		}
		if known(disk.IOThread) && disk.IOThread.ValueBool() && (bus == "sata" || bus == "ide") {
			issues = append(issues, planIssue{
				path:    diskPath(slot, "iothread"),
				summary: "IO Thread Not Supported On This Bus",
				detail: fmt.Sprintf("Disk %s is on the %s bus; iothread applies only to virtio and scsi disks (W26). "+
					"Remove iothread from this disk, or declare it on a virtio or scsi slot (on scsi together with scsi_hardware = \"virtio-scsi-single\").", slot, bus),
			})
		}
		if disk.Size.IsNull() && disk.ImportFrom.IsNull() {
			issues = append(issues, planIssue{
				path:    diskPath(slot, "size"),
				summary: "Disk Size Required",
				detail:  fmt.Sprintf("Disk %s needs a size (GiB, or with a unit: \"512M\"), or import_from to seed it from an image.", slot),
			})
		}
		if _, both := m.CDROMs[slot]; both {
			issues = append(issues, planIssue{
				path:    path.Root("cdroms").AtMapKey(slot),
				summary: "Slot Used Twice",
				detail:  fmt.Sprintf("Slot %s is declared both in disks and in cdroms. Each drive slot holds one device: pick another slot for one of them.", slot),
			})
		}
	}
	if m.CPU != nil && allNull(m.CPU.Cores, m.CPU.Sockets, m.CPU.Type, m.CPU.Units, m.CPU.Limit, m.CPU.NUMA) {
		issues = append(issues, planIssue{path: path.Root("cpu"), summary: "Empty CPU Settings",
			detail: "cpu sets none of its attributes. Set at least one, or leave cpu out to keep PVE's defaults."})
	}
	if m.Memory != nil && allNull(m.Memory.Size, m.Memory.Balloon) {
		issues = append(issues, planIssue{path: path.Root("memory"), summary: "Empty Memory Settings",
			detail: "memory sets neither size nor balloon. Set at least one, or leave memory out to keep PVE's defaults."})
	}
	return issues
}

// checkPlan is the data-loss guard: it compares the planned disks with the
// disks in state and refuses what would lose data or silently make a new
// volume. Removing a disk is allowed, with a warning that says where its
// data goes.
func checkPlan(state, plan *vmModel) []planIssue {
	var issues []planIssue
	added := map[string]diskModel{}
	for slot, disk := range plan.Disks {
		if _, existed := state.Disks[slot]; !existed {
			added[slot] = disk
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
		wantBytes, okWant := want.Size.Bytes()
		hadBytes, okHad := had.Size.Bytes()
		if okWant && okHad && wantBytes < hadBytes {
			issues = append(issues, planIssue{
				path:    diskPath(slot, "size"),
				summary: "Disk Cannot Shrink",
				detail: fmt.Sprintf("Disk %s is %s; the configuration asks for %s. PVE can only grow a disk (W22), and a new, smaller volume would lose the data. "+
					"Set size to %s or more. To really start over with a smaller disk, add it in a new slot, copy the data, then remove the old one.",
					slot, humanSize(had.Size), humanSize(want.Size), humanSize(had.Size)),
			})
		}
		if known(had.ImportFrom) && known(want.ImportFrom) && had.ImportFrom.ValueString() != want.ImportFrom.ValueString() {
			issues = append(issues, planIssue{
				path:    diskPath(slot, "import_from"),
				summary: "Image Of A Live Disk Cannot Change",
				detail: fmt.Sprintf("Disk %s was seeded from %s and holds data now. Importing %s would need a new volume and lose that data. "+
					"Keep import_from as it is, or declare a new disk in a free slot with the new image and remove this one.",
					slot, had.ImportFrom.ValueString(), want.ImportFrom.ValueString()),
			})
		}
	}
	for _, slot := range slices.Sorted(maps.Keys(state.Disks)) {
		if _, kept := plan.Disks[slot]; kept {
			continue
		}
		had := state.Disks[slot]
		if target, moved := lookalike(had, added); moved {
			issues = append(issues, planIssue{
				path:    diskPath(target, ""),
				summary: "Disk Cannot Move Between Slots",
				detail: fmt.Sprintf("Disk %s (%s on %s) disappears from the configuration while a disk of the same storage and size appears in %s. "+
					"PVE cannot move a live disk to another slot or bus: the plan would detach %s and allocate a new, empty volume in %s. "+
					"Keep the disk in %s. If a new empty disk is really wanted, add it first, apply, then remove %s.",
					slot, humanSize(had.Size), had.Storage.ValueString(), target, slot, target, slot, slot),
			})
			continue
		}
		if _, nowCDROM := plan.CDROMs[slot]; nowCDROM {
			issues = append(issues, slotSwitchIssue(path.Root("cdroms").AtMapKey(slot), slot, "disk", "CD-ROM"))
			continue
		}
		detail := fmt.Sprintf("Disk %s (volume %s) is no longer declared. It will be detached and kept by PVE as an unusedN entry with its data (W24); "+
			"nothing is deleted. Set purge_removed_disks = true to destroy detached volumes instead.", slot, had.Volume.ValueString())
		if known(plan.PurgeRemovedDisks) && plan.PurgeRemovedDisks.ValueBool() {
			detail = fmt.Sprintf("Disk %s (volume %s) is no longer declared and purge_removed_disks = true: it will be detached and its volume DESTROYED with all its data.",
				slot, had.Volume.ValueString())
		}
		issues = append(issues, planIssue{path: diskPath(slot, ""), summary: "Disk Will Be Detached", detail: detail, warning: true})
	}
	return issues
}

// lookalike finds a newly added disk with the same storage and size as a
// removed one: the shape of a disk moved to another slot.
func lookalike(removed diskModel, added map[string]diskModel) (string, bool) {
	removedBytes, ok := removed.Size.Bytes()
	if !ok {
		return "", false
	}
	for _, slot := range slices.Sorted(maps.Keys(added)) {
		disk := added[slot]
		bytes, ok := disk.Size.Bytes()
		if ok && bytes == removedBytes && disk.Storage.Equal(removed.Storage) {
			return slot, true
		}
	}
	return "", false
}

func slotSwitchIssue(p path.Path, slot, from, to string) planIssue {
	return planIssue{
		path:    p,
		summary: "Slot Cannot Change Device Kind In One Step",
		detail: fmt.Sprintf("Slot %s holds a %s and the configuration declares a %s there. Remove the %s in one apply, then declare the %s in the next, "+
			"or use a free slot.", slot, from, to, from, to),
	}
}

func allNull(values ...interface{ IsNull() bool }) bool {
	for _, v := range values {
		if !v.IsNull() {
			return false
		}
	}
	return true
}

// humanSize renders a disk size for messages: "32 GiB", "2252M".
func humanSize(v fwutil.SizeValue) string {
	bytes, ok := v.Bytes()
	if !ok {
		return v.ValueString()
	}
	if bytes%wire.GiB == 0 {
		return fmt.Sprintf("%d GiB", bytes/wire.GiB)
	}
	return wire.FormatSize(bytes)
}
