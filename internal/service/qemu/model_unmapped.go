package qemu

import (
	"slices"

	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

var _ guestops.ConfigKeyOwner = (*vmResource)(nil)

// representedKeys are the VM config keys an attribute of pve_vm reads and
// writes. Slot keys (drives, NICs, PCI devices, ipconfigN) are matched by
// pattern in RepresentsConfigKey.
var representedKeys = map[string]bool{
	keyName: true, keyDescription: true, keyTags: true, keyOnBoot: true, keyProtection: true,
	keyBIOS: true, keyMachine: true, keyOSType: true, keySCSIHW: true, keyBoot: true,
	keyCores: true, keySockets: true, keyCPU: true, keyCPUUnits: true, keyCPULimit: true, keyNUMA: true,
	keyMemory: true, keyBalloon: true, keyAgent: true,
	keyEFIDisk: true, keyTPMState: true,
	keyCIUser: true, keyCIPassword: true, keySSHKeys: true, keyNameserver: true, keySearchDomain: true, keyCIUpgrade: true,
}

// RepresentsConfigKey tells which keys of a VM's config pve_vm has an
// attribute for. A drive slot is represented when it holds a data disk, a
// CD-ROM or PVE's cloud-init drive (W27); a pass-through device in a drive
// slot is not. unusedN (W24), cicustom and every key outside the lists
// above are not.
func (r *vmResource) RepresentsConfigKey(key, value string) bool {
	switch {
	case representedKeys[key]:
		return true
	case wire.IsNetSlot(key), wire.IsHostPCISlot(key), wire.IsIPConfigSlot(key), wire.IsUSBSlot(key), wire.IsVirtiofsSlot(key):
		return true
	case wire.IsDataDiskSlot(key):
		drive, err := parseDriveSlot(value)
		return err == nil && drive.kind != driveOther
	}
	return false
}

var _ guestops.ConfigOptionOwner = (*vmResource)(nil)

// Options the attributes hold, per kind of represented key. size is PVE's
// record of a volume's size; ms-cert is PVE's Secure Boot record (W41).
var (
	dataDiskOptions = []string{optDiscard, optSSD, optIOThread, optBackup, optReplicate, optCache, optAIO, optSize}
	cdromOptions    = []string{optMedia, optSize}
	efiDiskOptions  = []string{optEFIType, optPreEnrolled, optMSCert, optSize}
	tpmStateOptions = []string{optTPMVersion, optSize}
	nicOptions      = []string{nicBridgeKey, nicTagKey, nicFirewallKey, nicLinkDownKey, nicMTUKey, nicRateKey, nicQueuesKey}
	pciOptions      = []string{pciHostKey, pciMappingKey, pciPCIeKey, pciXVGAKey, pciROMBarKey, pciMDevKey}
	ipConfigOptions = []string{ipTokenV4, ipTokenGW4, ipTokenV6, ipTokenGW6}
)

// UnmanagedOptions lists the options of a represented key that no
// attribute holds: a drive's iops limits or serial, CPU flags, the agent's
// freeze-fs setting, a NIC's trunks and the like. PVE keeps them, and so
// do the provider's rewrites, but configuration cannot show them.
func (r *vmResource) UnmanagedOptions(key, value string) []string {
	switch {
	case key == keyCPU:
		return guestops.OptionsOutside(value, cpuTypeKey, cpuTypeKey)
	case key == keyAgent:
		return guestops.OptionsOutside(value, agentOnKey, agentOnKey, agentTrimKey, agentTypeKey)
	case key == keyBoot:
		return guestops.OptionsOutside(value, bootLegacyKey, bootOrderKey)
	case key == keyEFIDisk:
		return driveOptionsOutside(value, efiDiskOptions)
	case key == keyTPMState:
		return driveOptionsOutside(value, tpmStateOptions)
	case wire.IsIPConfigSlot(key):
		return guestops.OptionsOutside(value, "", ipConfigOptions...)
	case wire.IsHostPCISlot(key):
		return guestops.OptionsOutside(value, pciHostKey, pciOptions...)
	case wire.IsUSBSlot(key):
		return guestops.OptionsOutside(value, wire.USBHostKey, usbOptions...)
	case wire.IsVirtiofsSlot(key):
		return guestops.OptionsOutside(value, wire.VirtiofsDirKey, virtiofsOptions...)
	case wire.IsNetSlot(key):
		nic, err := parseNICSlot(value)
		if err != nil {
			return nil
		}
		return outside(nic.props, nicOptions)
	case wire.IsDataDiskSlot(key):
		drive, err := parseDriveSlot(value)
		if err != nil {
			return nil
		}
		if drive.kind == driveData {
			return outside(drive.Options, dataDiskOptions)
		}
		return outside(drive.Options, cdromOptions)
	}
	return nil
}

func driveOptionsOutside(value string, represented []string) []string {
	drive, err := wire.ParseDrive(value)
	if err != nil {
		return nil
	}
	return outside(drive.Options, represented)
}

// outside lists, sorted, the keys of props that are not in represented.
func outside(props map[string]string, represented []string) []string {
	var out []string
	for opt := range props {
		if !slices.Contains(represented, opt) {
			out = append(out, opt)
		}
	}
	slices.Sort(out)
	return out
}
