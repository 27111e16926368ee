package lxc

import (
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

// containerFromBPG translates a proxmox_virtual_environment_container
// (bpg/proxmox) state. bpg keeps the root disk as disk (size in whole
// GiB), mount points and network interfaces as lists whose position is the
// slot, and the addresses apart from the interfaces, in
// initialization.ip_config, position by position.
func containerFromBPG(src guestops.SourceState) (containerTranslation, error) {
	vmid, node, err := guestops.BPGIdentity(src, guestops.Container)
	if err != nil {
		return containerTranslation{}, err
	}
	m, err := newMovedContainer(vmid, node)
	if err != nil {
		return containerTranslation{}, err
	}
	m.Description = src.StringValue("description")
	m.Tags = guestops.SourceTags(src.Strings("tags"))
	m.Pool = src.StringValue("pool_id")
	m.OnBoot = src.OnFlag("start_on_boot")
	m.Protection = src.OnFlag("protection")
	m.Started = src.BoolValue("started")
	m.Unprivileged = src.BoolValue("unprivileged")
	if cpu := src.Block("cpu"); cpu != nil {
		m.CPU = &cpuModel{Cores: cpu.PositiveValue("cores"), Units: cpu.PositiveValue("units"), Limit: cpu.PositiveFloatValue("limit")}
	}
	if mem := src.Block("memory"); mem != nil {
		swap := types.Int64Null()
		if v, ok := mem.Integer("swap"); ok && v >= 0 {
			swap = types.Int64Value(v)
		}
		m.Memory = movedMemory(mem.PositiveValue("dedicated"), swap)
	}
	if disk := src.Block("disk"); disk != nil {
		if storage, ok := disk.Str("datastore_id"); ok {
			m.RootDisk = &rootDiskModel{Storage: types.StringValue(storage), Size: disk.Size("size"), Volume: types.StringNull()}
		}
	}
	m.MountPoints = bpgMountPoints(src)
	if f := src.Block("features"); f != nil {
		m.Features = movedFeatures(f, f.Strings("mount"))
	}
	if c := src.Block("console"); c != nil {
		m.Console = movedConsole(c.OffFlag("enabled"), c.StringUnless("type", "tty"), ttysUnlessDefault(c, "tty_count"))
	}

	var dropped []string
	initialization := src.Block("initialization")
	if initialization != nil {
		m.Hostname = initialization.StringValue("hostname")
		if d := initialization.Block("dns"); d != nil {
			servers := d.Strings("servers")
			if server, ok := d.Str("server"); ok && len(servers) == 0 {
				servers = splitSourceList(server)
			}
			m.DNS = movedDNS(d.StringValue("domain"), servers)
		}
		if user := initialization.Block("user_account"); user != nil {
			if _, ok := user.Str("password"); ok {
				dropped = append(dropped, "initialization.user_account.password")
			}
			if len(user.Strings("keys")) > 0 {
				dropped = append(dropped, "initialization.user_account.keys")
			}
		}
	}
	m.Network = bpgNetwork(src, initialization)
	if os := src.Block("operating_system"); os != nil {
		if _, ok := os.Str("template_file_id"); ok {
			dropped = append(dropped, "operating_system.template_file_id")
		}
	}
	if src.Block("clone") != nil {
		dropped = append(dropped, "clone")
	}
	return containerTranslation{Model: m, Dropped: dropped}, nil
}

// bpgMountPoints reads mount_point blocks; the n-th block is mpN. volume is
// a storage (a new volume), a volume id, or a host path (a bind mount).
func bpgMountPoints(src guestops.SourceState) map[string]mountPointModel {
	var mounts map[string]mountPointModel
	for i, mp := range src.Blocks("mount_point") {
		volume, ok := mp.Str("volume")
		path, hasPath := mp.Str("path")
		if !ok || !hasPath {
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
		mounts["mp"+strconv.Itoa(i)] = mountPointModel{
			Storage:   storage,
			Size:      size,
			HostPath:  hostPath,
			Path:      types.StringValue(path),
			Backup:    mp.OnFlag("backup"),
			ReadOnly:  mp.OnFlag("read_only"),
			ACL:       mp.OnFlag("acl"),
			Quota:     mp.OnFlag("quota"),
			Replicate: mp.OffFlag("replicate"),
			Shared:    mp.OnFlag("shared"),
			Volume:    types.StringNull(),
		}
	}
	return mounts
}

// bpgNetwork reads network_interface blocks with the addresses of the
// ip_config block at the same position.
func bpgNetwork(src, initialization guestops.SourceState) map[string]nicModel {
	var ipConfigs []guestops.SourceState
	if initialization != nil {
		ipConfigs = initialization.Blocks("ip_config")
	}
	var nics map[string]nicModel
	for i, n := range src.Blocks("network_interface") {
		name, ok := n.Str("name")
		if !ok {
			continue
		}
		if enabled, set := n.Boolean("enabled"); set && !enabled {
			continue
		}
		nic := nicModel{
			Name:       types.StringValue(name),
			Bridge:     n.StringValue("bridge"),
			VLANTag:    n.PositiveValue("vlan_id"),
			Firewall:   n.OnFlag("firewall"),
			MACAddress: n.StringValue("mac_address"),
			MTU:        n.PositiveValue("mtu"),
			Rate:       n.PositiveFloatValue("rate_limit"),
		}
		if i < len(ipConfigs) {
			if v4 := ipConfigs[i].Block("ipv4"); v4 != nil {
				nic.IPv4 = movedAddress(v4.StringValue("address"), v4.StringValue("gateway"))
			}
			if v6 := ipConfigs[i].Block("ipv6"); v6 != nil {
				nic.IPv6 = movedAddress(v6.StringValue("address"), v6.StringValue("gateway"))
			}
		}
		if nics == nil {
			nics = map[string]nicModel{}
		}
		nics["net"+strconv.Itoa(i)] = nic
	}
	return nics
}
