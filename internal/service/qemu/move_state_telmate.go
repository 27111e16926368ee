package qemu

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// telmateIDPattern is Telmate's resource id, NODE/qemu/VMID (lxc for
// containers).
var telmateIDPattern = regexp.MustCompile(`^[^/]+/(?:qemu|lxc)/(\d+)$`)

// telmateIdentity reads vmid and node from a Telmate/proxmox state. The
// node the guest was last seen on (current_node) wins over the one the
// configuration asked for: a guest migrated by HA is found where it is.
func telmateIdentity(src guestops.SourceState) (int64, string) {
	vmid, ok := src.Positive("vmid")
	if id, hasID := src.Str("id"); !ok && hasID {
		if m := telmateIDPattern.FindStringSubmatch(id); m != nil {
			vmid, _ = strconv.ParseInt(m[1], 10, 64)
		}
	}
	for _, key := range []string{"current_node", "target_node"} {
		if node, ok := src.Str(key); ok {
			return vmid, node
		}
	}
	if nodes := src.Strings("target_nodes"); len(nodes) == 1 {
		return vmid, nodes[0]
	}
	return vmid, ""
}

// vmFromTelmate translates a proxmox_vm_qemu (Telmate/proxmox) state, of
// the 3.x schema (disks nested by bus and slot, a cpu block, network
// blocks with an id) or of the 2.x one (a disk list, cores and sockets at
// the top). Cloud-init values are PVE's own keys (ciuser, sshkeys,
// ipconfigN), read with the same code as a refresh.
func vmFromTelmate(src guestops.SourceState) (vmTranslation, error) {
	vmid, node := telmateIdentity(src)
	m, err := newMovedVM(vmid, node)
	if err != nil {
		return vmTranslation{}, err
	}
	m.Name = src.StringValue("name")
	m.Description = src.StringValue("description")
	if m.Description.IsNull() {
		m.Description = src.StringValue("desc")
	}
	if tags, ok := src.Str("tags"); ok {
		m.Tags = guestops.SourceTags(guestops.SplitSourceTags(tags))
	}
	m.Pool = src.StringValue("pool")
	m.OnBoot = src.OnFlag("onboot")
	m.Protection = src.OnFlag("protection")
	m.BIOS = src.StringValue("bios")
	m.Machine = src.StringValue("machine")
	m.OSType = src.StringValue("qemu_os")
	m.SCSIHardware = src.StringValue("scsihw")
	switch state, _ := src.Str("vm_state"); state {
	case "running":
		m.Started = types.BoolValue(true)
	case "stopped":
		m.Started = types.BoolValue(false)
	}
	if boot, ok := src.Str("boot"); ok {
		if order, err := bootOrderFromAPI(pveapi.GuestConfig{keyBoot: boot}); err == nil {
			m.BootOrder = order
		}
	}
	if agent, ok := src.Integer("agent"); ok {
		m.Agent = newMovedAgent(agent != 0)
	} else if agent := src.Block("agent"); agent != nil {
		enabled, _ := agent.Boolean("enabled")
		m.Agent = newMovedAgent(enabled)
		m.Agent.Trim = agent.BoolValue("trim")
		m.Agent.Type = agent.StringValue("type")
	}
	m.CPU = telmateCPU(src)
	if size, ok := src.Positive("memory"); ok {
		m.Memory = &memoryModel{Size: types.Int64Value(size), Balloon: src.PositiveValue("balloon")}
	}
	m.Network = telmateNetwork(src)

	devices := telmateDrives(src)
	m.Disks, m.CDROMs = devices.disks, devices.cdroms

	var dropped []string
	for _, key := range []string{"clone", "cipassword", "cicustom"} {
		if _, ok := src.Str(key); ok {
			dropped = append(dropped, key)
		}
	}
	if m.CloudInit, err = telmateCloudInit(src, devices); err != nil {
		return vmTranslation{}, err
	}
	return vmTranslation{Model: m, Dropped: dropped}, nil
}

// telmateCPU reads the 3.x cpu block, or 2.x's top-level cores, sockets
// and cpu (a CPU model name then).
func telmateCPU(src guestops.SourceState) *cpuModel {
	if cpu := src.Block("cpu"); cpu != nil {
		return &cpuModel{
			Cores:   cpu.PositiveValue("cores"),
			Sockets: cpu.PositiveValue("sockets"),
			Type:    cpu.StringValue("type"),
			Units:   cpu.PositiveValue("units"),
			Limit:   cpu.PositiveFloatValue("limit"),
			NUMA:    cpu.OnFlag("numa"),
		}
	}
	cpu := &cpuModel{
		Cores:   src.PositiveValue("cores"),
		Sockets: src.PositiveValue("sockets"),
		Type:    src.StringValue("cpu_type"),
		Units:   types.Int64Null(),
		Limit:   types.Float64Null(),
		NUMA:    src.OnFlag("numa"),
	}
	if cpu.Type.IsNull() {
		cpu.Type = src.StringValue("cpu")
	}
	if cpu.Cores.IsNull() && cpu.Sockets.IsNull() && cpu.Type.IsNull() {
		return nil
	}
	return cpu
}

// telmateNetwork reads network blocks: 3.x names the slot in id, 2.x by
// position.
func telmateNetwork(src guestops.SourceState) map[string]nicModel {
	var nics map[string]nicModel
	for i, n := range src.Blocks("network") {
		id := int64(i)
		if v, ok := n.Integer("id"); ok && v >= 0 {
			id = v
		}
		if nics == nil {
			nics = map[string]nicModel{}
		}
		nics["net"+strconv.FormatInt(id, 10)] = nicModel{
			Model:      sourceNICModel(n, "model"),
			Bridge:     n.StringValue("bridge"),
			MACAddress: n.StringValue("macaddr"),
			VLANTag:    n.PositiveValue("tag"),
			Firewall:   n.OnFlag("firewall"),
			LinkDown:   n.OnFlag("link_down"),
			MTU:        n.PositiveValue("mtu"),
			Rate:       n.PositiveFloatValue("rate"),
			Queues:     n.PositiveValue("queues"),
		}
	}
	return nics
}

// telmateDevices are the drives of a Telmate state sorted by kind.
type telmateDevices struct {
	disks           map[string]diskModel
	cdroms          map[string]cdromModel
	cloudInitSlot   string
	cloudInitDevice string
}

var telmateBuses = []string{"ide", "sata", "scsi", "virtio"}

// telmateDrives reads 3.x's disks block (bus, slot, then one of disk,
// cdrom, cloudinit, passthrough) and the flat disk list (3.x with slot
// and type, 2.x with type as the bus and a numeric slot).
func telmateDrives(src guestops.SourceState) telmateDevices {
	var out telmateDevices
	if disks := src.Block("disks"); disks != nil {
		for _, bus := range telmateBuses {
			slots := disks.Block(bus)
			for slot := range slots {
				drive := slots.Block(slot)
				if drive == nil {
					continue
				}
				switch {
				case drive.Block("disk") != nil:
					out.addDisk(slot, drive.Block("disk"))
				case drive.Block("cdrom") != nil:
					out.addCDROM(slot, drive.Block("cdrom"))
				case drive.Block("cloudinit") != nil:
					out.cloudInitSlot = slot
					out.cloudInitDevice, _ = drive.Block("cloudinit").Str("storage")
				}
			}
		}
	}
	for _, d := range src.Blocks("disk") {
		slot, _ := d.Str("slot")
		kind, _ := d.Str("type")
		if legacySlot := slotFromLegacy(kind, d); legacySlot != "" {
			slot, kind = legacySlot, "disk"
		}
		switch kind {
		case "disk":
			out.addDisk(slot, d)
		case "cdrom":
			out.addCDROM(slot, d)
		case "cloudinit":
			out.cloudInitSlot = slot
			out.cloudInitDevice, _ = d.Str("storage")
		}
	}
	return out
}

// slotFromLegacy is the slot of a 2.x disk, whose type is the bus and
// whose slot a number; "" for a 3.x disk.
func slotFromLegacy(kind string, d guestops.SourceState) string {
	for _, bus := range telmateBuses {
		if kind == bus {
			if n, ok := d.Integer("slot"); ok {
				return bus + strconv.FormatInt(n, 10)
			}
		}
	}
	return ""
}

func (t *telmateDevices) addDisk(slot string, d guestops.SourceState) {
	storage, ok := d.Str("storage")
	if !wire.IsDataDiskSlot(slot) || !ok {
		return
	}
	if t.disks == nil {
		t.disks = map[string]diskModel{}
	}
	ssd := d.OnFlag("emulatessd")
	if ssd.IsNull() {
		ssd = d.OnFlag("ssd")
	}
	t.disks[slot] = diskModel{
		Storage:    types.StringValue(storage),
		Size:       d.Size("size"),
		Volume:     types.StringNull(),
		Discard:    d.OnFlag("discard"),
		SSD:        ssd,
		IOThread:   d.OnFlag("iothread"),
		Backup:     d.OffFlag("backup"),
		Replicate:  d.OffFlag("replicate"),
		Cache:      d.StringUnless("cache", "none"),
		AIO:        d.StringUnless("asyncio", "io_uring"),
		ImportFrom: types.StringNull(),
	}
}

func (t *telmateDevices) addCDROM(slot string, d guestops.SourceState) {
	if !wire.IsCDROMSlot(slot) {
		return
	}
	file := "none"
	if iso, ok := d.Str("iso"); ok {
		file = iso
	} else if passthrough, _ := d.Boolean("passthrough"); passthrough {
		file = "cdrom"
	}
	if t.cdroms == nil {
		t.cdroms = map[string]cdromModel{}
	}
	t.cdroms[slot] = cdromModel{File: types.StringValue(file)}
}

// telmateCloudInit reads ciuser, sshkeys (one key a line), nameserver,
// searchdomain, ciupgrade and ipconfig0..ipconfig15, with the drive from
// the disks. cipassword is never copied (W31).
func telmateCloudInit(src guestops.SourceState, devices telmateDevices) (*cloudInitModel, error) {
	config := pveapi.GuestConfig{}
	for key, value := range src {
		text, ok := value.(string)
		if ok && text != "" && (wire.IsIPConfigSlot(key) || key == keyNameserver || key == keySearchDomain) {
			config[key] = text
		}
	}
	ci := newMovedCloudInit()
	ci.User = src.StringValue("ciuser")
	ci.Upgrade = src.BoolValue("ciupgrade")
	if keys, ok := src.Str("sshkeys"); ok {
		var lines []string
		for _, line := range strings.Split(keys, "\n") {
			if line = strings.TrimSpace(line); line != "" {
				lines = append(lines, line)
			}
		}
		ci.SSHKeys = sourceList(lines)
	}
	ci.DNS = dnsFromAPI(config)
	var err error
	if ci.IPConfig, err = ipConfigFromAPI(config); err != nil {
		return nil, fmt.Errorf("cloud-init: %w", err)
	}
	if devices.cloudInitDevice != "" {
		ci.Storage = types.StringValue(devices.cloudInitDevice)
		ci.Slot = types.StringValue(devices.cloudInitSlot)
	}
	if ci.isEmpty() {
		return nil, nil
	}
	return ci, nil
}
