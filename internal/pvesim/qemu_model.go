package pvesim

import (
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
)

// The QEMU guest's config file as qemu-server keeps it: current values,
// the [PENDING] section, drives and NICs printed in PVE's canonical form.

const (
	// qemuVersion is the QEMU of the simulated PVE release, written into
	// new guests' "meta" and reported as running-qemu.
	qemuVersion = "10.1.2"
	// runningMachine is the machine type a started guest reports.
	runningMachine = "pc-i440fx-10.1+pve0"
	// macPrefix is the datacenter's default MAC prefix (Proxmox's OUI).
	macPrefix = "BC:24:11"
	// cipasswordMask is what PVE shows instead of a set cipassword (W31).
	cipasswordMask = "**********"
	// Sizes PVE gives the volumes it allocates itself.
	cloudInitSize = 4 * mib
	tpmStateSize  = 4 * mib
	efiVars4M     = 540672 // OVMF_VARS_4M.fd
	efiVars2M     = 131072 // OVMF_VARS.fd
	// defaultMemoryMiB is the schema default of "memory".
	defaultMemoryMiB = 512
	// deleteKey is the [PENDING] key that lists pending deletions.
	deleteKey = "delete"
)

// configControlParams are parameters of the config methods that are not
// config keys.
var configControlParams = map[string]bool{
	"node": true, "vmid": true, "digest": true, "delete": true, "revert": true, "force": true,
	"skiplock": true, "background_delay": true, "import-working-storage": true,
}

// internalConfigKeys are config keys PVE writes itself; the API does not
// set them, but option_exists knows them.
var internalConfigKeys = map[string]bool{
	"vmstate": true, "meta": true, "runningmachine": true, "runningcpu": true,
	"running-nets-host-mtu": true, "parent": true, "snaptime": true,
}

// qemuOptionExists is option_exists: a key of the VM config schema.
func (cs *guestSchema) qemuOptionExists(key string) bool {
	if configControlParams[key] {
		return false
	}
	if internalConfigKeys[key] {
		return true
	}
	_, ok := cs.qemu.Param(key)
	return ok
}

// drive is a parsed drive value: the schema's keys, "file" holding the
// volume, aliases resolved, booleans as 1/0.
type drive map[string]string

// parseDrive parses a drive value of slot key the way parse_drive does;
// ok is false when PVE could not parse it either.
func (cs *guestSchema) parseDrive(key, value string) (drive, bool) {
	props, msg := cs.qemu.PropertyString(key, value)
	if msg != "" {
		return nil, false
	}
	return drive(props), props["file"] != ""
}

func (d drive) file() string      { return d["file"] }
func (d drive) isCDROM() bool     { return d["media"] == "cdrom" }
func (d drive) isCloudInit() bool { return cloudInitFile.MatchString(d.file()) }

// isCDROMNotCloudInit is drive_is_cdrom($drive, 1).
func (d drive) isCDROMNotCloudInit() bool { return d.isCDROM() && !d.isCloudInit() }

// cloudInitFile is drive_is_cloudinit.
var cloudInitFile = regexp.MustCompile(`[:/](?:vm-\d+-)?cloudinit(?:\.(?:raw|qcow|qcow2|qed|vmdk|cloop))?$`)

// print is print_drive: the file first, then the other keys sorted, sizes
// in PVE's unit form.
// qemu-server src/PVE/QemuServer/Drive.pm print_drive
func (d drive) print() string {
	parts := []string{d.file()}
	keys := make([]string, 0, len(d))
	for k := range d {
		if k != "file" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := d[k]
		if k == "size" {
			if n, ok := pvegrammar.ParseSize(v); ok {
				v = pvegrammar.FormatSize(n)
			}
		}
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, ",")
}

// isDriveKey is is_valid_drivename: a disk slot, not unusedN.
func isDriveKey(key string) bool { return pvegrammar.IsQemuDriveKey(key) }

// printNet is print_net: "MODEL=MAC", then the other keys sorted.
// qemu-server src/PVE/QemuServer/Network.pm print_net
func printNet(n map[string]string) string {
	parts := []string{n["model"] + "=" + n["macaddr"]}
	keys := make([]string, 0, len(n))
	for k := range n {
		if k != "model" && k != "macaddr" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, k+"="+n[k])
	}
	return strings.Join(parts, ",")
}

// normalizeNet is parse_net followed by print_net: a NIC without a MAC gets
// a generated one.
// pve-common src/PVE/JSONSchema.pm check_prop ("invalid format - $err")
func (s *Sim) normalizeNet(key, value string) (string, error) {
	n, msg := s.cluster.conf.qemu.PropertyString(key, value)
	if msg != "" {
		return "", paramError(map[string]string{key: "invalid format - " + msg})
	}
	if n["macaddr"] == "" {
		n["macaddr"] = s.randomMAC()
	}
	return printNet(n), nil
}

// randomMAC is random_ether_addr with the datacenter's prefix.
// pve-common src/PVE/Tools.pm random_ether_addr
func (s *Sim) randomMAC() string {
	return fmt.Sprintf("%s:%02X:%02X:%02X", macPrefix, s.ids.Intn(256), s.ids.Intn(256), s.ids.Intn(256))
}

// newUUID is a random (version 4) UUID, as UUID::generate gives.
func (s *Sim) newUUID() string {
	b := make([]byte, 16)
	for i := range b {
		b[i] = byte(s.ids.Intn(256))
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// cryptPassword stands in for PVE's encrypt_pw (SHA-512 crypt): the value
// has crypt's "$6$salt$hash" shape, so PVE's "already hashed" test holds.
// pve-common src/PVE/Tools.pm encrypt_pw
func (s *Sim) cryptPassword(pw string) string {
	const saltChars = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	salt := make([]byte, 16)
	for i := range salt {
		salt[i] = saltChars[s.ids.Intn(len(saltChars))]
	}
	sum := sha512.Sum512([]byte(string(salt) + pw))
	return "$6$" + string(salt) + "$" + base64.RawStdEncoding.EncodeToString(sum[:])
}

// hashedPassword is qemu-server's test for a cipassword that is already a
// crypt hash.
var hashedPassword = regexp.MustCompile(`^\$(?:[156]|2[ay])(\$.+){2}`)

// pendingDeletes parses the [PENDING] delete list: key to force flag.
// pve-guest-common src/PVE/AbstractConfig.pm parse_pending_delete
func pendingDeletes(g *Guest) map[string]bool {
	out := map[string]bool{}
	for _, k := range splitList(g.Pending[deleteKey]) {
		force := strings.HasPrefix(k, "!")
		out[strings.TrimPrefix(k, "!")] = force
	}
	return out
}

// setPendingDeletes prints the delete list sorted, a forced key with "!".
// pve-guest-common src/PVE/AbstractConfig.pm print_pending_delete
func setPendingDeletes(g *Guest, dels map[string]bool) {
	if len(dels) == 0 {
		delete(g.Pending, deleteKey)
		return
	}
	keys := make([]string, 0, len(dels))
	for k := range dels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		if dels[k] {
			keys[i] = "!" + k
		}
	}
	g.ensurePending()[deleteKey] = strings.Join(keys, ",")
}

func (g *Guest) ensurePending() map[string]string {
	if g.Pending == nil {
		g.Pending = map[string]string{}
	}
	return g.Pending
}

func addPendingDelete(g *Guest, key string, force bool) {
	dels := pendingDeletes(g)
	dels[key] = force
	setPendingDeletes(g, dels)
}

func removePendingDelete(g *Guest, key string) {
	dels := pendingDeletes(g)
	if _, ok := dels[key]; !ok {
		return
	}
	delete(dels, key)
	setPendingDeletes(g, dels)
}

// cleanupPending is cleanup_pending: pending values equal to the current
// ones and deletions of absent keys are dropped.
// pve-guest-common src/PVE/AbstractConfig.pm cleanup_pending
func cleanupPending(g *Guest) {
	for k, v := range g.Pending {
		if k != deleteKey && g.Config[k] == v {
			if _, ok := g.Config[k]; ok {
				delete(g.Pending, k)
			}
		}
	}
	dels := pendingDeletes(g)
	for k := range dels {
		if _, ok := g.Config[k]; !ok {
			delete(dels, k)
		}
	}
	setPendingDeletes(g, dels)
}

// writeConfig is what write_vm_config does besides writing: an unusedN
// that names a volume a drive uses again is dropped, and an empty boot
// order is no key at all (PVE writes "boot: " and cannot read it back);
// the description is what reading the file back gives (W20).
// order is no key at all (PVE writes "boot: " and cannot read it back).
// qemu-server src/PVE/QemuServer.pm write_vm_config
func (cs *guestSchema) writeConfig(g *Guest) {
	used := map[string]bool{}
	for _, cfg := range []map[string]string{g.Config, g.Pending} {
		for k, v := range cfg {
			if isDriveKey(k) {
				if d, ok := cs.parseDrive(k, v); ok {
					used[d.file()] = true
				}
			}
		}
	}
	for k, v := range g.Config {
		if pvegrammar.IsQemuUnusedKey(k) && used[v] {
			delete(g.Config, k)
		}
	}
	if g.Config["boot"] == "" {
		delete(g.Config, "boot")
	}
	storeDescription(g.Config, vmDescriptionReadBack)
	storePendingVMDescription(g.Pending)
	if len(g.Pending) == 0 {
		g.Pending = nil
	}
}

// renderConfig prints the config file: the description as comment lines,
// the keys sorted, then the pending section ("[PENDING]" in qemu-server,
// "[pve:pending]" in pve-container).
// qemu-server src/PVE/QemuServer.pm write_vm_config (the file text)
func renderConfig(g *Guest) string {
	var b strings.Builder
	section := func(cfg map[string]string) {
		if d, ok := cfg["description"]; ok {
			for _, line := range descriptionLines(d) {
				b.WriteString("#" + line + "\n")
			}
		}
		keys := make([]string, 0, len(cfg))
		for k := range cfg {
			if k != "description" {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			b.WriteString(k + ": " + cfg[k] + "\n")
		}
	}
	section(g.Config)
	if len(g.Pending) > 0 {
		header := "[PENDING]"
		if g.Type == LXC {
			header = "[pve:pending]"
		}
		b.WriteString("\n" + header + "\n")
		section(g.Pending)
	}
	// write_vm_config / write_pct_config: the snapshot sections follow,
	// sorted by name.
	for _, name := range sortedKeys(g.Snapshots) {
		b.WriteString("\n[" + name + "]\n")
		section(g.Snapshots[name])
	}
	return b.String()
}

// guestDigest is the SHA1 of the config file PVE reports as "digest".
// The digest is the SHA-1 of the config file (pve-guest-common
// src/PVE/AbstractConfig.pm load_config, Digest::SHA::sha1_hex).
func guestDigest(g *Guest) string {
	sum := sha1.Sum([]byte(renderConfig(g)))
	return hex.EncodeToString(sum[:])
}

// currentConfig is load_current_config: the config with pending values
// applied (unless current), without the pending section.
// pve-guest-common src/PVE/AbstractConfig.pm load_current_config
func currentConfig(g *Guest, current bool) map[string]string {
	out := copyMap(g.Config)
	if !current {
		for k, v := range g.Pending {
			if k != deleteKey {
				out[k] = v
			}
		}
		for k := range pendingDeletes(g) {
			delete(out, k)
		}
	}
	return out
}

// loadQemu is load_config on the node the request was proxied to: a VM
// that is not there, or a container, is W12's missing config file.
func loadQemu(c *call) (*Guest, error) {
	return loadGuest(c, QEMU)
}

// assertQemuOnNode is assert_config_exists_on_node, which check_running
// calls first.
// qemu-server src/PVE/QemuConfig.pm assert_config_exists_on_node
func assertQemuOnNode(c *call) (*Guest, error) {
	node, vmid := c.str("node"), c.intParam("vmid", 0)
	g := c.cluster.Guests[vmid]
	if g == nil || g.Type != QEMU || g.Node != node {
		return nil, errorf("unable to find configuration file for VM %d on node '%s'", vmid, node)
	}
	return g, nil
}

// memoryMiB is get_current_memory.
// qemu-server src/PVE/QemuServer/Memory.pm get_current_memory
func (cs *guestSchema) memoryMiB(cfg map[string]string) int64 {
	v, ok := cfg["memory"]
	if !ok {
		return defaultMemoryMiB
	}
	// qemu-server src/PVE/QemuServer/Memory.pm parse_memory: the memory
	// format's property string, "current" its default key.
	props, msg := cs.qemu.PropertyString("memory", v)
	if msg != "" {
		return defaultMemoryMiB
	}
	n, err := strconv.ParseInt(props["current"], 10, 64)
	if err != nil {
		return defaultMemoryMiB
	}
	return n
}

// bootOrder is the boot order's device list, nil without "order=".
// qemu-server src/PVE/QemuServer.pm device_bootorder (the boot property's order list)
func (cs *guestSchema) bootOrder(cfg map[string]string) []string {
	boot, ok := cfg["boot"]
	if !ok {
		return nil
	}
	props, msg := cs.qemu.PropertyString("boot", boot)
	if msg != "" {
		return nil
	}
	return splitList(props["order"])
}

// printBootOrder is print_bootorder.
// qemu-server src/PVE/QemuServer.pm print_bootorder
func printBootOrder(devs []string) string {
	if len(devs) == 0 {
		return ""
	}
	return "order=" + strings.Join(devs, ";")
}

// bootDiskSize is bootdisk_size: the size= of the first disk of the boot
// order; 0 when there is none.
func (cs *guestSchema) bootDiskSize(cfg map[string]string) int64 {
	for _, dev := range cs.bootOrder(cfg) {
		if !isDriveKey(dev) {
			continue
		}
		d, ok := cs.parseDrive(dev, cfg[dev])
		if !ok || d.isCDROM() {
			continue
		}
		n, ok := pvegrammar.ParseSize(d["size"])
		if !ok {
			return 0
		}
		return n
	}
	return 0
}

// defaultBootDevices is get_default_bootdevices: the first disk, the first
// CD-ROM (a cloud-init drive counts) and the first NIC.
// qemu-server src/PVE/QemuServer.pm get_default_bootdevices
func (cs *guestSchema) defaultBootDevices(cfg map[string]string) []string {
	var out []string
	for _, cdrom := range []bool{false, true} {
		for _, key := range pvegrammar.QemuDriveKeys() {
			if key == "efidisk0" || key == "tpmstate0" {
				continue
			}
			v, ok := cfg[key]
			if !ok {
				continue
			}
			d, ok := cs.parseDrive(key, v)
			if !ok || d.isCDROM() != cdrom {
				continue
			}
			out = append(out, key)
			break
		}
	}
	for i := 0; i < 32; i++ {
		if _, ok := cfg["net"+strconv.Itoa(i)]; ok {
			out = append(out, "net"+strconv.Itoa(i))
			break
		}
	}
	return out
}

// addUnused is add_unused_volume: the lowest free unusedN, unless the
// volume is listed already.
// pve-guest-common src/PVE/AbstractConfig.pm add_unused_volume
func addUnused(cfg map[string]string, volid string) (string, error) {
	key := ""
	for i := 255; i >= 0; i-- {
		k := "unused" + strconv.Itoa(i)
		if v, ok := cfg[k]; ok {
			if v == volid {
				return k, nil
			}
			continue
		}
		key = k
	}
	if key == "" {
		return "", errorf("Too many unused volumes - please delete them first.") // pve-guest-common src/PVE/AbstractConfig.pm add_unused_volume
	}
	cfg[key] = volid
	return key, nil
}

// windowsGuest is windows_version($ostype) != 0.
// qemu-server src/PVE/QemuServer/Helpers.pm windows_version
func windowsGuest(cfg map[string]string) bool {
	return strings.HasPrefix(cfg["ostype"], "w")
}

// hotplugFeatures is parse_hotplug_features: "1" is network,disk,usb, "0"
// nothing.
// qemu-server src/PVE/QemuServer.pm parse_hotplug_features
func hotplugFeatures(cfg map[string]string) map[string]bool {
	v, ok := cfg["hotplug"]
	if !ok || v == "1" {
		v = "network,disk,usb"
	}
	out := map[string]bool{}
	if v == "0" {
		return out
	}
	for _, f := range splitList(v) {
		out[f] = true
	}
	return out
}
