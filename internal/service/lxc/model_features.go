package lxc

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// featuresModel maps to the composite features key (W33):
// "nesting=1,keyctl=1,mount=nfs;cifs".
type featuresModel struct {
	Nesting types.Bool `tfsdk:"nesting"`
	Keyctl  types.Bool `tfsdk:"keyctl"`
	Fuse    types.Bool `tfsdk:"fuse"`
	Mknod   types.Bool `tfsdk:"mknod"`
	Mount   types.Set  `tfsdk:"mount"`
}

// Keys inside the features property string.
const (
	featNesting = "nesting"
	featKeyctl  = "keyctl"
	featFuse    = "fuse"
	featMknod   = "mknod"
	featMount   = "mount"
)

// flag pairs a feature key with its attribute.
type flag struct {
	key   string
	value types.Bool
}

func (f *featuresModel) flags() []flag {
	return []flag{{featNesting, f.Nesting}, {featKeyctl, f.Keyctl}, {featFuse, f.Fuse}, {featMknod, f.Mknod}}
}

func parseFeatures(raw string) (map[string]string, error) {
	if raw == "" {
		return map[string]string{}, nil
	}
	props, err := wire.ParsePropertyString(raw, "")
	if err != nil {
		return nil, fmt.Errorf("features %q: %w", raw, err)
	}
	return props, nil
}

// splitMount reads the mount list ("nfs;cifs").
func splitMount(raw string) []string {
	return strings.FieldsFunc(raw, func(r rune) bool { return r == ';' || r == ' ' })
}

// featuresFromAPI reads the features composite (W33). Every flag is
// reported, one PVE leaves out as false: a features object with every
// flag off means the same as no features key, and reads the same, so
// that an imported container plans no change for "keyctl = false". A
// refresh keeps the object only where state has one (the undeclared are
// masked). Flags set by root and read under a token are reported like any
// other. An empty mount list prior declared is kept.
func featuresFromAPI(config pveapi.GuestConfig, prior *featuresModel) (*featuresModel, error) {
	props, err := parseFeatures(config[keyFeatures])
	if err != nil {
		return nil, err
	}
	f := &featuresModel{}
	targets := []*types.Bool{&f.Nesting, &f.Keyctl, &f.Fuse, &f.Mknod}
	for i, fl := range f.flags() {
		on, err := featureOn(props, fl.key)
		if err != nil {
			return nil, fmt.Errorf("features %q: %w", config[keyFeatures], err)
		}
		*targets[i] = types.BoolValue(on)
	}
	switch raw, ok := props[featMount]; {
	case ok:
		f.Mount = stringSet(splitMount(raw))
	case prior != nil && guestops.Known(prior.Mount) && len(prior.Mount.Elements()) == 0:
		f.Mount = prior.Mount
	default:
		f.Mount = types.SetNull(types.StringType)
	}
	return f, nil
}

// featuresValue is the features value for f, built on the live value so
// that flags the provider does not model (force_rw_sys) and the spelling
// of unchanged flags stay as they are: PVE treats every flag whose value
// changes as a change, and refuses changes to flags other than nesting
// under a token (W33). A flag left out of the configuration, or the whole
// features object left out, is removed. nil when nothing remains.
func featuresValue(f *featuresModel, live string) (*string, error) {
	props, err := parseFeatures(live)
	if err != nil {
		return nil, err
	}
	if f == nil {
		f = &featuresModel{}
	}
	for _, fl := range f.flags() {
		have, err := featureOn(props, fl.key)
		if err != nil {
			return nil, err
		}
		switch {
		case !guestops.Known(fl.value):
			delete(props, fl.key)
		case fl.value.ValueBool() != have:
			props[fl.key] = wire.Bool(fl.value.ValueBool())
		}
	}
	want := setStrings(f.Mount)
	if !slices.Equal(sortedCopy(want), sortedCopy(splitMount(props[featMount]))) {
		if len(want) == 0 {
			delete(props, featMount)
		} else {
			props[featMount] = strings.Join(want, ";")
		}
	}
	if len(props) == 0 {
		return nil, nil
	}
	s, err := wire.EncodePropertyString(props, "")
	if err != nil {
		return nil, fmt.Errorf("features: %w", err)
	}
	return &s, nil
}

func featureOn(props map[string]string, key string) (bool, error) {
	raw, ok := props[key]
	if !ok {
		return false, nil
	}
	on, err := wire.ParsePropertyBool(raw)
	if err != nil {
		return false, fmt.Errorf("features: %s: %w", key, err)
	}
	return on, nil
}

// sameFeatures compares two features values as PVE does: flag by flag,
// absent meaning off, the mount list as a set.
func sameFeatures(a, b string) bool {
	pa, errA := parseFeatures(a)
	pb, errB := parseFeatures(b)
	if errA != nil || errB != nil {
		return a == b
	}
	return maps.Equal(effectiveFeatures(pa), effectiveFeatures(pb))
}

// effectiveFeatures is a features map with every flag in PVE's sense:
// booleans as 1/0, absent ones off, the mount list sorted.
func effectiveFeatures(props map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range props {
		if k == featMount {
			out[k] = strings.Join(sortedCopy(splitMount(v)), ";")
			continue
		}
		if on, err := wire.ParsePropertyBool(v); err == nil {
			out[k] = wire.Bool(on)
		} else {
			out[k] = v
		}
		if out[k] == "0" {
			delete(out, k)
		}
	}
	if out[featMount] == "" {
		delete(out, featMount)
	}
	return out
}

// featureFlags is what a features object switches on, null meaning off.
type featureFlags map[string]bool

func (f *featuresModel) effective() (featureFlags, []string) {
	out := featureFlags{}
	if f == nil {
		return out, nil
	}
	for _, fl := range f.flags() {
		out[fl.key] = guestops.Known(fl.value) && fl.value.ValueBool()
	}
	return out, sortedCopy(setStrings(f.Mount))
}

func sortedCopy(items []string) []string {
	out := slices.Clone(items)
	slices.Sort(out)
	return out
}

func stringSet(items []string) types.Set {
	elems := make([]attr.Value, 0, len(items))
	for _, it := range items {
		elems = append(elems, types.StringValue(it))
	}
	return types.SetValueMust(types.StringType, elems)
}
