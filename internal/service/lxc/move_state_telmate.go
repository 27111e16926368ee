package lxc

import (
	"regexp"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

// telmateIDPattern is Telmate's resource id, NODE/lxc/VMID.
var telmateIDPattern = regexp.MustCompile(`^[^/]+/lxc/(\d+)$`)

// containerFromTelmate translates a proxmox_lxc (Telmate/proxmox) state.
// Telmate keeps PVE's own names (cores, cpulimit, swap, hostname, onboot),
// rootfs and each mountpoint with a unit size ("8G"), and network blocks
// in slot order with the addresses inline, as PVE does (W38).
func containerFromTelmate(src guestops.SourceState) (containerTranslation, error) {
	vmid, ok := src.Positive("vmid")
	if id, hasID := src.Str("id"); !ok && hasID {
		if m := telmateIDPattern.FindStringSubmatch(id); m != nil {
			vmid, _ = strconv.ParseInt(m[1], 10, 64)
		}
	}
	node, ok := src.Str("current_node")
	if !ok {
		node, _ = src.Str("target_node")
	}
	m, err := newMovedContainer(vmid, node)
	if err != nil {
		return containerTranslation{}, err
	}
	m.Hostname = src.StringValue("hostname")
	m.Description = src.StringValue("description")
	if tags, ok := src.Str("tags"); ok {
		m.Tags = guestops.SourceTags(splitSourceList(tags))
	}
	m.Pool = src.StringValue("pool")
	m.OnBoot = src.OnFlag("onboot")
	m.Protection = src.OnFlag("protection")
	m.Unprivileged = src.BoolValue("unprivileged")
	// start only says whether Telmate started the container after creating
	// it; whether it runs now is read back by the refresh.
	m.Started = types.BoolNull()
	cpu := &cpuModel{Cores: src.PositiveValue("cores"), Units: src.PositiveValue("cpuunits"), Limit: src.PositiveFloatValue("cpulimit")}
	if !cpu.Cores.IsNull() || !cpu.Units.IsNull() || !cpu.Limit.IsNull() {
		m.CPU = cpu
	}
	swap := types.Int64Null()
	if v, ok := src.Integer("swap"); ok && v >= 0 {
		swap = types.Int64Value(v)
	}
	m.Memory = movedMemory(src.PositiveValue("memory"), swap)
	if root := src.Block("rootfs"); root != nil {
		if storage, ok := root.Str("storage"); ok {
			m.RootDisk = &rootDiskModel{Storage: types.StringValue(storage), Size: root.Size("size"), Volume: root.StringValue("volume")}
		}
	}
	m.MountPoints = telmateMountPoints(src)
	m.Network = telmateNetwork(src)
	if f := src.Block("features"); f != nil {
		var mounts []string
		if raw, ok := f.Str("mount"); ok {
			mounts = splitSourceList(raw)
		}
		m.Features = movedFeatures(f, mounts)
	}
	var servers []string
	if raw, ok := src.Str("nameserver"); ok {
		servers = splitSourceList(raw)
	}
	m.DNS = movedDNS(src.StringValue("searchdomain"), servers)
	m.Console = movedConsole(src.OffFlag("console"), src.StringUnless("cmode", "tty"), ttysUnlessDefault(src, "tty"))

	var dropped []string
	for _, key := range []string{"ostemplate", "password", "ssh_public_keys", "clone"} {
		if _, ok := src.Str(key); ok {
			dropped = append(dropped, key)
		}
	}
	return containerTranslation{Model: m, Dropped: dropped}, nil
}

// telmateMountPoints reads mountpoint blocks, whose slot (or key) is the N
// of mpN and whose storage is a storage, a volume id or a host path.
func telmateMountPoints(src guestops.SourceState) map[string]mountPointModel {
	var mounts map[string]mountPointModel
	for _, mp := range src.Blocks("mountpoint") {
		slot, hasSlot := mp.Integer("slot")
		if !hasSlot {
			slot, hasSlot = mp.Integer("key")
		}
		path, hasPath := mp.Str("mp")
		// volume names the allocated volume; storage is what the
		// configuration gave: a storage or a host path.
		volume, hasVolume := mp.Str("volume")
		if !hasVolume {
			volume, hasVolume = mp.Str("storage")
		}
		if !hasSlot || !hasPath || !hasVolume {
			continue
		}
		storage, hostPath := sourceMountTarget(volume)
		size := fwutil.SizeNull()
		if hostPath.IsNull() {
			size = mp.Size("size")
		}
		if mounts == nil {
			mounts = map[string]mountPointModel{}
		}
		mounts["mp"+strconv.FormatInt(slot, 10)] = mountPointModel{
			Storage:   storage,
			Size:      size,
			HostPath:  hostPath,
			Path:      types.StringValue(path),
			Backup:    mp.OnFlag("backup"),
			ReadOnly:  types.BoolNull(),
			ACL:       mp.OnFlag("acl"),
			Quota:     mp.OnFlag("quota"),
			Replicate: mp.OffFlag("replicate"),
			Shared:    mp.OnFlag("shared"),
			Volume:    types.StringNull(),
		}
	}
	return mounts
}

// telmateNetwork reads network blocks; the n-th block is netN.
func telmateNetwork(src guestops.SourceState) map[string]nicModel {
	var nics map[string]nicModel
	for i, n := range src.Blocks("network") {
		name, ok := n.Str("name")
		if !ok {
			continue
		}
		if nics == nil {
			nics = map[string]nicModel{}
		}
		nics["net"+strconv.Itoa(i)] = nicModel{
			Name:       types.StringValue(name),
			Bridge:     n.StringValue("bridge"),
			VLANTag:    n.PositiveValue("tag"),
			Firewall:   n.OnFlag("firewall"),
			MACAddress: n.StringValue("hwaddr"),
			MTU:        n.PositiveValue("mtu"),
			Rate:       n.PositiveFloatValue("rate"),
			IPv4:       movedAddress(n.StringValue("ip"), n.StringValue("gw")),
			IPv6:       movedAddress(n.StringValue("ip6"), n.StringValue("gw6")),
		}
	}
	return nics
}
