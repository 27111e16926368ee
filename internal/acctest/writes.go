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

// NewPathWriteWatch watches every path at or below prefix, for objects
// that are not guests (a firewall's rules: "/cluster/firewall/rules").
func NewPathWriteWatch(tg *Target, prefix string) *WriteWatch {
	return &WriteWatch{tg: tg, guestPath: func() string { return prefix }}
}

// writes lists the writes sent so far, as "METHOD PATH".
func (w *WriteWatch) writes() []string {
	prefix := w.guestPath()
	var out []string
	for _, rec := range w.tg.Sim.Requests() {
		if rec.Method != "GET" && (rec.Path == prefix || strings.HasPrefix(rec.Path, prefix+"/")) {
			out = append(out, rec.Method+" "+rec.Path)
		}
	}
	return out
}

func (w *WriteWatch) count() int { return len(w.writes()) }

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

// Exactly fails unless the writes since Mark are want, in order, each
// "METHOD PATH".
func (w *WriteWatch) Exactly(want ...string) statecheck.StateCheck {
	return CheckState(func(*tfjson.State) error {
		got := w.writes()[w.before:]
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			return fmt.Errorf("writes to %s since the mark:\n  %s\nwant:\n  %s", w.guestPath(),
				strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
		return nil
	})
}
