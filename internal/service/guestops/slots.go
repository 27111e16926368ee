package guestops

import (
	"fmt"
	"maps"
	"net/url"
	"slices"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// A slot family is one kind of numbered config key that a guest resource
// keeps as a map keyed by slot: a VM's disks, CD-ROMs, NICs and PCI
// devices, a container's mount points and NICs. Every family turns the live
// config into the plan the same way (Reconcile); what differs is the
// family's own rules, which each family names alike:
//
//   - parseXSlot reads a live slot value, and for a slot that may hold
//     different things, tells what it holds;
//   - the slot model's value method renders the slot's config value: for an
//     empty slot when live is nil, else from the live slot, keeping what the
//     provider does not model (W21);
//   - sameXValue tells whether two values of the slot say the same;
//   - xSlots is the family (a SlotFamily) that puts the three together.

// LiveSlot is one slot of the live config: its value as PVE reports it, and
// that value as the family parsed it.
type LiveSlot[L any] struct {
	Value  string
	Parsed L
}

// SlotFamily is the rules of one slot family, for planned slot models M and
// parsed live slots L.
type SlotFamily[M, L any] struct {
	// Attr is the family's attribute, which errors name ("disks").
	Attr string
	// Parse reads a live slot value. An error stops the update: a slot the
	// provider cannot read is never rewritten.
	Parse func(value string) (L, error)
	// Value renders want's config value. live is nil for an empty slot; an
	// error refuses the slot (one that holds something else, say).
	Value func(want M, live *LiveSlot[L]) (string, error)
	// Same tells whether a rendered value says what the live one says, in
	// which case the slot is not written.
	Same func(want, have string) bool
	// Remove tells what becomes of a slot that prior had and the plan
	// drops, from its live value: whether it is deleted, and the volume id
	// the deletion detaches (W24), "" for none. Nil never deletes: the
	// family's slots outside the plan are left to PVE.
	Remove func(value string) (remove bool, volume string)
}

// SlotChanges is what Reconcile did besides writing the delta.
type SlotChanges struct {
	// Created lists the planned slots that were empty, sorted: their value
	// is the one for a new slot (for a volume, a create form that
	// allocates).
	Created []string
	// Detached maps each deleted slot to the volume id it detaches.
	Detached map[string]string
}

// RemoveSlot is the Remove rule of a family without volumes: a dropped slot
// is deleted when it is in the live config.
func RemoveSlot(string) (bool, string) { return true, "" }

// Reconcile writes into delta what turns the family's live slots into
// planned: a planned slot is set unless its live value already says the
// same, and a slot of prior the plan drops is deleted as Remove says. Slots
// go in sorted order, so the first error is the same on every run. Errors
// name the slot as Attr.SLOT.
func (f SlotFamily[M, L]) Reconcile(delta *wire.ConfigDelta, planned, prior map[string]M, live pveapi.GuestConfig) (SlotChanges, error) {
	var changes SlotChanges
	for _, slot := range slices.Sorted(maps.Keys(planned)) {
		var liveSlot *LiveSlot[L]
		liveValue, present := live[slot]
		if present {
			parsed, err := f.Parse(liveValue)
			if err != nil {
				return SlotChanges{}, fmt.Errorf("%s.%s: PVE reports %q: %w", f.Attr, slot, liveValue, err)
			}
			liveSlot = &LiveSlot[L]{Value: liveValue, Parsed: parsed}
		}
		value, err := f.Value(planned[slot], liveSlot)
		if err != nil {
			return SlotChanges{}, fmt.Errorf("%s.%s: %w", f.Attr, slot, err)
		}
		switch {
		case !present:
			delta.Set(slot, value)
			changes.Created = append(changes.Created, slot)
		case !f.Same(value, liveValue):
			delta.Set(slot, value)
		}
	}
	if f.Remove == nil {
		return changes, nil
	}
	for _, slot := range slices.Sorted(maps.Keys(prior)) {
		if _, kept := planned[slot]; kept {
			continue
		}
		liveValue, present := live[slot]
		if !present {
			continue
		}
		remove, volume := f.Remove(liveValue)
		if !remove {
			continue
		}
		delta.Delete(slot)
		if volume != "" {
			if changes.Detached == nil {
				changes.Detached = map[string]string{}
			}
			changes.Detached[slot] = volume
		}
	}
	return changes, nil
}

// AddToCreate writes each planned slot's value for an empty slot into the
// form of a create request, where every slot is new.
func (f SlotFamily[M, L]) AddToCreate(form url.Values, planned map[string]M) error {
	for _, slot := range slices.Sorted(maps.Keys(planned)) {
		value, err := f.Value(planned[slot], nil)
		if err != nil {
			return fmt.Errorf("%s.%s: %w", f.Attr, slot, err)
		}
		form.Set(slot, value)
	}
	return nil
}
