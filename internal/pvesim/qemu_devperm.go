package pvesim

import "strings"

// Serial ports and USB devices: check_vm_modify_config_perm skips them
// because what they need depends on the value (qemu-server
// src/PVE/API2/Qemu.pm). A serial port is either a "socket" or a host
// device path; a USB device is a host device, "spice" or a mapping. Only
// root@pam itself may hand a host device to a VM; an API token of
// root@pam is another identity (W49).

// checkVMCreateDevicePerms is $check_vm_create_serial_perm and
// check_vm_create_usb_perm (qemu-server src/PVE/API2/Qemu.pm, create_vm).
func checkVMCreateDevicePerms(c *call, vmid int, pool string, params map[string]string) error {
	if isRootPam(c) {
		return nil
	}
	for _, opt := range sortedKeys(params) {
		if !isNumberedKey(opt, "serial") {
			continue
		}
		if params[opt] != "socket" {
			return errorf("only root can set '%s' config for real devices", opt)
		}
		if err := c.checkVMPerm(vmid, pool, "VM.Config.HWType"); err != nil {
			return err
		}
	}
	for _, opt := range sortedKeys(params) {
		if isNumberedKey(opt, "usb") {
			if err := checkUSBPerm(c, vmid, pool, opt, params[opt]); err != nil {
				return err
			}
		}
	}
	// check_vm_create_dir_perm: virtiofs0 .. virtiofs9 in order.
	for _, opt := range sortedKeys(params) {
		if isVirtiofsKey(opt) {
			if err := checkDirPerm(c, vmid, pool, opt, params[opt]); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkVMUpdateDevicePerms is update_vm's handling of serialN and usbN
// (qemu-server src/PVE/API2/Qemu.pm, the $updatefn loops over deletions
// and then new values): deleting or changing a serial port that is or
// becomes a host device is root's; a USB device is checked with its old
// value and its new one.
func checkVMUpdateDevicePerms(c *call, vmid int, set map[string]string, deletes []string, g *Guest) error {
	if isRootPam(c) {
		return nil
	}
	// The value a deletion is checked with: the config's, else the
	// pending one ($conf->{$opt} // $conf->{pending}->{$opt}).
	current := func(opt string) (string, bool) {
		if v, ok := g.Config[opt]; ok {
			return v, true
		}
		v, ok := g.Pending[opt]
		return v, ok
	}
	for _, opt := range deletes {
		val, ok := current(opt)
		if !ok {
			continue
		}
		switch {
		case isNumberedKey(opt, "serial"):
			if val != "socket" {
				return errorf("only root can delete '%s' config for real devices", opt)
			}
			if err := c.checkVMPerm(vmid, "", "VM.Config.HWType"); err != nil {
				return err
			}
		case isNumberedKey(opt, "usb"):
			if err := checkUSBPerm(c, vmid, "", opt, val); err != nil {
				return err
			}
		case isVirtiofsKey(opt):
			if err := checkDirPerm(c, vmid, "", opt, val); err != nil {
				return err
			}
		}
	}
	for _, opt := range sortedKeys(set) {
		switch {
		case isNumberedKey(opt, "serial"):
			old, had := g.Config[opt]
			if (had && old != "socket") || set[opt] != "socket" {
				return errorf("only root can modify '%s' config for real devices", opt)
			}
			if err := c.checkVMPerm(vmid, "", "VM.Config.HWType"); err != nil {
				return err
			}
		case isNumberedKey(opt, "usb"):
			if old := g.Config[opt]; old != "" {
				if err := checkUSBPerm(c, vmid, "", opt, old); err != nil {
					return err
				}
			}
			if err := checkUSBPerm(c, vmid, "", opt, set[opt]); err != nil {
				return err
			}
		case isVirtiofsKey(opt):
			if old := g.Config[opt]; old != "" {
				if err := checkDirPerm(c, vmid, "", opt, old); err != nil {
					return err
				}
			}
			if err := checkDirPerm(c, vmid, "", opt, set[opt]); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkUSBPerm is qemu-server src/PVE/API2/Qemu.pm check_usb_perm (its
// texts) for a caller other than root@pam: VM.Config.HWType, then a host
// device is root's unless it is "spice", a mapping needs Mapping.Use on it.
func checkUSBPerm(c *call, vmid int, pool, opt, value string) error {
	if err := c.checkVMPerm(vmid, pool, "VM.Config.HWType"); err != nil {
		return err
	}
	dev, msg := c.cluster.conf.qemu.PropertyString(opt, value)
	if msg != "" {
		// Unreachable from the API: the API schema's pve-qm-usb format
		// refuses a malformed value first, with this answer.
		return paramError(map[string]string{opt: "invalid format - " + msg})
	}
	switch {
	case dev["host"] != "":
		if !strings.EqualFold(dev["host"], "spice") {
			return errorf("only root can set '%s' config for real devices", opt)
		}
	case dev["mapping"] != "":
		return c.check("/mapping/usb/"+dev["mapping"], false, "Mapping.Use")
	default:
		return errorf("either 'host' or 'mapping' must be set.")
	}
	return nil
}

// checkDirPerm is qemu-server src/PVE/API2/Qemu.pm check_dir_perm for a
// caller other than root@pam: VM.Config.Disk on the VM, then Mapping.Use
// on the directory mapping the value names. Like PVE, it does not ask
// whether the mapping exists: that is checked when the VM starts
// (PVE::QemuServer::Virtiofs assert_virtiofs_config).
func checkDirPerm(c *call, vmid int, pool, opt, value string) error {
	if err := c.checkVMPerm(vmid, pool, "VM.Config.Disk"); err != nil {
		return err
	}
	fs, msg := c.cluster.conf.qemu.PropertyString(opt, value)
	if msg != "" {
		// Unreachable from the API: the schema's pve-qm-virtiofs format
		// refuses a malformed value first, with this answer.
		return paramError(map[string]string{opt: "invalid format - " + msg})
	}
	return c.check("/mapping/dir/"+fs["dirid"], false, "Mapping.Use")
}

// isVirtiofsKey is update_vm's ^virtiofs\d$: one digit, as many as
// max_virtiofs (qemu-server src/PVE/QemuServer/Virtiofs.pm).
func isVirtiofsKey(key string) bool {
	rest, ok := strings.CutPrefix(key, "virtiofs")
	return ok && len(rest) == 1 && rest[0] >= '0' && rest[0] <= '9'
}

// isNumberedKey reports whether key is prefix followed by digits only.
func isNumberedKey(key, prefix string) bool {
	rest, ok := strings.CutPrefix(key, prefix)
	if !ok || rest == "" {
		return false
	}
	for _, r := range rest {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
