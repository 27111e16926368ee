package acctest

import (
	"encoding/json"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// stateOf decodes a state as `terraform show -json` prints it.
func stateOf(t *testing.T, text string) *tfjson.State {
	t.Helper()
	var state tfjson.State
	if err := json.Unmarshal([]byte(text), &state); err != nil {
		t.Fatal(err)
	}
	return &state
}

const twoGuests = `{"format_version": "1.0", "values": {"root_module": {"resources": [
  {"address": "pve_vm.test", "mode": "managed", "type": "pve_vm", "name": "test",
   "values": {"node": "pve2", "vmid": 101, "disks": {"scsi0": {"volume": "local-lvm:vm-101-disk-0"}}}},
  {"address": "pve_vm.fleet[1]", "mode": "managed", "type": "pve_vm", "name": "fleet", "index": 1,
   "values": {"node": "pve1", "vmid": 102, "clone": null}}
]}}}`

func TestGuestFromState(t *testing.T) {
	t.Parallel()
	state := stateOf(t, twoGuests)
	g := NewGuest("pve_vm.test")
	if err := g.Load(state); err != nil || g.Node != "pve2" || g.VMID != 101 {
		t.Errorf("Load = %+v, %v", g, err)
	}
	if node, vmid, err := GuestFromState(state, "pve_vm.fleet[1]"); err != nil || node != "pve1" || vmid != 102 {
		t.Errorf("GuestFromState(fleet[1]) = %q, %d, %v", node, vmid, err)
	}
	if _, _, err := GuestFromState(state, "pve_vm.gone"); err == nil || !strings.Contains(err.Error(), "not in state") {
		t.Errorf("GuestFromState(gone) error = %v", err)
	}
	if !InState(state, "pve_vm.test") || InState(state, "pve_vm.gone") || InState(nil, "pve_vm.test") {
		t.Error("InState does not follow the state")
	}
	volume, err := StringAt(state, "pve_vm.test", tfjsonpath.New("disks").AtMapKey("scsi0").AtMapKey("volume"))
	if err != nil || volume != "local-lvm:vm-101-disk-0" {
		t.Errorf("StringAt = %q, %v", volume, err)
	}
	if _, err := StringAt(state, "pve_vm.test", tfjsonpath.New("disks").AtMapKey("scsi1")); err == nil {
		t.Error("StringAt of a missing key: no error")
	}
}

func TestNullOrLacks(t *testing.T) {
	t.Parallel()
	check := NullOrLacks("scsi1")
	for _, tc := range []struct {
		value any
		ok    bool
	}{
		{nil, true},
		{map[string]any{"scsi0": map[string]any{}}, true},
		{map[string]any{"scsi1": nil}, true},
		{map[string]any{"scsi1": map[string]any{"size": "4"}}, false},
		{"scsi1", false},
	} {
		if err := check.CheckValue(tc.value); (err == nil) != tc.ok {
			t.Errorf("NullOrLacks(scsi1).CheckValue(%v) = %v, want ok=%v", tc.value, err, tc.ok)
		}
	}
}
