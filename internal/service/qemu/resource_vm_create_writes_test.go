package qemu_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

// guestWrites lists the writes (anything but a GET) sent since the last
// ResetCounters to node's guests of guestType, as "METHOD path" with the
// VMID written as VMID.
func guestWrites(tg *acctest.Target, node, guestType string, vmid int) []string {
	prefix := fmt.Sprintf("/nodes/%s/%s", node, guestType)
	var out []string
	for _, rec := range tg.Sim.Requests() {
		if rec.Method == "GET" || rec.Path != prefix && !strings.HasPrefix(rec.Path, prefix+"/") {
			continue
		}
		out = append(out, rec.Method+" "+strings.Replace(rec.Path, fmt.Sprintf("%s/%d", prefix, vmid), prefix+"/VMID", 1))
	}
	return out
}

// createWritesStep is the step that creates the VM of body and checks
// that it sent exactly want to node pve1's VMs.
func createWritesStep(tg *acctest.Target, vm *vmRef, body string, want []string) resource.TestStep {
	return resource.TestStep{
		PreConfig: tg.Sim.ResetCounters,
		Config:    vmConfig(tg, body),
		ConfigStateChecks: []statecheck.StateCheck{
			vm.record(),
			acctest.CheckState(func(*tfjson.State) error {
				if got := guestWrites(tg, "pve1", "qemu", vm.VMID); !slices.Equal(got, want) {
					return fmt.Errorf("creating the VM sent %q, want %q", got, want)
				}
				return nil
			}),
		},
	}
}

// One created VM costs the create request and one config write that
// removes the creation marker, plus the start when it is to run: the
// marker has to outlive every step that can fail after the create, the
// start included, and no config write follows the start (see the
// guest-identity guide). Adding a write per created guest fails here.
func TestAccVMCreateWritesPerGuest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		started bool
		want    []string
	}{
		{false, []string{"POST /nodes/pve1/qemu", "PUT /nodes/pve1/qemu/VMID/config"}},
		{true, []string{"POST /nodes/pve1/qemu", "POST /nodes/pve1/qemu/VMID/status/start", "PUT /nodes/pve1/qemu/VMID/config"}},
	} {
		t.Run(fmt.Sprintf("started=%v", tc.started), func(t *testing.T) {
			t.Parallel()
			tg := acctest.New(t)
			needsSim(t, tg)
			vm := newVMRef(tg)
			tg.Run(t, resource.TestCase{Steps: []resource.TestStep{createWritesStep(tg, vm, fmt.Sprintf(`
  node    = "pve1"
  name    = "writes-1"
  started = %v
  disks = {
    scsi0 = { storage = "local-lvm", size = 2 }
  }
  network = {
    net0 = { bridge = "vmbr0" }
  }
`, tc.started), tc.want)}})
		})
	}
}

// A clone costs the clone request, the one config write that turns it into
// the configuration, and the marker's own write: the disk tasks and the
// start that may follow the config write must not find the clone unmarked.
func TestAccVMCloneWritesPerGuest(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	needsSim(t, tg)
	makeTemplate(t, tg, "pve1", "local-lvm")
	vm := newVMRef(tg)
	tg.Run(t, resource.TestCase{Steps: []resource.TestStep{createWritesStep(tg, vm, fmt.Sprintf(`
  node    = "pve1"
  name    = "writes-clone"
  started = false
  clone   = { source_vmid = %d }
`, templateVMID), []string{"POST /nodes/pve1/qemu/9000/clone", "PUT /nodes/pve1/qemu/VMID/config", "PUT /nodes/pve1/qemu/VMID/config"})}})
}
