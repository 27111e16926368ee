package qemu

import (
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// vmFromBPG translates a proxmox_virtual_environment_vm (bpg/proxmox)
// state. bpg keeps devices as lists of blocks: disks name their slot in
// `interface`, network devices and ip configs take their slot from their
// position, sizes are whole GiB.
func vmFromBPG(src guestops.SourceState) (vmTranslation, error) {
	vmid, node, err := guestops.BPGIdentity(src, guestops.VM)
	if err != nil {
		return vmTranslation{}, err
	}
	m, err := newMovedVM(vmid, node)
	if err != nil {
		return vmTranslation{}, err
	}
	m.Name = src.StringValue("name")
	m.Description = src.StringValue("description")
	m.Tags = guestops.SourceTags(src.Strings("tags"))
	m.Pool = src.StringValue("pool_id")
	m.OnBoot = src.OnFlag("on_boot")
	m.Protection = src.OnFlag("protection")
	m.Started = src.BoolValue("started")
	m.BIOS = src.StringValue("bios")
	m.Machine = src.StringValue("machine")
	m.SCSIHardware = src.StringValue("scsi_hardware")
	m.BootOrder = sourceList(src.Strings("boot_order"))
	if os := src.Block("operating_system"); os != nil {
		m.OSType = os.StringValue("type")
	}
	if cpu := src.Block("cpu"); cpu != nil {
		m.CPU = &cpuModel{
			Cores:   cpu.PositiveValue("cores"),
			Sockets: cpu.PositiveValue("sockets"),
			Type:    cpu.StringValue("type"),
			Units:   cpu.PositiveValue("units"),
			Limit:   cpu.PositiveFloatValue("limit"),
			NUMA:    cpu.OnFlag("numa"),
		}
	}
	if mem := src.Block("memory"); mem != nil {
		// floating is bpg's name for the balloon target.
		m.Memory = &memoryModel{Size: mem.PositiveValue("dedicated"), Balloon: mem.PositiveValue("floating")}
	}
	if agent := src.Block("agent"); agent != nil {
		enabled, _ := agent.Boolean("enabled")
		m.Agent = newMovedAgent(enabled)
		m.Agent.Trim = agent.BoolValue("trim")
		m.Agent.Type = agent.StringValue("type")
	}
	m.Disks = bpgDisks(src)
	m.CDROMs = bpgCDROMs(src)
	m.Network = bpgNetwork(src)
	m.EFIDisk, m.TPMState = bpgFirmwareDisks(src)

	var dropped []string
	if src.Block("clone") != nil {
		dropped = append(dropped, "clone")
	}
	m.CloudInit, dropped = bpgCloudInit(src, dropped)
	return vmTranslation{Model: m, Dropped: dropped}, nil
}

func bpgDisks(src guestops.SourceState) map[string]diskModel {
	var disks map[string]diskModel
	for _, d := range src.Blocks("disk") {
		slot, _ := d.Str("interface")
		storage, hasStorage := d.Str("datastore_id")
		if !wire.IsDataDiskSlot(slot) || !hasStorage {
			continue
		}
		if disks == nil {
			disks = map[string]diskModel{}
		}
		disks[slot] = diskModel{
			Storage:   types.StringValue(storage),
			Size:      sourceGiB(d, "size"),
			Volume:    types.StringNull(),
			Discard:   d.OnFlag("discard"),
			SSD:       d.OnFlag("ssd"),
			IOThread:  d.OnFlag("iothread"),
			Backup:    d.OffFlag("backup"),
			Replicate: d.OffFlag("replicate"),
			Cache:     d.StringUnless("cache", "none"),
			AIO:       d.StringUnless("aio", "io_uring"),
			// Create-time only (W25): PVE cannot report it, so it stays
			// null as after an import and never forces a change.
			ImportFrom: types.StringNull(),
		}
	}
	return disks
}

// bpgCDROMs reads the cdrom blocks (one in older versions, one per slot
// in newer ones): an empty file_id is the host's drive.
func bpgCDROMs(src guestops.SourceState) map[string]cdromModel {
	var cdroms map[string]cdromModel
	for _, cd := range src.Blocks("cdrom") {
		if enabled, set := cd.Boolean("enabled"); set && !enabled {
			continue
		}
		slot, ok := cd.Str("interface")
		if !ok || !wire.IsCDROMSlot(slot) {
			continue
		}
		file, ok := cd.Str("file_id")
		if !ok {
			file = "cdrom"
		}
		if cdroms == nil {
			cdroms = map[string]cdromModel{}
		}
		cdroms[slot] = cdromModel{File: types.StringValue(file)}
	}
	return cdroms
}

// bpgNetwork reads network_device blocks; the n-th block is netN.
func bpgNetwork(src guestops.SourceState) map[string]nicModel {
	var nics map[string]nicModel
	for i, n := range src.Blocks("network_device") {
		if enabled, set := n.Boolean("enabled"); set && !enabled {
			continue
		}
		if nics == nil {
			nics = map[string]nicModel{}
		}
		nics["net"+strconv.Itoa(i)] = nicModel{
			Model:      sourceNICModel(n, "model"),
			Bridge:     n.StringValue("bridge"),
			MACAddress: n.StringValue("mac_address"),
			VLANTag:    n.PositiveValue("vlan_id"),
			Firewall:   n.OnFlag("firewall"),
			LinkDown:   n.OnFlag("disconnected"),
			MTU:        n.PositiveValue("mtu"),
			Rate:       n.PositiveFloatValue("rate_limit"),
			Queues:     n.PositiveValue("queues"),
		}
	}
	return nics
}

func bpgFirmwareDisks(src guestops.SourceState) (*efiDiskModel, *tpmStateModel) {
	var efi *efiDiskModel
	if e := src.Block("efi_disk"); e != nil {
		if storage, ok := e.Str("datastore_id"); ok {
			efi = &efiDiskModel{
				Storage:         types.StringValue(storage),
				Type:            e.StringValue("type"),
				PreEnrolledKeys: e.BoolValue("pre_enrolled_keys"),
				Volume:          types.StringNull(),
			}
		}
	}
	var tpm *tpmStateModel
	if t := src.Block("tpm_state"); t != nil {
		if storage, ok := t.Str("datastore_id"); ok {
			tpm = &tpmStateModel{Storage: types.StringValue(storage), Version: t.StringValue("version"), Volume: types.StringNull()}
		}
	}
	return efi, tpm
}

// bpgCloudInit reads the initialization block. The password is never
// copied (W31): cloud_init.password_wo is write-only.
func bpgCloudInit(src guestops.SourceState, dropped []string) (*cloudInitModel, []string) {
	initialization := src.Block("initialization")
	if initialization == nil {
		return nil, dropped
	}
	ci := newMovedCloudInit()
	ci.Storage = initialization.StringValue("datastore_id")
	ci.Upgrade = initialization.BoolValue("upgrade")
	if slot, ok := initialization.Str("interface"); ok {
		ci.Slot = types.StringValue(slot)
	}
	if user := initialization.Block("user_account"); user != nil {
		ci.User = user.StringValue("username")
		ci.SSHKeys = sourceList(user.Strings("keys"))
		if _, ok := user.Str("password"); ok {
			dropped = append(dropped, "initialization.user_account.password")
		}
	}
	if dns := initialization.Block("dns"); dns != nil {
		servers := dns.Strings("servers")
		if server, ok := dns.Str("server"); ok && len(servers) == 0 {
			servers = splitAddressList(server)
		}
		if domain := dns.StringValue("domain"); !domain.IsNull() || len(servers) > 0 {
			ci.DNS = &cloudInitDNSModel{Domain: domain, Servers: sourceList(servers)}
		}
	}
	for i, ipc := range initialization.Blocks("ip_config") {
		cfg := ipConfigModel{IPv4: bpgAddress(ipc.Block("ipv4")), IPv6: bpgAddress(ipc.Block("ipv6"))}
		if cfg.IPv4 == nil && cfg.IPv6 == nil {
			continue
		}
		if ci.IPConfig == nil {
			ci.IPConfig = map[string]ipConfigModel{}
		}
		ci.IPConfig["ipconfig"+strconv.Itoa(i)] = cfg
	}
	for _, key := range []string{"user_data_file_id", "vendor_data_file_id", "network_data_file_id", "meta_data_file_id"} {
		if _, ok := initialization.Str(key); ok {
			dropped = append(dropped, "initialization."+key)
		}
	}
	if ci.isEmpty() {
		return nil, dropped
	}
	return ci, dropped
}

func bpgAddress(block guestops.SourceState) *ipAddressModel {
	if block == nil {
		return nil
	}
	addr := &ipAddressModel{Address: block.StringValue("address"), Gateway: block.StringValue("gateway")}
	if addr.Address.IsNull() && addr.Gateway.IsNull() {
		return nil
	}
	return addr
}
