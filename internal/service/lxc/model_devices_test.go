package lxc

import (
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

// W49: every devN change is root@pam's (pve-container
// check_ct_modify_config_perm): adding, changing or removing a device is
// refused under a token, a device that stays as it is is not.
func TestDeviceIssuesW49(t *testing.T) {
	t.Parallel()
	dev := func(p, mode string) deviceModel {
		return deviceModel{Path: types.StringValue(p), Mode: types.StringValue(mode), UID: types.Int64Null(), GID: types.Int64Null(), DenyWrite: types.BoolNull()}
	}
	state := &containerModel{Devices: map[string]deviceModel{"dev0": dev("/dev/ttyUSB0", "0660"), "dev1": dev("/dev/kvm", "0660")}}
	for _, c := range []struct {
		name  string
		state *containerModel
		plan  map[string]deviceModel
		want  []string
	}{
		{"create", nil, map[string]deviceModel{"dev0": dev("/dev/ttyUSB0", "0660")}, []string{`error devices["dev0"].path: Option Needs root@pam`}},
		{"unchanged", state, state.Devices, nil},
		{"changed and removed", state, map[string]deviceModel{"dev0": dev("/dev/ttyUSB0", "0600")}, []string{
			`error devices["dev0"].path: Option Needs root@pam`, `error devices["dev1"]: Option Needs root@pam`,
		}},
	} {
		if got := issueKeys(deviceIssues(c.state, &containerModel{Devices: c.plan}, "ops@pve!tf")); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestValidDevicePath(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]bool{
		"/dev/ttyUSB0": true, "/dev/dri/renderD128": true, "/dev/../etc/shadow": false, "/dev/./x": false,
		"/dev/..": false, "/etc/passwd": false, "/dev/a,mode=0777": false, "/dev/.hidden": true,
	} {
		if got := validDevicePath(p); got != want {
			t.Errorf("validDevicePath(%q) = %v, want %v", p, got, want)
		}
	}
}
