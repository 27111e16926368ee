package guestops

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// Config keys both guest kinds use alike.
const (
	KeyDescription = "description"
	KeyTags        = "tags"
	KeyOnBoot      = "onboot"
	KeyProtection  = "protection"
	KeyPool        = "pool"
)

// Known reports whether v holds a value: neither null nor unknown.
func Known[T interface {
	IsNull() bool
	IsUnknown() bool
}](v T) bool {
	return !v.IsNull() && !v.IsUnknown()
}

// AllNull reports whether every value is null.
func AllNull(values ...interface{ IsNull() bool }) bool {
	for _, v := range values {
		if !v.IsNull() {
			return false
		}
	}
	return true
}

// OptString reads a config key; an absent key is null (PVE's default,
// which the provider does not report).
func OptString(config pveapi.GuestConfig, key string) types.String {
	if v, ok := config[key]; ok {
		return types.StringValue(v)
	}
	return types.StringNull()
}

// OptBool reads a 0/1 config key (W6); absent is null.
func OptBool(config pveapi.GuestConfig, key string) types.Bool {
	v, ok := config[key]
	if !ok {
		return types.BoolNull()
	}
	b, _ := pveapi.ParseBool(v)
	return types.BoolValue(b)
}

// OptInt reads an integer config key; present becomes true when the key is
// there, so callers can tell whether a group of keys is set at all.
func OptInt(config pveapi.GuestConfig, key string, present bool) (types.Int64, bool, error) {
	v, ok := config[key]
	if !ok {
		return types.Int64Null(), present, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return types.Int64Null(), present, fmt.Errorf("%s %q: not an integer", key, v)
	}
	return types.Int64Value(n), true, nil
}

// OptFloat reads a number config key (cpulimit); absent is null.
func OptFloat(config pveapi.GuestConfig, key string) (types.Float64, error) {
	raw, ok := config[key]
	if !ok {
		return types.Float64Null(), nil
	}
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil {
		return types.Float64Null(), fmt.Errorf("%s %q: %w", key, raw, err)
	}
	return types.Float64Value(f), nil
}

// PropBool reads a boolean inside a property string, which PVE also
// spells on/off, yes/no, true/false (W6).
func PropBool(props map[string]string, key string) (types.Bool, error) {
	v, ok := props[key]
	if !ok {
		return types.BoolNull(), nil
	}
	b, err := wire.ParsePropertyBool(v)
	if err != nil {
		return types.BoolNull(), fmt.Errorf("%s: %w", key, err)
	}
	return types.BoolValue(b), nil
}

// PropString reads a property-string key; absent is null.
func PropString(props map[string]string, key string) types.String {
	if v, ok := props[key]; ok {
		return types.StringValue(v)
	}
	return types.StringNull()
}

// PropInt reads an integer property-string key; absent is null.
func PropInt(props map[string]string, key string) (types.Int64, error) {
	v, ok := props[key]
	if !ok {
		return types.Int64Null(), nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return types.Int64Null(), fmt.Errorf("%s %q: not an integer", key, v)
	}
	return types.Int64Value(n), nil
}

// PropFloat reads a number property-string key (a NIC's rate); absent is
// null.
func PropFloat(props map[string]string, key string) (types.Float64, error) {
	v, ok := props[key]
	if !ok {
		return types.Float64Null(), nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return types.Float64Null(), fmt.Errorf("%s %q: %w", key, v, err)
	}
	return types.Float64Value(f), nil
}

// SetPropBool writes a declared boolean as 1/0 into a property string and
// removes an undeclared one, returning it to PVE's default.
func SetPropBool(props map[string]string, key string, v types.Bool) {
	if Known(v) {
		props[key] = wire.Bool(v.ValueBool())
	} else {
		delete(props, key)
	}
}

// SetPropString is SetPropBool for strings.
func SetPropString(props map[string]string, key string, v types.String) {
	if Known(v) {
		props[key] = v.ValueString()
	} else {
		delete(props, key)
	}
}

// SetPropInt is SetPropBool for integers.
func SetPropInt(props map[string]string, key string, v types.Int64) {
	if Known(v) {
		props[key] = strconv.FormatInt(v.ValueInt64(), 10)
	} else {
		delete(props, key)
	}
}

// SetPropFloat is SetPropBool for numbers.
func SetPropFloat(props map[string]string, key string, v types.Float64) {
	if Known(v) {
		props[key] = FormatFloat(v.ValueFloat64())
	} else {
		delete(props, key)
	}
}

// SetFormString adds a declared string to a create form.
func SetFormString(form url.Values, key string, v types.String) {
	if Known(v) {
		form.Set(key, v.ValueString())
	}
}

// SetFormBool adds a declared boolean to a create form as 1/0 (W6).
func SetFormBool(form url.Values, key string, v types.Bool) {
	if Known(v) {
		form.Set(key, wire.Bool(v.ValueBool()))
	}
}

// FormatFloat spells a number the shortest way PVE reads back ("1.5").
func FormatFloat(f float64) string {
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// The Wanted* helpers give the config value an attribute asks for; nil
// means the key should be absent (deleted, or not sent at create).

// WantedString is a declared string's config value.
func WantedString(v types.String) *string {
	if !Known(v) {
		return nil
	}
	s := v.ValueString()
	return &s
}

// WantedInt is a declared integer's config value.
func WantedInt(v types.Int64) *string {
	if !Known(v) {
		return nil
	}
	s := strconv.FormatInt(v.ValueInt64(), 10)
	return &s
}

// WantedBool is a declared boolean's config value, 1/0 (W6).
func WantedBool(v types.Bool) *string {
	if !Known(v) {
		return nil
	}
	s := wire.Bool(v.ValueBool())
	return &s
}

// WantedFloat is a declared number's config value.
func WantedFloat(v types.Float64) *string {
	if !Known(v) {
		return nil
	}
	s := FormatFloat(v.ValueFloat64())
	return &s
}

// WantedTags is the tags value in PVE's normalised form (W19); nil for no
// tags.
func WantedTags(tags fwutil.TagSetValue) (*string, error) {
	normalized, err := tags.Normalized()
	if err != nil {
		return nil, fmt.Errorf("tags: %w", err)
	}
	if len(normalized) == 0 {
		return nil, nil
	}
	s := wire.FormatTags(normalized)
	return &s, nil
}

// TagsFromAPI reads the tags key (W19); absent or empty is null.
func TagsFromAPI(config pveapi.GuestConfig) (fwutil.TagSetValue, error) {
	raw, ok := config[KeyTags]
	if !ok {
		return fwutil.TagSetNull(), nil
	}
	tags, err := wire.ParseTags(raw)
	if err != nil {
		return fwutil.TagSetNull(), fmt.Errorf("tags %q: %w", raw, err)
	}
	if len(tags) == 0 {
		return fwutil.TagSetNull(), nil
	}
	return fwutil.TagSetOf(tags), nil
}

// DescriptionFromAPI reads the description as PVE stores it (W20), but
// for a creation marker line left by an unfinished create or clone, which
// is never part of the configured value. PVE changes the end of the text
// when it stores it, differently per guest kind: a VM's loses its
// trailing whitespace, a container's gets a newline after its last line.
// So a prior value that differs from the stored one only there (a
// heredoc's final newline, or none) is kept as written, and any other
// value is read without trailing whitespace, the same for both kinds; a
// description that is nothing but whitespace is none.
func DescriptionFromAPI(config pveapi.GuestConfig, prior types.String) types.String {
	stored := OptString(config, KeyDescription)
	if !Known(stored) {
		return stored
	}
	description, _ := StripCloneMarker(stored.ValueString())
	if Known(prior) && trimDescription(prior.ValueString()) == description {
		return prior
	}
	if description == "" {
		return types.StringNull()
	}
	return types.StringValue(description)
}

func trimDescription(s string) string { return strings.TrimRight(s, " \t\r\n") }

// SameValue compares a wanted config value with the live one the way PVE
// means the keys both guest kinds share: tags as a normalised set (W19),
// the description without trailing whitespace (W20), booleans by value.
// ok is false for keys it does not know.
func SameValue(key, want, have string) (same, ok bool) {
	switch key {
	case KeyTags:
		a, errA := wire.ParseTags(want)
		b, errB := wire.ParseTags(have)
		return errA == nil && errB == nil && slices.Equal(a, b), true
	case KeyDescription:
		return trimDescription(want) == trimDescription(have), true
	case KeyOnBoot, KeyProtection:
		return SameBool(want, have), true
	}
	return false, false
}

// SameBool compares two 0/1 values.
func SameBool(want, have string) bool {
	a, okA := pveapi.ParseBool(want)
	b, okB := pveapi.ParseBool(have)
	return okA && okB && a == b
}

// SameFloat compares two numbers by value ("1.50" is "1.5").
func SameFloat(want, have string) bool {
	a, errA := strconv.ParseFloat(want, 64)
	b, errB := strconv.ParseFloat(have, 64)
	return errA == nil && errB == nil && a == b
}

// SamePropertyString compares two property strings as key sets.
func SamePropertyString(a, b, defaultKey string) bool {
	pa, errA := wire.ParsePropertyString(a, defaultKey)
	pb, errB := wire.ParsePropertyString(b, defaultKey)
	if errA != nil || errB != nil {
		return a == b
	}
	return maps.Equal(pa, pb)
}

// DiffKeys adds to delta what turns live into wanted: keys whose wanted
// value differs from the live one are set, keys wanted absent but present
// are deleted. same compares a wanted and a live value of key.
func DiffKeys(delta *wire.ConfigDelta, wanted map[string]*string, live pveapi.GuestConfig, same func(key, want, have string) bool) {
	for _, key := range slices.Sorted(maps.Keys(wanted)) {
		want := wanted[key]
		have, present := live[key]
		switch {
		case want != nil && (!present || !same(key, *want, have)):
			delta.Set(key, *want)
		case want == nil && present:
			delta.Delete(key)
		}
	}
}
