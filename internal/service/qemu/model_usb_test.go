package qemu

import (
	"net/url"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

func usbIssuePaths(state, plan *vmModel, principal string) []string {
	var out []string
	for _, i := range checkUSBPlan(state, plan, principal) {
		out = append(out, i.Path.String())
	}
	return out
}

// W49: PVE checks a USB slot's old value and its new one, so under a
// token setting, changing or removing a raw host device is refused, and a
// slot that stays as it is (in any spelling of its id) is not; "spice" and
// mappings pass; root@pam itself passes.
func TestCheckUSBPlanW49(t *testing.T) {
	t.Parallel()
	host := func(h string, usb3 bool) usbModel {
		return usbModel{Host: types.StringValue(h), Mapping: types.StringNull(), USB3: types.BoolValue(usb3)}
	}
	mapped := usbModel{Host: types.StringNull(), Mapping: types.StringValue("stick"), USB3: types.BoolNull()}
	spice := usbModel{Host: types.StringValue("spice"), Mapping: types.StringNull(), USB3: types.BoolNull()}
	state := &vmModel{USBDevices: map[string]usbModel{"usb0": host("046d:c52b", false), "usb1": host("1-2", false), "usb2": mapped}}
	for _, c := range []struct {
		name      string
		state     *vmModel
		plan      map[string]usbModel
		principal string
		want      []string
	}{
		{"create", nil, map[string]usbModel{"usb0": host("046d:c52b", false), "usb1": spice, "usb2": mapped}, "ops@pve!tf", []string{`usb_devices["usb0"].host`}},
		{"as root", nil, map[string]usbModel{"usb0": host("046d:c52b", false)}, "root@pam", nil},
		{"unchanged, other spelling", state, map[string]usbModel{"usb0": host("0x046D:0xC52B", false), "usb1": host("1-2", false), "usb2": mapped}, "root@pam!tf", nil},
		{"usb3 changed", state, map[string]usbModel{"usb0": host("046d:c52b", true), "usb1": host("1-2", false), "usb2": mapped}, "root@pam!tf", []string{`usb_devices["usb0"].host`}},
		{"host replaced by a mapping", state, map[string]usbModel{"usb0": mapped, "usb1": host("1-2", false), "usb2": mapped}, "root@pam!tf", []string{`usb_devices["usb0"].host`}},
		{"host removed, mapping removed", state, map[string]usbModel{"usb0": host("046d:c52b", false)}, "root@pam!tf", []string{`usb_devices["usb1"]`}},
	} {
		got := usbIssuePaths(c.state, &vmModel{USBDevices: c.plan}, c.principal)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: issues at %v, want %v", c.name, got, c.want)
		}
	}
}

// A usbN or virtiofsN value PVE spells another way plans nothing; a
// changed option is written; the options the provider does not model are
// kept; a dropped slot is deleted and an undeclared one left alone.
func TestGuestDeviceSlotsReconcile(t *testing.T) {
	t.Parallel()
	live := pveapi.GuestConfig{
		"usb0":      "0x046D:0xC52B,usb3=0",
		"usb1":      "mapping=stick",
		"usb3":      "spice",
		"virtiofs0": "share,cache=never,expose-acl=1,future-option=x",
	}
	plan := &vmModel{
		USBDevices: map[string]usbModel{"usb0": {Host: types.StringValue("046d:c52b"), Mapping: types.StringNull(), USB3: types.BoolValue(false)}},
		Virtiofs: map[string]virtiofsModel{"virtiofs0": {
			Mapping: types.StringValue("share"), Cache: types.StringValue("always"), ExposeACL: types.BoolValue(true),
			ExposeXattr: types.BoolNull(), DirectIO: types.BoolNull(),
		}},
	}
	state := &vmModel{
		USBDevices: map[string]usbModel{"usb0": plan.USBDevices["usb0"], "usb1": {Mapping: types.StringValue("stick")}},
		Virtiofs:   plan.Virtiofs,
	}
	u := &configUpdate{delta: &wire.ConfigDelta{}}
	if err := u.guestDevices(state, plan, live); err != nil {
		t.Fatal(err)
	}
	form := u.delta.Values()
	want := url.Values{"virtiofs0": {"share,cache=always,expose-acl=1,future-option=x"}, "delete": {"usb1"}}
	if form.Encode() != want.Encode() {
		t.Errorf("update = %v, want %v", form, want)
	}
}
