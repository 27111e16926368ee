package qemu

import (
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// W42: every form PVE accepts for a host PCI address compares equal, in
// any case; a function-less address (all functions) is another device.
func TestSamePCIDeviceFormsW42(t *testing.T) {
	t.Parallel()
	for _, pair := range [][2]string{
		{"0000:17:00.0", "17:00.0"},
		{"0000:AB:00.1", "ab:00.1"},
		{"0000:17:00", "17:00"},
		{"0000:17:00.0;0000:17:00.1", "17:00.0;17:00.1"},
	} {
		if !samePCIDevice(pair[0], pair[1]) {
			t.Errorf("%q and %q must compare equal", pair[0], pair[1])
		}
	}
	if samePCIDevice("0000:17:00", "17:00.0") || samePCIDevice("17:00.0", "18:00.0") {
		t.Error("different devices compare equal")
	}
	if !samePCIValue("17:00.0,pcie=1", "0000:17:00.0,pcie=on") || samePCIValue("17:00.0,pcie=1", "17:00.0") {
		t.Error("samePCIValue compares wrongly")
	}
}

// W42: fromAPI keeps the configuration's spelling of an equal address and
// only the declared slots; an import takes them all.
func TestPCIDevicesFromAPIDeclaredOnlyW42(t *testing.T) {
	t.Parallel()
	config := pveapi.GuestConfig{"hostpci0": "0000:17:00.0,pcie=1", "hostpci1": "mapping=nic0"}
	prior := map[string]pciModel{"hostpci0": {Device: types.StringValue("17:00.0")}}
	got, err := pciDevicesFromAPI(config, prior, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got["hostpci0"].Device.ValueString() != "17:00.0" || !got["hostpci0"].PCIe.ValueBool() {
		t.Errorf("declared read = %+v", got)
	}
	if all, _ := pciDevicesFromAPI(config, nil, true); len(all) != 2 || all["hostpci1"].Mapping.ValueString() != "nic0" {
		t.Errorf("import read = %+v", all)
	}
	if slots := undeclaredPCISlots(config, got); !slices.Equal(slots, []string{"hostpci1"}) {
		t.Errorf("undeclared = %v", slots)
	}
	// A slot the plan drops is never deleted.
	u := &configUpdate{delta: &wire.ConfigDelta{}, detached: map[string]string{}}
	if err := u.pciDevices(&vmModel{PCIDevices: got}, &vmModel{}, config); err != nil || !u.delta.IsEmpty() {
		t.Errorf("dropping a slot sent %v %v (err %v)", u.delta.SetKeys(), u.delta.Deleted(), err)
	}
}

// W49: a raw device is refused for every identity but root@pam; a mapping
// is fine, and so is an unchanged raw device.
func TestCheckPCIPlanRawDeviceW49(t *testing.T) {
	t.Parallel()
	raw := &vmModel{PCIDevices: map[string]pciModel{"hostpci0": {Device: types.StringValue("17:00.0")}}}
	mapped := &vmModel{PCIDevices: map[string]pciModel{"hostpci0": {Mapping: types.StringValue("gpu0")}}}
	if issues := checkPCIPlan(nil, raw, "root@pam!tf", nil); len(issues) != 1 || issues[0].Warning {
		t.Errorf("token: %v", issues)
	}
	if issues := checkPCIPlan(nil, raw, "root@pam", nil); len(issues) != 0 {
		t.Errorf("root@pam: %v", issues)
	}
	if issues := checkPCIPlan(nil, mapped, "tf@pve!tf", nil); len(issues) != 0 {
		t.Errorf("mapping: %v", issues)
	}
	if issues := checkPCIPlan(raw, raw, "root@pam!tf", []string{"hostpci3"}); len(issues) != 1 || !issues[0].Warning {
		t.Errorf("unchanged raw device plus an undeclared slot: %v", issues)
	}
}

// W49: a new disk imported from a file system path is root@pam's alone
// (pve-storage check_volume_access); a volume id, a disk already made, or
// root@pam itself plan without an issue.
func TestCheckImportPathPlanW49(t *testing.T) {
	t.Parallel()
	fromPath := &vmModel{Disks: map[string]diskModel{"scsi0": {ImportFrom: types.StringValue("/var/tmp/disk.qcow2")}}}
	fromVolume := &vmModel{Disks: map[string]diskModel{"scsi0": {ImportFrom: types.StringValue("local:import/disk.qcow2")}}}
	if issues := checkImportPathPlan(nil, fromPath, "root@pam!tf"); len(issues) != 1 || issues[0].Warning {
		t.Errorf("token: %v", issues)
	}
	if issues := checkImportPathPlan(nil, fromPath, "root@pam"); len(issues) != 0 {
		t.Errorf("root@pam: %v", issues)
	}
	if issues := checkImportPathPlan(nil, fromVolume, "tf@pve!tf"); len(issues) != 0 {
		t.Errorf("volume id: %v", issues)
	}
	if issues := checkImportPathPlan(fromPath, fromPath, "tf@pve!tf"); len(issues) != 0 {
		t.Errorf("existing disk: %v", issues)
	}
}

// W41: ms-cert is kept on the rewrite and never compared.
func TestEFIDiskLiveFormKeepsMSCertW41(t *testing.T) {
	t.Parallel()
	live := pveapi.GuestConfig{"efidisk0": "local-lvm:vm-100-disk-1,efitype=4m,ms-cert=2023,pre-enrolled-keys=1,size=4M"}
	state := &vmModel{}
	if err := state.fromAPI(100, live, nil); err != nil {
		t.Fatal(err)
	}
	plan := *state
	efi := *state.EFIDisk
	plan.EFIDisk = &efi
	u := &configUpdate{delta: &wire.ConfigDelta{}, detached: map[string]string{}}
	if err := u.efiDisk(state, &plan, live); err != nil || !u.delta.IsEmpty() {
		t.Fatalf("no change sent %v (err %v)", u.delta.Values(), err)
	}
	efi.PreEnrolledKeys = types.BoolValue(false)
	if err := u.efiDisk(state, &plan, live); err != nil {
		t.Fatal(err)
	}
	if got := u.delta.Values().Get("efidisk0"); got != "local-lvm:vm-100-disk-1,efitype=4m,ms-cert=2023,pre-enrolled-keys=0,size=4M" {
		t.Errorf("efidisk0 = %q", got)
	}
	if !sameFirmwareDrive("local-lvm:vm-1-disk-1,efitype=4m,pre-enrolled-keys=1", "local-lvm:vm-1-disk-1,efitype=4m,ms-cert=2023,pre-enrolled-keys=1") {
		t.Error("ms-cert must not be compared")
	}
}

func TestGuestAddressesLeaveOutLoopbackAndLinkLocal(t *testing.T) {
	t.Parallel()
	v4, v6 := guestAddresses([]pveapi.AgentInterface{
		{Name: "lo", IPAddresses: []pveapi.AgentIPAddress{{Address: "127.0.0.1", Type: "ipv4"}, {Address: "::1", Type: "ipv6"}}},
		{Name: "eth0", IPAddresses: []pveapi.AgentIPAddress{
			{Address: "10.0.0.5", Type: "ipv4"}, {Address: "fe80::1%eth0", Type: "ipv6"}, {Address: "169.254.3.4", Type: "ipv4"},
			{Address: "2001:db8::5", Type: "ipv6"}, {Address: "10.0.0.5", Type: "ipv4"},
		}},
	})
	if !slices.Equal(v4, []string{"10.0.0.5"}) || !slices.Equal(v6, []string{"2001:db8::5"}) {
		t.Errorf("v4 %v v6 %v", v4, v6)
	}
}
