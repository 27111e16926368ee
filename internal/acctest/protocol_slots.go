package acctest

import (
	"maps"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// WithSlot is config (of typeName) with one more entry in the slot map
// attribute mapAttr: a copy of the entry at from, stored at slot, with the
// given nested attributes replaced (nil sets one to null). A plan of it
// adds a device declared like an existing one.
func (p *Protocol) WithSlot(tb testing.TB, typeName string, config *tfprotov6.DynamicValue, mapAttr, from, slot string, set map[string]any) *tfprotov6.DynamicValue {
	tb.Helper()
	decoded := p.StateValue(tb, typeName, config)
	var top map[string]tftypes.Value
	if err := decoded.As(&top); err != nil {
		tb.Fatalf("decode %s: %v", typeName, err)
	}
	var sharedEntries map[string]tftypes.Value
	if err := top[mapAttr].As(&sharedEntries); err != nil {
		tb.Fatalf("decode %s: %v", mapAttr, err)
	}
	entries := maps.Clone(sharedEntries)
	source, ok := entries[from]
	if !ok {
		tb.Fatalf("%s has no entry %q", mapAttr, from)
	}
	var shared map[string]tftypes.Value
	if err := source.As(&shared); err != nil {
		tb.Fatalf("decode %s[%s]: %v", mapAttr, from, err)
	}
	// As hands out the value's own map: the copy keeps from's entry as it is.
	attrs := make(map[string]tftypes.Value, len(shared))
	maps.Copy(attrs, shared)
	for name, v := range set {
		old, ok := attrs[name]
		if !ok {
			tb.Fatalf("%s[%s] has no attribute %q", mapAttr, from, name)
		}
		attrs[name] = configValue(tb, old.Type(), v)
	}
	entries[slot] = tftypes.NewValue(source.Type(), attrs)
	return p.WithAttribute(tb, typeName, config, mapAttr, tftypes.NewValue(top[mapAttr].Type(), entries))
}
