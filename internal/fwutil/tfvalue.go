package fwutil

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Terraform values reshaped and merged below the framework's typed models,
// where a whole resource value is handled as one tree: a template's values
// in its guest's schema, a clone's state masked to what configuration
// declares, a clone's update view filled from what it inherited.

// Reshape gives v the type to: object attributes missing from v are null,
// attributes that to lacks are dropped, collections and nested objects are
// reshaped element by element; unknown and null stay unknown and null.
func Reshape(v tftypes.Value, to tftypes.Type) (tftypes.Value, error) {
	if v.IsNull() {
		return tftypes.NewValue(to, nil), nil
	}
	if !v.IsKnown() {
		return tftypes.NewValue(to, tftypes.UnknownValue), nil
	}
	switch t := to.(type) {
	case tftypes.Object:
		var attrs map[string]tftypes.Value
		if err := v.As(&attrs); err != nil {
			return tftypes.Value{}, err
		}
		out := make(map[string]tftypes.Value, len(t.AttributeTypes))
		for name, at := range t.AttributeTypes {
			src, ok := attrs[name]
			if !ok {
				out[name] = tftypes.NewValue(at, nil)
				continue
			}
			r, err := Reshape(src, at)
			if err != nil {
				return tftypes.Value{}, fmt.Errorf("%s: %w", name, err)
			}
			out[name] = r
		}
		return tftypes.NewValue(t, out), nil
	case tftypes.Map:
		var elems map[string]tftypes.Value
		if err := v.As(&elems); err != nil {
			return tftypes.Value{}, err
		}
		out := make(map[string]tftypes.Value, len(elems))
		for key, e := range elems {
			r, err := Reshape(e, t.ElementType)
			if err != nil {
				return tftypes.Value{}, fmt.Errorf("%s: %w", key, err)
			}
			out[key] = r
		}
		return tftypes.NewValue(t, out), nil
	case tftypes.List:
		out, err := reshapeElements(v, t.ElementType)
		if err != nil {
			return tftypes.Value{}, err
		}
		return tftypes.NewValue(t, out), nil
	case tftypes.Set:
		out, err := reshapeElements(v, t.ElementType)
		if err != nil {
			return tftypes.Value{}, err
		}
		return tftypes.NewValue(t, out), nil
	default:
		return v, nil
	}
}

func reshapeElements(v tftypes.Value, elem tftypes.Type) ([]tftypes.Value, error) {
	var elems []tftypes.Value
	if err := v.As(&elems); err != nil {
		return nil, err
	}
	out := make([]tftypes.Value, len(elems))
	for i, e := range elems {
		r, err := Reshape(e, elem)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

// MaskUndeclared turns value, a guest read back from PVE, into what a
// clone's state holds: only what declared (the plan, or the prior state)
// holds. Where declared is null the result is null, and map entries
// (slots) that declared lacks are dropped, so inherited attributes and
// slots never plan a change. Unknown declared values (computed ones) keep
// what PVE reports.
func MaskUndeclared(value, declared tftypes.Value) (tftypes.Value, error) {
	if !declared.IsKnown() || value.IsNull() || !value.IsKnown() {
		return value, nil
	}
	if declared.IsNull() {
		return tftypes.NewValue(value.Type(), nil), nil
	}
	switch {
	case value.Type().Is(tftypes.Object{}), value.Type().Is(tftypes.Map{}):
		isMap := value.Type().Is(tftypes.Map{})
		var children, declaredChildren map[string]tftypes.Value
		if err := value.As(&children); err != nil {
			return value, err
		}
		if err := declared.As(&declaredChildren); err != nil {
			return value, err
		}
		out := make(map[string]tftypes.Value, len(children))
		for key, child := range children {
			declaredChild, ok := declaredChildren[key]
			if !ok {
				if isMap {
					continue
				}
				out[key] = child
				continue
			}
			masked, err := MaskUndeclared(child, declaredChild)
			if err != nil {
				return value, err
			}
			out[key] = masked
		}
		return tftypes.NewValue(value.Type(), out), nil
	}
	return value, nil
}

// FillInherited is the view of a clone that config updates are computed
// from: want (the plan or the state) with every value that neither want
// nor prior declares taken from live, the guest as PVE reports it. An
// update computed between two such views leaves inherited values and
// slots alone, while what was declared and is no longer (prior holds it,
// want not) is still removed. keepNull names the paths never filled: the
// inherited values a clone must not keep (W15).
func FillInherited(want, prior, live tftypes.Value, keepNull func(*tftypes.AttributePath) bool) (tftypes.Value, error) {
	return fillInherited(tftypes.NewAttributePath(), want, prior, live, keepNull)
}

func fillInherited(at *tftypes.AttributePath, want, prior, live tftypes.Value, keepNull func(*tftypes.AttributePath) bool) (tftypes.Value, error) {
	if !want.IsKnown() || keepNull(at) || live.IsNull() || !live.IsKnown() {
		return want, nil
	}
	priorDeclared := !prior.IsNull() && prior.IsKnown()
	if want.IsNull() && priorDeclared {
		return want, nil
	}
	isObject, isMap := want.Type().Is(tftypes.Object{}), want.Type().Is(tftypes.Map{})
	if !isObject && !isMap {
		if want.IsNull() {
			return live, nil
		}
		return want, nil
	}
	var wants, priors, lives map[string]tftypes.Value
	if !want.IsNull() {
		if err := want.As(&wants); err != nil {
			return want, err
		}
	}
	if priorDeclared {
		if err := prior.As(&priors); err != nil {
			return want, err
		}
	}
	if err := live.As(&lives); err != nil {
		return want, err
	}
	out := map[string]tftypes.Value{}
	for key, liveChild := range lives {
		wantChild, wanted := wants[key]
		priorChild, hadPrior := priors[key]
		if isMap && !wanted && hadPrior {
			// Declared before and dropped since: removed, not inherited.
			continue
		}
		if !wanted {
			wantChild = tftypes.NewValue(liveChild.Type(), nil)
		}
		if !hadPrior {
			priorChild = tftypes.NewValue(liveChild.Type(), nil)
		}
		childPath := at.WithAttributeName(key)
		if isMap {
			childPath = at.WithElementKeyString(key)
		}
		filled, err := fillInherited(childPath, wantChild, priorChild, liveChild, keepNull)
		if err != nil {
			return want, err
		}
		if isMap && filled.IsNull() {
			continue
		}
		out[key] = filled
	}
	for key, wantChild := range wants {
		if _, seen := out[key]; !seen {
			out[key] = wantChild
		}
	}
	if isMap && want.IsNull() && len(out) == 0 {
		return want, nil
	}
	if isObject {
		for key, liveChild := range lives {
			if _, ok := out[key]; !ok {
				out[key] = tftypes.NewValue(liveChild.Type(), nil)
			}
		}
		// Nothing inherited below an undeclared object: it stays null.
		if want.IsNull() && allNullValues(out) {
			return want, nil
		}
	}
	return tftypes.NewValue(want.Type(), out), nil
}

func allNullValues(values map[string]tftypes.Value) bool {
	for _, v := range values {
		if !v.IsNull() {
			return false
		}
	}
	return true
}
