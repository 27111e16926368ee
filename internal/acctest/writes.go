package acctest

import (
	"fmt"
	"strings"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
)

// WriteWatch asserts that a test step sent no write (anything but a GET)
// to one guest of the simulator: Mark, as the step's PreConfig, counts the
// writes so far; None, in its state checks, fails when there are more.
type WriteWatch struct {
	tg *Target
	// guestPath is the guest's API path, "/nodes/NODE/qemu/VMID", known
	// only once the guest exists.
	guestPath func() string
	before    int
}

// NewWriteWatch watches the guest at guestPath.
func NewWriteWatch(tg *Target, guestPath func() string) *WriteWatch {
	return &WriteWatch{tg: tg, guestPath: guestPath}
}

func (w *WriteWatch) count() int {
	prefix := w.guestPath()
	n := 0
	for _, rec := range w.tg.Sim.Requests() {
		if rec.Method != "GET" && (rec.Path == prefix || strings.HasPrefix(rec.Path, prefix+"/")) {
			n++
		}
	}
	return n
}

// Mark counts the writes sent so far.
func (w *WriteWatch) Mark() { w.before = w.count() }

// None fails when writes were sent to the guest since Mark.
func (w *WriteWatch) None() statecheck.StateCheck {
	return CheckState(func(*tfjson.State) error {
		if after := w.count(); after != w.before {
			return fmt.Errorf("the step sent %d writes to %s, want none", after-w.before, w.guestPath())
		}
		return nil
	})
}
