package qemu_test

import (
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

// The PVE 8.4 smoke tests: the main VM paths against the simulator serving
// PVE 8.4; the rest of the suite runs against 9.x.

func TestAccVM_pve84CreateAndImport(t *testing.T) {
	t.Parallel()
	testVMCreateAndImport(t, acctest.NewOnPVE(t, "8.4"))
}

func TestAccVM_pve84InPlaceUpdates(t *testing.T) {
	t.Parallel()
	testVMInPlaceUpdates(t, acctest.NewOnPVE(t, "8.4"))
}
