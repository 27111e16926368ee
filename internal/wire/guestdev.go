package wire

import (
	"regexp"
	"strings"
)

// Slot counts of the guest device keys.
const (
	// USBSlots is the number of a VM's usbN keys (usb0..usb14): $MAX_USB_DEVICES
	// in qemu-server src/PVE/QemuServer/USB.pm. Slots above usb4 need machine
	// version 7.1 or newer and a modern OS type; PVE checks that itself.
	USBSlots = 15
	// VirtiofsSlots is the number of a VM's virtiofsN keys
	// (virtiofs0..virtiofs9): max_virtiofs in qemu-server
	// src/PVE/QemuServer/Virtiofs.pm (the API matches ^virtiofs\d$).
	VirtiofsSlots = 10
	// LXCDevSlots is the number of a container's devN keys (dev0..dev255):
	// $MAX_DEVICES in pve-container src/PVE/LXC/Config.pm.
	LXCDevSlots = 256
)

// IsUSBSlot reports whether key is usb0..usb14, a VM's USB device.
func IsUSBSlot(key string) bool { return isSlot(key, "usb", USBSlots) }

// IsVirtiofsSlot reports whether key is virtiofs0..virtiofs9, a VM's shared
// directory.
func IsVirtiofsSlot(key string) bool { return isSlot(key, "virtiofs", VirtiofsSlots) }

// IsLXCDevSlot reports whether key is dev0..dev255, a container's passed
// through device.
func IsLXCDevSlot(key string) bool { return isSlot(key, "dev", LXCDevSlots) }

// Property-string keys of the guest device values.
const (
	USBHostKey           = "host"
	USBMappingKey        = "mapping"
	USB3Key              = "usb3"
	VirtiofsDirKey       = "dirid"
	VirtiofsCacheKey     = "cache"
	VirtiofsXattrKey     = "expose-xattr"
	VirtiofsACLKey       = "expose-acl"
	VirtiofsDirectIOKey  = "direct-io"
	LXCDevPathKey        = "path"
	LXCDevModeKey        = "mode"
	LXCDevUIDKey         = "uid"
	LXCDevGIDKey         = "gid"
	LXCDevDenyWriteKey   = "deny-write"
	usbHostIDExpression  = `(?:0x)?[0-9A-Fa-f]{4}:(?:0x)?[0-9A-Fa-f]{4}`
	usbHostBusExpression = `\d+-\d+(?:\.\d+)*`
)

var (
	// USBHostDevicePattern is a USB host device as pve-qm-usb's host
	// accepts one besides "spice": vendor:product (hex, each part
	// optionally 0x-prefixed) or bus-port[.port...] (qemu-server
	// src/PVE/QemuServer/USB.pm).
	USBHostDevicePattern = regexp.MustCompile(`^(?:` + usbHostIDExpression + `|` + usbHostBusExpression + `)$`)
	usbHostIDPattern     = regexp.MustCompile(`^(?:0x)?([0-9A-Fa-f]{4}):(?:0x)?([0-9A-Fa-f]{4})$`)
	// VirtiofsCacheModes are virtiofsN's cache values (qemu-server
	// src/PVE/QemuServer/Virtiofs.pm).
	VirtiofsCacheModes = []string{"auto", "always", "metadata", "never"}
	// LXCDevModePattern is devN's mode: an octal access mode written with a
	// leading 0 (pve-container src/PVE/LXC/Config.pm $dev_desc).
	LXCDevModePattern = regexp.MustCompile(`^0[0-7]{3}$`)
)

// CanonicalUSBHost is the form usbN host values are compared in: a
// vendor:product id in lower case without 0x prefixes; a bus-port or
// "spice" as written ("spice" in lower case).
func CanonicalUSBHost(host string) string {
	if m := usbHostIDPattern.FindStringSubmatch(host); m != nil {
		return strings.ToLower(m[1]) + ":" + strings.ToLower(m[2])
	}
	if strings.EqualFold(host, "spice") {
		return "spice"
	}
	return host
}

// SameUSBHost reports whether two usbN host values name the same device.
func SameUSBHost(a, b string) bool { return CanonicalUSBHost(a) == CanonicalUSBHost(b) }
