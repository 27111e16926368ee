package qemu

import (
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// usbModel is one USB device of `usb_devices`, keyed by its usbN slot.
type usbModel struct {
	Mapping types.String `tfsdk:"mapping"`
	Host    types.String `tfsdk:"host"`
	USB3    types.Bool   `tfsdk:"usb3"`
}

// virtiofsModel is one shared directory of `virtiofs`, keyed by its
// virtiofsN slot.
type virtiofsModel struct {
	Mapping     types.String `tfsdk:"mapping"`
	Cache       types.String `tfsdk:"cache"`
	ExposeXattr types.Bool   `tfsdk:"expose_xattr"`
	ExposeACL   types.Bool   `tfsdk:"expose_acl"`
	DirectIO    types.Bool   `tfsdk:"direct_io"`
}

var (
	usbOptions      = []string{wire.USBHostKey, wire.USBMappingKey, wire.USB3Key}
	virtiofsOptions = []string{wire.VirtiofsDirKey, wire.VirtiofsCacheKey, wire.VirtiofsXattrKey, wire.VirtiofsACLKey, wire.VirtiofsDirectIOKey}
)

// usbFromValue reads one live usbN value; prior's spelling of the host
// device is kept when PVE names the same device another way.
func usbFromValue(value string, prior *usbModel) (usbModel, error) {
	props, err := wire.ParsePropertyString(value, wire.USBHostKey)
	if err != nil {
		return usbModel{}, err
	}
	dev := usbModel{
		Host:    guestops.PropString(props, wire.USBHostKey),
		Mapping: guestops.PropString(props, wire.USBMappingKey),
	}
	if dev.USB3, err = guestops.PropBool(props, wire.USB3Key); err != nil {
		return usbModel{}, err
	}
	if prior != nil && guestops.Known(prior.Host) && guestops.Known(dev.Host) && wire.SameUSBHost(prior.Host.ValueString(), dev.Host.ValueString()) {
		dev.Host = prior.Host
	}
	return dev, nil
}

func virtiofsFromValue(value string, _ *virtiofsModel) (virtiofsModel, error) {
	props, err := wire.ParsePropertyString(value, wire.VirtiofsDirKey)
	if err != nil {
		return virtiofsModel{}, err
	}
	fs := virtiofsModel{
		Mapping: guestops.PropString(props, wire.VirtiofsDirKey),
		Cache:   guestops.PropString(props, wire.VirtiofsCacheKey),
	}
	for _, b := range []struct {
		key    string
		target *types.Bool
	}{{wire.VirtiofsXattrKey, &fs.ExposeXattr}, {wire.VirtiofsACLKey, &fs.ExposeACL}, {wire.VirtiofsDirectIOKey, &fs.DirectIO}} {
		if *b.target, err = guestops.PropBool(props, b.key); err != nil {
			return virtiofsModel{}, err
		}
	}
	return fs, nil
}

// devicesFromAPI reads the live slots of one device family that prior
// declares; with keepAll (an import) every live slot. Slots the
// configuration does not declare are left alone.
func devicesFromAPI[M any](config pveapi.GuestConfig, isSlot func(string) bool, prior map[string]M, keepAll bool,
	read func(string, *M) (M, error),
) (map[string]M, error) {
	var devices map[string]M
	for slot, value := range config {
		if !isSlot(slot) {
			continue
		}
		old, declared := prior[slot]
		if !declared && !keepAll {
			continue
		}
		var oldPtr *M
		if declared {
			oldPtr = &old
		}
		dev, err := read(value, oldPtr)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", slot, value, err)
		}
		if devices == nil {
			devices = map[string]M{}
		}
		devices[slot] = dev
	}
	return devices, nil
}

// parseProps reads a live value as a property string. A value it cannot
// read keeps none of its options: the slot is rewritten whole, as declared.
func parseProps(defaultKey string) func(string) (map[string]string, error) {
	return func(value string) (map[string]string, error) {
		props, err := wire.ParsePropertyString(value, defaultKey)
		if err != nil {
			props = map[string]string{}
		}
		return props, nil
	}
}

func liveProps(live *guestops.LiveSlot[map[string]string]) map[string]string {
	if live == nil {
		return map[string]string{}
	}
	return maps.Clone(live.Parsed)
}

func (d usbModel) value(live *guestops.LiveSlot[map[string]string]) (string, error) {
	props := liveProps(live)
	guestops.SetPropString(props, wire.USBHostKey, d.Host)
	guestops.SetPropString(props, wire.USBMappingKey, d.Mapping)
	guestops.SetPropBool(props, wire.USB3Key, d.USB3)
	return wire.FormatPropertyString(props, wire.USBHostKey), nil
}

func (d virtiofsModel) value(live *guestops.LiveSlot[map[string]string]) (string, error) {
	props := liveProps(live)
	guestops.SetPropString(props, wire.VirtiofsDirKey, d.Mapping)
	guestops.SetPropString(props, wire.VirtiofsCacheKey, d.Cache)
	guestops.SetPropBool(props, wire.VirtiofsXattrKey, d.ExposeXattr)
	guestops.SetPropBool(props, wire.VirtiofsACLKey, d.ExposeACL)
	guestops.SetPropBool(props, wire.VirtiofsDirectIOKey, d.DirectIO)
	return wire.FormatPropertyString(props, wire.VirtiofsDirKey), nil
}

// samePropsValue compares two property strings as PVE means them: the
// default key's value with same, booleans by value, other options as text.
func samePropsValue(defaultKey string, same func(a, b string) bool) func(a, b string) bool {
	return func(a, b string) bool {
		pa, errA := wire.ParsePropertyString(a, defaultKey)
		pb, errB := wire.ParsePropertyString(b, defaultKey)
		if errA != nil || errB != nil {
			return a == b
		}
		if !same(pa[defaultKey], pb[defaultKey]) {
			return false
		}
		delete(pa, defaultKey)
		delete(pb, defaultKey)
		return maps.EqualFunc(pa, pb, func(x, y string) bool {
			bx, errX := wire.ParsePropertyBool(x)
			by, errY := wire.ParsePropertyBool(y)
			if errX == nil && errY == nil {
				return bx == by
			}
			return x == y
		})
	}
}

func sameText(a, b string) bool { return a == b }

// usbSlots reconciles usb_devices: a declared slot is set, a slot the
// configuration drops is deleted, undeclared slots are left alone.
var usbSlots = guestops.SlotFamily[usbModel, map[string]string]{
	Attr:   "usb_devices",
	Parse:  parseProps(wire.USBHostKey),
	Value:  usbModel.value,
	Same:   samePropsValue(wire.USBHostKey, wire.SameUSBHost),
	Remove: guestops.RemoveSlot,
}

// virtiofsSlots reconciles virtiofs like usbSlots.
var virtiofsSlots = guestops.SlotFamily[virtiofsModel, map[string]string]{
	Attr:   "virtiofs",
	Parse:  parseProps(wire.VirtiofsDirKey),
	Value:  virtiofsModel.value,
	Same:   samePropsValue(wire.VirtiofsDirKey, sameText),
	Remove: guestops.RemoveSlot,
}

// guestDevices writes the usbN and virtiofsN slots that differ from the
// live ones and deletes those the configuration dropped.
func (u *configUpdate) guestDevices(state, plan *vmModel, live pveapi.GuestConfig) error {
	var priorUSB map[string]usbModel
	var priorFS map[string]virtiofsModel
	if state != nil {
		priorUSB, priorFS = state.USBDevices, state.Virtiofs
	}
	if _, err := usbSlots.Reconcile(u.delta, plan.USBDevices, priorUSB, live); err != nil {
		return err
	}
	_, err := virtiofsSlots.Reconcile(u.delta, plan.Virtiofs, priorFS, live)
	return err
}

// checkUSBPlan refuses what PVE lets only root@pam itself do with a USB
// device (W49): setting, changing or removing a slot that holds or would
// hold a raw host device (check_usb_perm checks the old value and the new
// one). "spice" and mappings are anyone's with the privileges.
func checkUSBPlan(state, plan *vmModel, principal string) []guestops.Issue {
	if principal == "" || principal == rootPrincipal {
		return nil
	}
	var prior map[string]usbModel
	if state != nil {
		prior = state.USBDevices
	}
	slots := slices.Sorted(maps.Keys(plan.USBDevices))
	for slot := range prior {
		if _, ok := plan.USBDevices[slot]; !ok {
			slots = append(slots, slot)
		}
	}
	slices.Sort(slots)
	var issues []guestops.Issue
	for _, slot := range slots {
		want, planned := plan.USBDevices[slot]
		had, held := prior[slot]
		if planned && held && usbUnchanged(had, want) {
			continue
		}
		var raw types.String
		var verb string
		switch {
		case planned && rawUSBHost(want.Host):
			raw, verb = want.Host, "set"
		case held && rawUSBHost(had.Host):
			raw, verb = had.Host, "change or remove"
		default:
			continue
		}
		p := path.Root("usb_devices").AtMapKey(slot)
		if planned {
			p = p.AtName("host")
		}
		issues = append(issues, guestops.Issue{
			Path:    p,
			Summary: "Raw USB Passthrough Needs root@pam",
			Detail: fmt.Sprintf("PVE lets only root@pam itself %s %s with a host USB device (%s): the provider acts as %s, and PVE refuses it "+
				"(\"only root can set '%s' config for real devices\"), an API token of root@pam included. "+
				"Create a USB resource mapping for the device (pve_usb_mapping, or Datacenter > Resource Mappings), grant Mapping.Use on /mapping/usb/NAME, "+
				"and declare mapping = \"NAME\" instead of host; or configure the provider with the root@pam password.",
				verb, slot, raw.ValueString(), principal, slot),
		})
	}
	return issues
}

// rawUSBHost reports whether host names a host device (not "spice").
func rawUSBHost(host types.String) bool {
	return guestops.Known(host) && wire.CanonicalUSBHost(host.ValueString()) != "spice"
}

// usbUnchanged reports whether a slot's planned device is the one in state.
func usbUnchanged(had, want usbModel) bool {
	sameHost := had.Host.Equal(want.Host) || (guestops.Known(had.Host) && guestops.Known(want.Host) &&
		wire.SameUSBHost(had.Host.ValueString(), want.Host.ValueString()))
	return sameHost && had.Mapping.Equal(want.Mapping) && had.USB3.Equal(want.USB3)
}
