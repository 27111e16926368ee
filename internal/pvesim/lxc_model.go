package pvesim

import (
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
)

// The container's config file as pve-container keeps it (PVE::LXC::Config):
// mount points and NICs printed with print_property_string, the
// [pve:pending] section, the unusedN bookkeeping.

const (
	// defaultCTMemoryMiB and defaultCTSwapMiB are what create writes when
	// the request has none.
	defaultCTMemoryMiB = 512
	defaultCTSwapMiB   = 512
	// defaultCTRootGiB is the rootfs create_vm allocates when the request
	// has no rootfs ("$storage:4").
	defaultCTRootGiB = 4
	// bridgeMTU is the MTU every simulated bridge has.
	bridgeMTU = 1500
)

// lxcControlParams are parameters of the config update that are not config
// keys.
var lxcControlParams = map[string]bool{
	"node": true, "vmid": true, "digest": true, "delete": true, "revert": true,
}

// lxcOptionExists is PVE::LXC::Config->option_exists: a key of $confdesc.
func (cs *guestSchema) lxcOptionExists(key string) bool {
	if lxcControlParams[key] {
		return false
	}
	_, ok := cs.lxc.Param(key)
	return ok
}

// lxcTypedValue is how a container config value reaches the JSON answer:
// parse_pct_config's check_type makes booleans and integers Perl numbers;
// a "number" (cpulimit) passes its regex unchanged and stays a string (W5).
func (cs *guestSchema) lxcTypedValue(key, v string) any {
	info, ok := cs.lxc.Param(key)
	if !ok {
		return v
	}
	if info.Type == "integer" || info.Type == "boolean" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return n
		}
	}
	return v
}

// newDiskRE is pve-container's $NEW_DISK_RE: "STORAGE:SIZE_GiB".
var newDiskRE = regexp.MustCompile(`^([^:\s]+):(\d+(\.\d+)?)$`)

// isMountKey tells rootfs and mp0..mp255 apart from other keys.
func isMountKey(key string) bool {
	if key == "rootfs" {
		return true
	}
	_, ok := pvegrammar.LXCMountPointIndex(key)
	return ok
}

// mountPoint is a parsed rootfs, mpN or unusedN value: the schema's keys,
// "volume" holding the volume id, host path or device.
type mountPoint map[string]string

// parseMountPoint is parse_volume: the property string of the key's format;
// rootfs is mounted at "/".
// pve-container src/PVE/LXC/Config.pm parse_volume (pve-common
// src/PVE/JSONSchema.pm parse_property_string words the errors).
func (cs *guestSchema) parseMountPoint(key, value string) (mountPoint, error) {
	props, msg := cs.lxc.PropertyString(key, value)
	if msg != "" {
		return nil, errorf("%s", strings.TrimSuffix(msg, "\n"))
	}
	if key == "rootfs" {
		props["mp"] = "/"
	}
	return mountPoint(props), nil
}

func (m mountPoint) volume() string { return m["volume"] }

// kind is classify_mountpoint: a host path under /dev/ is a device, any
// other host path a bind mount, anything else a storage volume.
func (m mountPoint) kind() string {
	v := m.volume()
	switch {
	case strings.HasPrefix(v, "/dev/"):
		return "device"
	case strings.HasPrefix(v, "/"):
		return "bind"
	}
	return "volume"
}

func (m mountPoint) isVolume() bool { return m.kind() == "volume" }

// print is print_ct_mountpoint: the volume first, then mp (not for
// rootfs), then the other keys sorted, the size in PVE's unit form.
// pve-container src/PVE/LXC/Config.pm print_ct_mountpoint
func (m mountPoint) print(key string) string {
	parts := []string{m.volume()}
	if key != "rootfs" && m["mp"] != "" {
		parts = append(parts, "mp="+m["mp"])
	}
	for _, k := range sortedKeys(m) {
		if k == "volume" || k == "mp" {
			continue
		}
		v := m[k]
		if k == "size" {
			if n, ok := pvegrammar.ParseSize(v); ok {
				v = pvegrammar.FormatSize(n)
			}
		}
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, ",")
}

// sizeBytes is the mount point's size= in bytes, 0 without one.
func (m mountPoint) sizeBytes() int64 {
	n, ok := pvegrammar.ParseSize(m["size"])
	if !ok {
		return 0
	}
	return n
}

// mountKeys lists the rootfs and mpN keys of a config in PVE's order
// (valid_volume_keys).
func mountKeys[V any](cfg map[string]V) []string {
	var out []string
	for k := range cfg {
		if isMountKey(k) {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool { return mountOrder(out[i]) < mountOrder(out[j]) })
	return out
}

func mountOrder(key string) int {
	if key == "rootfs" {
		return -1
	}
	i, _ := pvegrammar.LXCMountPointIndex(key)
	return i
}

// ctVolumeKeys lists the keys that may hold a volume: rootfs, mpN, then
// unusedN (foreach_volume_full with include_unused).
func ctVolumeKeys(cfg map[string]string) []string {
	out := mountKeys(cfg)
	for _, k := range sortedKeys(cfg) {
		if pvegrammar.IsLXCUnusedKey(k) {
			out = append(out, k)
		}
	}
	return out
}

// ctVolumes is get_vm_volumes: the storage volumes the current mount
// points use.
func (cs *guestSchema) ctVolumes(cfg map[string]string) map[string]bool {
	out := map[string]bool{}
	for _, k := range mountKeys(cfg) {
		if m, err := cs.parseMountPoint(k, cfg[k]); err == nil && m.isVolume() && strings.Contains(m.volume(), ":") {
			out[m.volume()] = true
		}
	}
	return out
}

// writeCTConfig is what write_pct_config does besides writing: an unusedN
// that names a volume a mount point uses again is dropped, and the
// description is what reading the file back gives (W20).
// that names a volume a mount point uses again is dropped.
// pve-container src/PVE/LXC/Config.pm write_pct_config
func (cs *guestSchema) writeCTConfig(g *Guest) {
	storeDescription(g.Config, ctDescriptionReadBack)
	storeDescription(g.Pending, ctDescriptionReadBack)
	used := cs.ctVolumes(g.Config)
	for k, v := range g.Config {
		if pvegrammar.IsLXCUnusedKey(k) && used[v] {
			delete(g.Config, k)
		}
	}
	if len(g.Pending) == 0 {
		g.Pending = nil
	}
}

// addCTUnused is AbstractConfig::add_unused_volume, with its own text.
// pve-guest-common src/PVE/AbstractConfig.pm add_unused_volume
func addCTUnused(cfg map[string]string, volid string) (string, error) {
	key, err := addUnused(cfg, volid)
	if err != nil {
		return "", errorf("Too many unused volumes - please delete them first.")
	}
	return key, nil
}

// rewriteMountPoints points mount points and unusedN at renamed volumes.
func (cs *guestSchema) rewriteMountPoints(cfg map[string]string, renamed map[string]string) {
	for _, key := range ctVolumeKeys(cfg) {
		if pvegrammar.IsLXCUnusedKey(key) {
			if nv, ok := renamed[cfg[key]]; ok {
				cfg[key] = nv
			}
			continue
		}
		m, err := cs.parseMountPoint(key, cfg[key])
		if err != nil {
			continue
		}
		if nv, ok := renamed[m.volume()]; ok {
			m["volume"] = nv
			cfg[key] = m.print(key)
		}
	}
}

// normalizeCTNet is parse_lxc_network followed by print_lxc_network: the
// NIC is a veth, and one without a MAC gets a generated one (W38).
// pve-container src/PVE/LXC/Config.pm parse_lxc_network, print_lxc_network
func (s *Sim) normalizeCTNet(key, value string) (string, error) {
	n, msg := s.cluster.conf.lxc.PropertyString(key, value)
	if msg != "" {
		return "", errorf("%s", strings.TrimSuffix(msg, "\n"))
	}
	n["type"] = "veth"
	if n["hwaddr"] == "" {
		n["hwaddr"] = s.randomMAC()
	}
	return printCTNet(n), nil
}

// printCTNet is print_property_string for a NIC: the required name first,
// then the other keys sorted.
func printCTNet(n map[string]string) string {
	parts := []string{"name=" + n["name"]}
	for _, k := range sortedKeys(n) {
		if k != "name" {
			parts = append(parts, k+"="+n[k])
		}
	}
	return strings.Join(parts, ",")
}

// parseFeatures is parse_features: the keys the features string sets,
// booleans as 1/0; an empty string sets none.
// pve-container src/PVE/LXC/Config.pm parse_features
func (cs *guestSchema) parseFeatures(value string) (map[string]string, error) {
	if value == "" {
		return map[string]string{}, nil
	}
	props, msg := cs.lxc.PropertyString("features", value)
	if msg != "" {
		return nil, errorf("%s", strings.TrimSuffix(msg, "\n"))
	}
	return props, nil
}

// ctOwnsVolume is the owner test of destroy and delete_mountpoint_volume:
// a storage volume whose name carries the vmid.
func ctOwnsVolume(cl *Cluster, vmid int, volid string) bool {
	if !strings.Contains(volid, ":") || strings.HasPrefix(volid, "/") {
		return false
	}
	_, info, err := parseVolume(cl, volid)
	return err == nil && info.owner == vmid
}

// deleteMountPointVolume is delete_mountpoint_volume: an owned volume is
// freed, anything else only forgotten.
func deleteMountPointVolume(cl *Cluster, g *Guest, volid string) error {
	if !ctOwnsVolume(cl, g.VMID, volid) || cl.Volume(g.Node, volid) == nil {
		return nil
	}
	return freeVolume(cl, g.Node, volid)
}

// joinList is verify_nameserver_list and verify_searchdomain_list after
// the schema checked each item: the items, space separated.
func joinList(value string) string {
	return strings.Join(splitList(value), " ")
}

// ctMemoryMiB is the container's memory, 512 when unset.
func ctMemoryMiB(cfg map[string]string) int64 {
	return configInt(cfg, "memory", defaultCTMemoryMiB)
}
