package lxc

import (
	"fmt"
	"maps"
	"regexp"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// deviceModel is one host device of `devices`, keyed by its devN slot.
type deviceModel struct {
	Path      types.String `tfsdk:"path"`
	Mode      types.String `tfsdk:"mode"`
	UID       types.Int64  `tfsdk:"uid"`
	GID       types.Int64  `tfsdk:"gid"`
	DenyWrite types.Bool   `tfsdk:"deny_write"`
}

var (
	deviceOptions = []string{wire.LXCDevPathKey, wire.LXCDevModeKey, wire.LXCDevUIDKey, wire.LXCDevGIDKey, wire.LXCDevDenyWriteKey}
	// devicePathPattern is pve-lxc-dev-string: a path under /dev/ without
	// "." or ".." components (pve-container src/PVE/LXC/Config.pm
	// verify_lxc_dev_string), and without a comma, which would end the
	// property string.
	devicePathPattern = regexp.MustCompile(`^/dev/[^,]*$`)
	deviceDotPattern  = regexp.MustCompile(`/\.\.?(?:/|$)`)
)

func validDevicePath(p string) bool {
	return devicePathPattern.MatchString(p) && !deviceDotPattern.MatchString(p)
}

// devicesFromAPI reads every devN slot; the resource keeps in state only
// the slots the configuration declares.
func devicesFromAPI(config pveapi.GuestConfig) (map[string]deviceModel, error) {
	var devices map[string]deviceModel
	for slot, value := range config {
		if !wire.IsLXCDevSlot(slot) {
			continue
		}
		props, err := wire.ParsePropertyString(value, wire.LXCDevPathKey)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", slot, value, err)
		}
		dev := deviceModel{
			Path: guestops.PropString(props, wire.LXCDevPathKey),
			Mode: guestops.PropString(props, wire.LXCDevModeKey),
		}
		if dev.UID, err = guestops.PropInt(props, wire.LXCDevUIDKey); err == nil {
			if dev.GID, err = guestops.PropInt(props, wire.LXCDevGIDKey); err == nil {
				dev.DenyWrite, err = guestops.PropBool(props, wire.LXCDevDenyWriteKey)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", slot, value, err)
		}
		if devices == nil {
			devices = map[string]deviceModel{}
		}
		devices[slot] = dev
	}
	return devices, nil
}

func (d deviceModel) value(live *guestops.LiveSlot[map[string]string]) (string, error) {
	props := map[string]string{}
	if live != nil {
		props = maps.Clone(live.Parsed)
	}
	guestops.SetPropString(props, wire.LXCDevPathKey, d.Path)
	guestops.SetPropString(props, wire.LXCDevModeKey, d.Mode)
	guestops.SetPropInt(props, wire.LXCDevUIDKey, d.UID)
	guestops.SetPropInt(props, wire.LXCDevGIDKey, d.GID)
	guestops.SetPropBool(props, wire.LXCDevDenyWriteKey, d.DenyWrite)
	return wire.FormatPropertyString(props, wire.LXCDevPathKey), nil
}

// sameDeviceValue compares two devN values: booleans by value, the rest as
// text.
func sameDeviceValue(a, b string) bool {
	pa, errA := wire.ParsePropertyString(a, wire.LXCDevPathKey)
	pb, errB := wire.ParsePropertyString(b, wire.LXCDevPathKey)
	if errA != nil || errB != nil {
		return a == b
	}
	return maps.EqualFunc(pa, pb, func(x, y string) bool {
		bx, errX := wire.ParsePropertyBool(x)
		by, errY := wire.ParsePropertyBool(y)
		if errX == nil && errY == nil {
			return bx == by
		}
		return x == y
	})
}

// deviceSlots reconciles devices: a declared slot is set, a slot the
// configuration drops is deleted, undeclared slots are left alone.
var deviceSlots = guestops.SlotFamily[deviceModel, map[string]string]{
	Attr: "devices",
	Parse: func(value string) (map[string]string, error) {
		props, err := wire.ParsePropertyString(value, wire.LXCDevPathKey)
		if err != nil {
			props = map[string]string{}
		}
		return props, nil
	},
	Value:  deviceModel.value,
	Same:   sameDeviceValue,
	Remove: guestops.RemoveSlot,
}

// deviceIssues refuses, under any login but root@pam with a password,
// adding, changing or removing a device: PVE reserves every devN change to
// root@pam, and containers have no resource mappings to go through
// (pve-container src/PVE/LXC.pm check_ct_modify_config_perm).
func deviceIssues(state, plan *containerModel, principal string) []guestops.Issue {
	var prior map[string]deviceModel
	if state != nil {
		prior = state.Devices
	}
	slots := slices.Collect(maps.Keys(plan.Devices))
	for slot := range prior {
		if _, ok := plan.Devices[slot]; !ok {
			slots = append(slots, slot)
		}
	}
	slices.Sort(slots)
	why := "PVE lets only root@pam add, change or remove a container's devices, and has no resource mapping for them"
	var issues []guestops.Issue
	for _, slot := range slots {
		want, planned := plan.Devices[slot]
		had, held := prior[slot]
		if planned && held && want == had {
			continue
		}
		p := path.Root("devices").AtMapKey(slot)
		if planned {
			p = p.AtName("path")
		}
		issues = append(issues, rootOnlyIssue(p, "devices."+slot, principal, why, state == nil))
	}
	return issues
}

func devicesSchema() schema.MapNestedAttribute {
	return schema.MapNestedAttribute{
		MarkdownDescription: "Host devices passed through to the container, keyed by slot (`dev0`-`dev255`). PVE lets only root@pam, " +
			"logged in with a password, add, change or remove one (API tokens are refused, even root@pam's own), so a plan that touches " +
			"a device under any other identity is refused; containers have no resource mappings. PVE checks that the path is a device on " +
			"the node. Removing a slot from the map removes the device from the container; devices the configuration never declared are left alone.",
		Optional: true,
		Validators: []validator.Map{
			mapvalidator.SizeAtLeast(1),
			mapvalidator.KeysAre(fwutil.Format(wire.IsLXCDevSlot, "must be a device slot: dev0-dev255")),
		},
		NestedObject: schema.NestedAttributeObject{
			Attributes: map[string]schema.Attribute{
				"path": schema.StringAttribute{
					MarkdownDescription: "Path of the device on the node, under `/dev/` (e.g. `/dev/ttyUSB0`, `/dev/dri/renderD128`).",
					Required:            true,
					Validators:          []validator.String{fwutil.Format(validDevicePath, "must be a device path under /dev/ without . or .. components")},
				},
				"mode": schema.StringAttribute{
					MarkdownDescription: "Access mode of the device node in the container, in octal with a leading 0 (e.g. `0660`).",
					Optional:            true,
					Validators:          []validator.String{stringvalidator.RegexMatches(wire.LXCDevModePattern, "must be an octal mode such as 0660")},
				},
				"uid": schema.Int64Attribute{
					MarkdownDescription: "Owner (user id inside the container) of the device node.",
					Optional:            true,
					Validators:          []validator.Int64{int64validator.AtLeast(0)},
				},
				"gid": schema.Int64Attribute{
					MarkdownDescription: "Group (group id inside the container) of the device node.",
					Optional:            true,
					Validators:          []validator.Int64{int64validator.AtLeast(0)},
				},
				"deny_write": schema.BoolAttribute{MarkdownDescription: "Give the container read-only access to the device (`deny-write`).", Optional: true},
			},
		},
	}
}
