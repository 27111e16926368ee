package qemu

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// pciModel is one PCI passthrough device of `pci_devices`, keyed by its
// hostpciN slot (W42).
type pciModel struct {
	Device  types.String `tfsdk:"device"`
	Mapping types.String `tfsdk:"mapping"`
	PCIe    types.Bool   `tfsdk:"pcie"`
	XVGA    types.Bool   `tfsdk:"x_vga"`
	ROMBar  types.Bool   `tfsdk:"rombar"`
	MDev    types.String `tfsdk:"mdev"`
}

// Property-string keys of hostpciN the attributes manage. Other options
// (romfile, vendor-id, ...) are kept on rewrites.
const (
	pciHostKey    = "host"
	pciMappingKey = "mapping"
	pciPCIeKey    = "pcie"
	pciXVGAKey    = "x-vga"
	pciROMBarKey  = "rombar"
	pciMDevKey    = "mdev"
)

var (
	// pciAddressPattern is one host PCI id as PVE accepts it: optional
	// domain, bus:device, optional function.
	pciAddressPattern = regexp.MustCompile(`^(?i)(?:([0-9a-f]{4,}):)?([0-9a-f]{2}):([0-9a-f]{2})(?:\.([0-7]))?$`)
	// pciDevicePattern is the device attribute: one id or several joined by ';'.
	pciDevicePattern = regexp.MustCompile(`^(?i)(?:[0-9a-f]{4,}:)?[0-9a-f]{2}:[0-9a-f]{2}(?:\.[0-7])?(?:;(?:[0-9a-f]{4,}:)?[0-9a-f]{2}:[0-9a-f]{2}(?:\.[0-7])?)*$`)
)

// canonicalPCIDevice is the form device values are compared in (W42):
// lower case, domain 0000 spelled out. A function-less id ("17:00") means
// every function of the device and stays distinct from "17:00.0".
func canonicalPCIDevice(device string) string {
	ids := strings.Split(device, ";")
	for i, id := range ids {
		m := pciAddressPattern.FindStringSubmatch(strings.TrimSpace(id))
		if m == nil {
			ids[i] = strings.ToLower(id)
			continue
		}
		domain := strings.ToLower(m[1])
		if domain == "" {
			domain = "0000"
		}
		ids[i] = domain + ":" + strings.ToLower(m[2]) + ":" + strings.ToLower(m[3])
		if m[4] != "" {
			ids[i] += "." + m[4]
		}
	}
	return strings.Join(ids, ";")
}

// samePCIDevice reports whether two device values name the same devices.
func samePCIDevice(a, b string) bool {
	return canonicalPCIDevice(a) == canonicalPCIDevice(b)
}

// pciFromValue reads one live hostpciN value. prior is the slot's model in
// state or plan: its spelling of the device is kept when PVE names the same
// device another way.
func pciFromValue(value string, prior *pciModel) (pciModel, error) {
	props, err := wire.ParsePropertyString(value, pciHostKey)
	if err != nil {
		return pciModel{}, err
	}
	dev := pciModel{
		Device:  guestops.PropString(props, pciHostKey),
		Mapping: guestops.PropString(props, pciMappingKey),
		MDev:    guestops.PropString(props, pciMDevKey),
	}
	for _, b := range []struct {
		key    string
		target *types.Bool
	}{{pciPCIeKey, &dev.PCIe}, {pciXVGAKey, &dev.XVGA}, {pciROMBarKey, &dev.ROMBar}} {
		if *b.target, err = guestops.PropBool(props, b.key); err != nil {
			return pciModel{}, err
		}
	}
	if prior != nil && guestops.Known(prior.Device) && guestops.Known(dev.Device) && samePCIDevice(prior.Device.ValueString(), dev.Device.ValueString()) {
		dev.Device = prior.Device
	}
	return dev, nil
}

// pciDevicesFromAPI reads the hostpciN slots that prior declares; the
// others are reported at plan time and never managed (W42). With keepAll
// (an import, or a data source) every live slot is read.
func pciDevicesFromAPI(config pveapi.GuestConfig, prior map[string]pciModel, keepAll bool) (map[string]pciModel, error) {
	var devices map[string]pciModel
	for slot, value := range config {
		if !wire.IsHostPCISlot(slot) {
			continue
		}
		old, declared := prior[slot]
		if !declared && !keepAll {
			continue
		}
		var oldPtr *pciModel
		if declared {
			oldPtr = &old
		}
		dev, err := pciFromValue(value, oldPtr)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", slot, value, err)
		}
		if devices == nil {
			devices = map[string]pciModel{}
		}
		devices[slot] = dev
	}
	return devices, nil
}

// undeclaredPCISlots lists the live hostpciN slots that declared leaves out.
func undeclaredPCISlots(config pveapi.GuestConfig, declared map[string]pciModel) []string {
	var slots []string
	for slot := range config {
		if _, ok := declared[slot]; wire.IsHostPCISlot(slot) && !ok {
			slots = append(slots, slot)
		}
	}
	slices.Sort(slots)
	return slots
}

// parsePCISlot reads a live hostpciN value. A value it cannot read keeps
// none of its options: the device is rewritten whole, as declared.
func parsePCISlot(value string) (map[string]string, error) {
	props, err := wire.ParsePropertyString(value, pciHostKey)
	if err != nil {
		props = map[string]string{}
	}
	return props, nil
}

// value is the hostpciN property string for d, keeping the options of the
// live value the provider does not model.
func (d pciModel) value(live *guestops.LiveSlot[map[string]string]) (string, error) {
	props := map[string]string{}
	if live != nil {
		props = maps.Clone(live.Parsed)
	}
	delete(props, pciHostKey)
	delete(props, pciMappingKey)
	guestops.SetPropString(props, pciHostKey, d.Device)
	guestops.SetPropString(props, pciMappingKey, d.Mapping)
	guestops.SetPropBool(props, pciPCIeKey, d.PCIe)
	guestops.SetPropBool(props, pciXVGAKey, d.XVGA)
	guestops.SetPropBool(props, pciROMBarKey, d.ROMBar)
	guestops.SetPropString(props, pciMDevKey, d.MDev)
	return wire.FormatPropertyString(props, pciHostKey), nil
}

// pciSlots reconciles pci_devices. Slots the plan does not declare are
// never deleted (W42), even when state had them: the plan warns instead.
var pciSlots = guestops.SlotFamily[pciModel, map[string]string]{
	Attr:  "pci_devices",
	Parse: parsePCISlot,
	Value: pciModel.value,
	Same:  samePCIValue,
}

// samePCIValue compares two hostpciN values as PVE means them: the device
// in any accepted form (W42), booleans by value, other options as text.
func samePCIValue(a, b string) bool {
	pa, errA := wire.ParsePropertyString(a, pciHostKey)
	pb, errB := wire.ParsePropertyString(b, pciHostKey)
	if errA != nil || errB != nil {
		return a == b
	}
	if !samePCIDevice(pa[pciHostKey], pb[pciHostKey]) {
		return false
	}
	delete(pa, pciHostKey)
	delete(pb, pciHostKey)
	return maps.EqualFunc(pa, pb, func(x, y string) bool {
		bx, errX := wire.ParsePropertyBool(x)
		by, errY := wire.ParsePropertyBool(y)
		if errX == nil && errY == nil {
			return bx == by
		}
		return x == y
	})
}

// pciDevices writes the declared slots that differ from the live ones.
func (u *configUpdate) pciDevices(_, plan *vmModel, live pveapi.GuestConfig) error {
	_, err := pciSlots.Reconcile(u.delta, plan.PCIDevices, nil, live)
	return err
}

func pciPath(slot, attr string) path.Path {
	p := path.Root("pci_devices").AtMapKey(slot)
	if attr != "" {
		p = p.AtName(attr)
	}
	return p
}

// rootPrincipal is the only identity PVE lets pass through a raw host
// device; a token of root@pam is another identity (W49).
const rootPrincipal = "root@pam"

// checkPCIPlan refuses raw device passthrough the provider's identity may
// not write (W49) and warns about live slots the configuration does not
// declare (W42). state is nil at create; undeclared comes from the last
// refresh.
func checkPCIPlan(state, plan *vmModel, principal string, undeclared []string) []guestops.Issue {
	var issues []guestops.Issue
	if principal != "" && principal != rootPrincipal {
		for _, slot := range slices.Sorted(maps.Keys(plan.PCIDevices)) {
			want := plan.PCIDevices[slot]
			if !guestops.Known(want.Device) {
				continue
			}
			if state != nil {
				if had, ok := state.PCIDevices[slot]; ok && pciUnchanged(had, want) {
					continue
				}
			}
			issues = append(issues, guestops.Issue{
				Path:    pciPath(slot, "device"),
				Summary: "Raw PCI Passthrough Needs root@pam",
				Detail: fmt.Sprintf("PVE lets only root@pam itself set %s to a raw host device (%s): the provider acts as %s, and PVE refuses it "+
					"(\"only root can set '%s' config for non-mapped devices\"), an API token of root@pam included. "+
					"Create a PCI resource mapping for the device (Datacenter > Resource Mappings), grant Mapping.Use on /mapping/pci/NAME, "+
					"and declare mapping = \"NAME\" instead of device; or configure the provider with the root@pam password.",
					slot, want.Device.ValueString(), principal, slot),
			})
		}
	}
	for _, slot := range undeclared {
		if _, declared := plan.PCIDevices[slot]; declared {
			continue
		}
		issues = append(issues, guestops.Issue{
			Path:    path.Root("pci_devices"),
			Summary: "PCI Device Not Managed",
			Detail: fmt.Sprintf("The VM has %s, which the configuration does not declare. The provider leaves it as it is and never removes a "+
				"passthrough device. Declare it in pci_devices to manage it, or remove it in PVE.", slot),
			Warning: true,
		})
	}
	return issues
}

// pciUnchanged reports whether a slot's planned device is the one in state.
func pciUnchanged(had, want pciModel) bool {
	sameDevice := had.Device.Equal(want.Device) || (guestops.Known(had.Device) && guestops.Known(want.Device) &&
		samePCIDevice(had.Device.ValueString(), want.Device.ValueString()))
	if !sameDevice {
		return false
	}
	return had.Mapping.Equal(want.Mapping) && had.PCIe.Equal(want.PCIe) && had.XVGA.Equal(want.XVGA) &&
		had.ROMBar.Equal(want.ROMBar) && had.MDev.Equal(want.MDev)
}
