package guestops

import (
	"math/big"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// PlanUnchanged tells whether req plans an update that changes nothing: the
// plan is the prior state as it was, as in every plan of an unchanged
// configuration. Plan checks then decode one model for both.
func PlanUnchanged(req resource.ModifyPlanRequest) bool {
	return !req.State.Raw.IsNull() && !req.Plan.Raw.IsNull() && SameRaw(req.Plan.Raw, req.State.Raw)
}

// SameRaw is a.Equal(b) at a fraction of its cost. tftypes' Equal walks
// both values and looks each path up again from the root, allocating the
// paths: for a guest's state, with its hundreds of attributes, over a
// thousand allocations in each plan. This compares the two trees side by
// side and leaves to Equal only what it does not know how to compare.
func SameRaw(a, b tftypes.Value) bool {
	if a.Type() == nil || b.Type() == nil || !a.Type().Equal(b.Type()) {
		return a.Equal(b)
	}
	return sameValue(a, b)
}

func sameValue(a, b tftypes.Value) bool {
	if a.IsKnown() != b.IsKnown() || a.IsNull() != b.IsNull() {
		return false
	}
	if !a.IsKnown() || a.IsNull() {
		return true
	}
	switch typ := a.Type(); {
	case typ.Is(tftypes.String):
		var x, y string
		return a.As(&x) == nil && b.As(&y) == nil && x == y
	case typ.Is(tftypes.Bool):
		var x, y bool
		return a.As(&x) == nil && b.As(&y) == nil && x == y
	case typ.Is(tftypes.Number):
		var x, y big.Float
		return a.As(&x) == nil && b.As(&y) == nil && x.Cmp(&y) == 0
	case typ.Is(tftypes.Object{}), typ.Is(tftypes.Map{}):
		var x, y map[string]tftypes.Value
		if a.As(&x) != nil || b.As(&y) != nil || len(x) != len(y) {
			return false
		}
		for name, v := range x {
			w, ok := y[name]
			if !ok || !v.Type().Equal(w.Type()) || !sameValue(v, w) {
				return false
			}
		}
		return true
	case typ.Is(tftypes.List{}), typ.Is(tftypes.Tuple{}):
		return sameElements(a, b)
	case typ.Is(tftypes.Set{}):
		// Elements in the same order are the same set; in another order
		// they may be too, which Equal knows.
		return sameElements(a, b) || a.Equal(b)
	default:
		return a.Equal(b)
	}
}

func sameElements(a, b tftypes.Value) bool {
	var x, y []tftypes.Value
	if a.As(&x) != nil || b.As(&y) != nil || len(x) != len(y) {
		return false
	}
	for i := range x {
		if !x[i].Type().Equal(y[i].Type()) || !sameValue(x[i], y[i]) {
			return false
		}
	}
	return true
}
