package pvesim

import (
	"strconv"
	"strings"
)

// checkStartMappings is what building a VM's command line asks of the USB
// and directory mappings its usbN and virtiofsN slots name, on the node the
// VM starts on. PVE does not check them when the config is written (see
// checkUSBPerm, checkDirPerm): a VM whose mapping is missing, or has no
// entry for the node, is configured fine and fails to start.
//   - usbN: qemu-server src/PVE/QemuServer/USB.pm parse_usb_device via
//     get_usb_devices (slots in index order), with pve-guest-common
//     src/PVE/Mapping/USB.pm find_on_current_node.
//   - virtiofsN: qemu-server src/PVE/QemuServer/Virtiofs.pm config and
//     assert_virtiofs_config, with pve-guest-common src/PVE/Mapping/Dir.pm
//     find_on_current_node; the command line adds them after the USB
//     devices (src/PVE/QemuServer.pm config_to_command).
//
// assert_valid's checks of the hardware and the directory on the node are
// not modelled: the simulator has no host devices or file systems.
func checkStartMappings(cl *Cluster, g *Guest) error {
	for i := 0; i < 15; i++ {
		opt := "usb" + strconv.Itoa(i)
		value, ok := g.Config[opt]
		if !ok {
			continue
		}
		dev, msg := cl.conf.qemu.PropertyString(opt, value)
		if msg != "" || dev["host"] != "" || dev["mapping"] == "" {
			continue
		}
		entries, _ := cl.mappingEntries("usb", dev["mapping"], g.Node)
		if len(entries) == 0 {
			return errorf("USB device mapping not found for '%s'", dev["mapping"])
		}
		if len(entries) > 1 {
			return errorf("More than one USB mapping per host not supported")
		}
	}
	for i := 0; i < 10; i++ {
		opt := "virtiofs" + strconv.Itoa(i)
		value, ok := g.Config[opt]
		if !ok {
			continue
		}
		fs, msg := cl.conf.qemu.PropertyString(opt, value)
		if msg != "" {
			continue
		}
		entries, exists := cl.mappingEntries("dir", fs["dirid"], g.Node)
		switch {
		case !exists:
			return errorf("Directory ID %s does not exist.", fs["dirid"])
		case len(entries) > 1:
			// PVE's text, doubled word included.
			return errorf("More than than one directory mapping for node %s.", g.Node)
		case len(entries) == 0:
			return errorf("No directory mapping for node %s.", g.Node)
		}
		if isTrueValue(fs["expose-acl"]) && isWindowsOSType(g.Config["ostype"]) {
			return errorf("Please disable ACLs for virtiofs on Windows VMs, otherwise the virtiofs shared directory cannot be mounted.")
		}
	}
	return nil
}

// isWindowsOSType is qemu-server src/PVE/QemuServer/Helpers.pm
// windows_version being non-zero: wxp, w2k, w2k3, w2k8, wvista or winN.
func isWindowsOSType(ostype string) bool {
	switch ostype {
	case "wxp", "w2k", "w2k3", "w2k8", "wvista":
		return true
	}
	n, ok := strings.CutPrefix(ostype, "win")
	return ok && n != "" && strings.Trim(n, "0123456789") == ""
}

// isTrueValue is a property-string boolean's true spellings
// (pve-common src/PVE/JSONSchema.pm parse_boolean).
func isTrueValue(v string) bool {
	switch strings.ToLower(v) {
	case "1", "on", "yes", "true":
		return true
	}
	return false
}
