package schema

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
)

// handVerifiers port the PVE format checks that are more than one regex and
// one message. Each returns PVE's die message (ending in a newline) or "".
// Formats with a plain regex and message in the schema supplement need no
// entry here: verifierFunc builds those from the tables.
var handVerifiers map[string]verifyFunc

func init() {
	handVerifiers = map[string]verifyFunc{
		// Registered by PVE only so that "string-list" exists.
		"string": func(string) string { return "" },

		"pve-storage-id": func(v string) string { return verifyID(v, "storage") },
		"acme-plugin-id": func(v string) string { return verifyID(v, "ACME plugin") },
		"pve-poolid":     verifyPoolID,
		"pve-userid":     verifyUserID,

		"pve-volume-id-or-qm-path":       verifyVolumeIDOrQMPath,
		"pve-volume-id-or-absolute-path": verifyVolumeIDOrAbsolutePath,
		"pve-lxc-mp-string":              verifyLXCMountPath,
		"pve-lxc-dev-string":             verifyLXCDevicePath,
		"pve-ct-timezone":                verifyCTTimezone,
		"timezone":                       verifyTimezone,

		"CIDRv4": func(v string) string {
			return failUnless(isCIDR(v, "CIDRv4", 32), "value does not look like a valid IPv4 CIDR network")
		},
		"CIDRv6": func(v string) string {
			return failUnless(isCIDR(v, "CIDRv6", 128), "value does not look like a valid IPv6 CIDR network")
		},
		"CIDR": func(v string) string {
			return failUnless(isAnyCIDR(v), "value does not look like a valid CIDR network")
		},
		"pve-ipv4-config":      verifyIPv4Config,
		"pve-ipv6-config":      verifyIPv6Config,
		"address":              verifyAddress,
		"pve-storage-server":   verifyStorageServer,
		"ipv4mask":             verifyIPv4Mask,
		"lxc-ip-with-ll-iface": verifyIPWithLinkLocalIface,

		"pve-startup-order":    verifyStartupOrder,
		"pve-hotplug-features": verifyHotplugFeatures,
		"pve-cpuset":           verifyCPUSet,
		"pve-phys-bits":        verifyPhysBits,
		"pve-vlan-id-or-range": verifyVLANIDOrRange,

		"pve-storage-content": verifyStorageContent,

		"storage-pair": func(v string) string { return verifyIDPair(v, "pve-storage-id") },
		"bridge-pair":  func(v string) string { return verifyIDPair(v, "pve-bridge-id") },

		// pve-common src/PVE/CalendarEvent.pm pve_verify_calendar_event
		"pve-calendar-event": pvegrammar.VerifyCalendarEvent,
	}
}

func failUnless(ok bool, msg string) string {
	if ok {
		return ""
	}
	return msg + "\n"
}

// verifyID is pve-common's parse_id.
func verifyID(id, kind string) string {
	if utf8.RuneCountInString(id) < 2 {
		return kind + " ID '" + id + "' cannot be shorter than 2 characters\n"
	}
	if !matchesFormat("pve-storage-id", id) {
		return kind + " ID '" + id + "' contains illegal characters\n"
	}
	return ""
}

// verifyPoolID is pve-access-control's verify_poolname: nested pools have at
// most three levels.
func verifyPoolID(name string) string {
	if len(perlSplit(name, "/")) > 3 {
		return "pool name '" + name + "' nested too deeply (max levels = 3)\n"
	}
	if !matchesFormat("pve-poolid", name) {
		return "pool name '" + name + "' contains invalid characters\n"
	}
	return ""
}

// verifyUserID is pve-access-control's verify_username.
func verifyUserID(name string) string {
	if !perlTruthy(name) {
		name = ""
	}
	n := utf8.RuneCountInString(name)
	if n < 3 {
		return "user name '" + name + "' is too short\n"
	}
	if n > 64 {
		return "user name '" + name + "' is too long (" + strconv.Itoa(n) + " > 64)\n"
	}
	if !matchesFormat("pve-userid", name) {
		return "value '" + name + "' does not look like a valid user name\n"
	}
	return ""
}

func verifyVolumeID(volid string) string {
	if matchesFormat("pve-volume-id", volid) {
		return ""
	}
	return "unable to parse volume ID '" + volid + "'\n"
}

// verifyVolumeIDOrQMPath is qemu-server's check for drive files: "none",
// "cdrom", an absolute path or STORAGE:VOLUME (including the allocation form
// STORAGE:SIZE).
func verifyVolumeIDOrQMPath(volid string) string {
	if volid == "none" || volid == "cdrom" {
		return ""
	}
	return verifyVolumeIDOrAbsolutePath(volid)
}

func verifyVolumeIDOrAbsolutePath(volid string) string {
	if strings.HasPrefix(volid, "/") {
		return ""
	}
	return verifyVolumeID(volid)
}

var (
	// Perl's '$' also matches before a final newline; the optional \n keeps
	// these rejections at least as wide as PVE's.
	dotComponentInside = regexp.MustCompile(`/\.\.?/`)
	dotComponentAtEnd  = regexp.MustCompile(`/\.\.?\n?$`)
	dotComponent       = regexp.MustCompile(`/\.\.?(?:/|\n?$)`)
)

// verifyLXCMountPath is pve-container's verify_lxc_mp_string.
func verifyLXCMountPath(mp string) string {
	if dotComponentInside.MatchString(mp) || dotComponentAtEnd.MatchString(mp) || strings.HasPrefix(mp, "../") {
		return mp + " contains illegal character sequences\n"
	}
	return ""
}

// verifyLXCDevicePath is pve-container's verify_lxc_dev_string.
func verifyLXCDevicePath(dev string) string {
	if dotComponent.MatchString(dev) || !strings.HasPrefix(dev, "/dev/") {
		return dev + " is not a valid device path\n"
	}
	return ""
}

// isCIDR checks ADDRESS/PREFIX with 8 <= PREFIX <= limit. The supplement's
// regex captures the prefix in its last group.
func isCIDR(v, format string, limit float64) bool {
	m := namedRegexp(format).FindStringSubmatch(v)
	if m == nil {
		return false
	}
	prefix, err := strconv.ParseFloat(m[len(m)-1], 64)
	return err == nil && prefix > 7 && prefix <= limit
}

func isAnyCIDR(v string) bool { return isCIDR(v, "CIDRv4", 32) || isCIDR(v, "CIDRv6", 128) }

func verifyIPv4Config(v string) string {
	ok := v == "dhcp" || v == "manual" || isCIDR(v, "CIDRv4", 32)
	return failUnless(ok, "value does not look like a valid ipv4 network configuration")
}

func verifyIPv6Config(v string) string {
	ok := v == "auto" || v == "dhcp" || v == "manual" || isCIDR(v, "CIDRv6", 128)
	return failUnless(ok, "value does not look like a valid ipv6 network configuration")
}

func isIPOrDNSName(v string) bool { return matchesFormat("ip", v) || matchesFormat("dns-name", v) }

func verifyAddress(v string) string {
	return failUnless(isIPOrDNSName(v), "value does not look like a valid address: "+v)
}

func verifyStorageServer(v string) string {
	return failUnless(isIPOrDNSName(v), "value does not look like a valid server name or IP address")
}

var ipv4Masks = func() map[string]bool {
	masks := map[string]bool{}
	for bits := 0; bits <= 32; bits++ {
		mask := uint32(0)
		if bits > 0 {
			mask = ^uint32(0) << (32 - bits)
		}
		masks[strconv.Itoa(int(mask>>24))+"."+strconv.Itoa(int(mask>>16&0xff))+"."+
			strconv.Itoa(int(mask>>8&0xff))+"."+strconv.Itoa(int(mask&0xff))] = true
	}
	return masks
}()

func verifyIPv4Mask(v string) string {
	return failUnless(ipv4Masks[v], "value does not look like a valid IP netmask")
}

var linkLocalWithIface = regexp.MustCompile(`^(fe80:[^%]+)%(.*)$`)

// verifyIPWithLinkLocalIface is pve-container's verify_ip_with_ll_iface: an
// IP, or a link-local IPv6 address with a %interface scope.
func verifyIPWithLinkLocalIface(v string) string {
	if m := linkLocalWithIface.FindStringSubmatch(v); m != nil {
		if matchesFormat("ip", m[1]) && matchesFormat("pve-iface", m[2]) {
			return ""
		}
	}
	return failUnless(matchesFormat("ip", v), "value does not look like a valid IP address")
}

var (
	startupOrder = regexp.MustCompile(`^(order=)?\d+$`)
	startupUp    = regexp.MustCompile(`^up=\d+$`)
	startupDown  = regexp.MustCompile(`^down=\d+$`)
)

// verifyStartupOrder is pve_parse_startup_order: an empty value or "0" fails
// (Perl-false), blank parts are skipped.
func verifyStartupOrder(v string) string {
	const msg = "unable to parse startup options\n"
	if !perlTruthy(v) {
		return msg
	}
	for _, p := range perlSplit(v, ",") {
		if strings.TrimFunc(p, isPerlSpace) == "" {
			continue
		}
		if !startupOrder.MatchString(p) && !startupUp.MatchString(p) && !startupDown.MatchString(p) {
			return msg
		}
	}
	return ""
}

var hotplugFeature = regexp.MustCompile(`^(network|disk|cpu|memory|usb|cloudinit)$`)

// verifyHotplugFeatures is qemu-server's parse_hotplug_features: "0", "1" or
// a list of features. The per-feature die escapes PVE's own wrapper message.
func verifyHotplugFeatures(v string) string {
	if v == "0" || v == "1" {
		return ""
	}
	for _, f := range SplitList(v) {
		if !hotplugFeature.MatchString(f) {
			return "invalid hotplug feature '" + f + "'\n"
		}
	}
	return ""
}

var cpusetPart = regexp.MustCompile(`^\s*(\d+)(?:-(\d+))?\s*$`)

// verifyCPUSet is qemu-server's pve_verify_cpuset over PVE::CpuSet's parser:
// comma-separated ids or ascending ranges.
func verifyCPUSet(v string) string {
	const msg = "unable to parse cpuset option\n"
	for _, p := range perlSplit(v, ",") {
		m := cpusetPart.FindStringSubmatch(p)
		if m == nil {
			return msg
		}
		if m[2] != "" {
			from, _ := strconv.ParseFloat(m[1], 64)
			to, _ := strconv.ParseFloat(m[2], 64)
			if to < from {
				return msg
			}
		}
	}
	return ""
}

// verifyPhysBits is qemu-server's parse_phys_bits.
func verifyPhysBits(v string) string {
	ok := matchesFormat("pve-phys-bits", v)
	if ok && v != "host" {
		n, _ := strconv.Atoi(v)
		ok = n >= 8 && n <= 64
	}
	return failUnless(ok, "value must be an integer between 8 and 64 or 'host'")
}

// verifyVLANIDOrRange is pve_verify_vlan_id_or_range.
func verifyVLANIDOrRange(v string) string {
	m := namedRegexp("pve-vlan-id-or-range").FindStringSubmatch(v)
	if m == nil {
		return "invalid VLAN configuration '" + v + "'\n"
	}
	validTag := func(tag string) string {
		n, _ := strconv.ParseFloat(tag, 64)
		if n < 2 || n > 4094 {
			return "invalid VLAN tag '" + tag + "'\n"
		}
		return ""
	}
	if msg := validTag(m[1]); msg != "" {
		return msg
	}
	if perlTruthy(m[2]) {
		if msg := validTag(m[2]); msg != "" {
			return msg
		}
		start, _ := strconv.ParseFloat(m[1], 64)
		end, _ := strconv.ParseFloat(m[2], 64)
		if start >= end {
			return "VLAN range must go from lower to higher tag '" + v + "'\n"
		}
	}
	return ""
}

var idPair = regexp.MustCompile(`^([^:]+):([^:]+)$`)

// verifyIDPair checks one entry of a storage or bridge map the way
// pve-common's verify_idpair does: through parse_idmap, whose messages are
// wrapped twice, each time adding a newline.
func verifyIDPair(entry, idFormat string) string {
	check := verifierFunc(idFormat)
	wrap := func(msg string) string {
		return "entry '" + entry + "' contains invalid ID - " + msg + "\n" + "\n"
	}
	if !perlTruthy(entry) || entry == "1" {
		return ""
	}
	if m := idPair.FindStringSubmatch(entry); m != nil {
		for _, id := range m[1:] {
			if msg := check(id); msg != "" {
				return wrap(msg)
			}
		}
		return ""
	}
	if msg := check(entry); msg != "" {
		return wrap(msg)
	}
	return ""
}

// hashValidators are the functions PVE runs on a named property-string
// format after its per-key checks passed.
var hashValidators = map[string]func(map[string]string) string{
	"pve-vm-cpu-conf": validateVMCPUConf,
	// pve-storage src/PVE/Storage/Plugin.pm validate_prune_backups
	"prune-backups": func(opts map[string]string) string {
		_, msg := pvegrammar.ValidatePruneBackups(opts)
		return msg
	},
}

// builtinCPUModels are qemu-server's $builtin_models, which are valid
// cputypes besides the models of the reported-model enum.
var builtinCPUModels = []string{"x86-64-v2", "x86-64-v2-AES", "x86-64-v3", "x86-64-v4"}

// validateVMCPUConf is qemu-server's validate_vm_cpu_conf. Custom models
// ("custom-NAME") live in cluster state the tables do not have; they are
// accepted.
func validateVMCPUConf(cpu map[string]string) string {
	cputype := cpu["cputype"]
	if !perlTruthy(cputype) {
		return "CPU is missing cputype\n"
	}
	if !strings.HasPrefix(cputype, "custom-") {
		known := contains(builtinCPUModels, cputype)
		if hf, ok := load().HashFormats["pve-vm-cpu-conf"]; ok && !known {
			if rm := hf.Properties["reported-model"]; rm != nil {
				known = contains(rm.Enum, cputype)
			}
		}
		if !known {
			return "Built-in cputype '" + cputype + "' is not defined (missing 'custom-' prefix?)\n"
		}
	}
	if flags := cpu["flags"]; perlTruthy(flags) && !vmSafeCPUFlagsRegexp().MatchString(flags) {
		return "VM-specific CPU flags must be a subset of: " + strings.Join(load().VMSafeCPUFlags, ", ") + "\n"
	}
	if _, ok := cpu["reported-model"]; ok {
		return "Property 'reported-model' not allowed in VM-specific CPU config.\n"
	}
	return ""
}

func vmSafeCPUFlagsRegexp() *regexp.Regexp {
	quoted := make([]string, 0, len(load().VMSafeCPUFlags))
	for _, f := range load().VMSafeCPUFlags {
		quoted = append(quoted, regexp.QuoteMeta(f))
	}
	flag := `[+-](?:` + strings.Join(quoted, "|") + `)`
	return cachedRegexp(`^` + flag + `(?:;` + flag + `)*$`)
}

// storageContentTypes are the content types verify_content accepts: the
// dir plugin's plugindata content list, which "dir includes all other
// types" per PVE's comment, and "import" (accepted before the lookup).
// The shared formats table transcribes this format without "none"; PVE's
// source has it (pve-storage src/PVE/Storage/DirPlugin.pm plugindata
// content: images, rootdir, vztmpl, iso, backup, snippets, none, import),
// and the source wins.
var storageContentTypes = map[string]bool{
	"images": true, "rootdir": true, "vztmpl": true, "iso": true,
	"backup": true, "snippets": true, "none": true, "import": true,
}

// verifyStorageContent is the pve-storage-content format (and, per item,
// pve-storage-content-list). Whether a storage type holds "none" is
// decode_value's check, not the format's.
// pve-storage src/PVE/Storage/Plugin.pm verify_content, valid_content_types
func verifyStorageContent(v string) string {
	return failUnless(storageContentTypes[v], "invalid content type '"+v+"'")
}
