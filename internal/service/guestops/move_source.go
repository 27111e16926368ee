package guestops

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
)

// SourceState is another provider's state of one resource, decoded from
// the raw JSON Terraform hands over with a move. Both providers the moves
// come from are SDKv2 providers: a nested block is a list of objects even
// when it holds one, numbers may arrive as numbers or strings, and an unset
// value is null, "" or the block's default. The readers below accept every
// such spelling and report "absent" for empty ones, so that an attribute
// the source left at its zero value is read back from PVE instead.
type SourceState map[string]any

// DecodeSourceState reads the raw state JSON of a move.
func DecodeSourceState(raw []byte) (SourceState, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var state SourceState
	if err := dec.Decode(&state); err != nil {
		return nil, fmt.Errorf("source state is not a JSON object: %w", err)
	}
	if state == nil {
		return nil, fmt.Errorf("source state is empty")
	}
	return state, nil
}

// Str is a non-empty string attribute.
func (s SourceState) Str(key string) (string, bool) {
	switch v := s[key].(type) {
	case string:
		return v, v != ""
	case json.Number:
		return v.String(), true
	}
	return "", false
}

// Integer is a number attribute; SDKv2 keeps TypeInt as a JSON number, and
// a few string attributes hold digits.
func (s SourceState) Integer(key string) (int64, bool) {
	var text string
	switch v := s[key].(type) {
	case json.Number:
		text = v.String()
	case string:
		text = strings.TrimSpace(v)
	default:
		return 0, false
	}
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		return n, true
	}
	if f, err := strconv.ParseFloat(text, 64); err == nil && f == float64(int64(f)) {
		return int64(f), true
	}
	return 0, false
}

// Positive is an integer attribute greater than zero: in both providers 0
// (and Telmate's -1 for VLAN tags) means "not set".
func (s SourceState) Positive(key string) (int64, bool) {
	n, ok := s.Integer(key)
	return n, ok && n > 0
}

func (s SourceState) Float(key string) (float64, bool) {
	var text string
	switch v := s[key].(type) {
	case json.Number:
		text = v.String()
	case string:
		text = v
	default:
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	return f, err == nil
}

// Boolean reads a bool, or the 0/1 integers and "on"/"ignore" strings older
// schemas used for flags.
func (s SourceState) Boolean(key string) (bool, bool) {
	switch v := s[key].(type) {
	case bool:
		return v, true
	case json.Number:
		return v.String() != "0", true
	case string:
		switch strings.ToLower(v) {
		case "1", "true", "on", "yes":
			return true, true
		case "0", "false", "off", "ignore", "no":
			return false, true
		}
	}
	return false, false
}

// Blocks is a list of nested objects (an SDKv2 block).
func (s SourceState) Blocks(key string) []SourceState {
	switch v := s[key].(type) {
	case []any:
		out := make([]SourceState, 0, len(v))
		for _, item := range v {
			if obj, ok := item.(map[string]any); ok {
				out = append(out, obj)
			}
		}
		return out
	case map[string]any:
		return []SourceState{v}
	}
	return nil
}

// Block is the first object of a block list, nil when there is none.
func (s SourceState) Block(key string) SourceState {
	if list := s.Blocks(key); len(list) > 0 {
		return list[0]
	}
	return nil
}

// Strings is a list or set of strings; empty entries are dropped.
func (s SourceState) Strings(key string) []string {
	list, ok := s[key].([]any)
	if !ok {
		return nil
	}
	var out []string
	for _, item := range list {
		if text, ok := item.(string); ok && strings.TrimSpace(text) != "" {
			out = append(out, strings.TrimSpace(text))
		}
	}
	return out
}

func (s SourceState) StringValue(key string) types.String {
	if v, ok := s.Str(key); ok {
		return types.StringValue(v)
	}
	return types.StringNull()
}

func (s SourceState) BoolValue(key string) types.Bool {
	if v, ok := s.Boolean(key); ok {
		return types.BoolValue(v)
	}
	return types.BoolNull()
}

// OnFlag is a flag whose PVE default is off: carried when on, null when
// off or unset, so that a configuration leaving it out matches.
func (s SourceState) OnFlag(key string) types.Bool {
	if on, _ := s.Boolean(key); on {
		return types.BoolValue(true)
	}
	return types.BoolNull()
}

// OffFlag is a flag whose PVE default is on: carried when off, null when
// on or unset.
func (s SourceState) OffFlag(key string) types.Bool {
	if on, set := s.Boolean(key); set && !on {
		return types.BoolValue(false)
	}
	return types.BoolNull()
}

// StringUnless is a string attribute, null when it is PVE's default (which
// the source providers record as a value).
func (s SourceState) StringUnless(key, pveDefault string) types.String {
	if v, ok := s.Str(key); ok && v != pveDefault {
		return types.StringValue(v)
	}
	return types.StringNull()
}

func (s SourceState) PositiveValue(key string) types.Int64 {
	if v, ok := s.Positive(key); ok {
		return types.Int64Value(v)
	}
	return types.Int64Null()
}

func (s SourceState) PositiveFloatValue(key string) types.Float64 {
	if v, ok := s.Float(key); ok && v > 0 {
		return types.Float64Value(v)
	}
	return types.Float64Null()
}

// SplitSourceTags reads a tag string: Telmate keeps tags as one string, separated
// by ';' (PVE's form) or ',' (its documented form).
func SplitSourceTags(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == ',' || r == ' ' })
}

// Moved is another provider's guest translated into a resource's model,
// with the source attributes whose values are not carried over.
type Moved[M any] struct {
	Model   *M
	Dropped []string
}

// GuestMover takes a guest over from bpg/proxmox or Telmate/proxmox with a
// `moved` block. The source state is translated attribute by attribute;
// the refresh that follows the move reads every value PVE reports, so a
// translation only has to name the guest (vmid and node) correctly and
// carry what PVE cannot report back.
type GuestMover[M any] struct {
	Kind Kind
	// From maps each source resource type to its translation.
	From map[string]func(SourceState) (Moved[M], error)
	// Finish fills what no source has (the timeouts object).
	Finish func(context.Context, *M)
	// Kept tells the operator what happens to the values not carried over.
	Kept string
}

// StateMover is the framework's view of g.
func (g GuestMover[M]) StateMover() resource.StateMover {
	return resource.StateMover{StateMover: g.move}
}

func (g GuestMover[M]) move(ctx context.Context, req resource.MoveStateRequest, resp *resource.MoveStateResponse) {
	translate, known := g.From[req.SourceTypeName]
	if !known || !FromProxmoxProvider(req.SourceProviderAddress) {
		// Not a source this resource knows: the framework reports that no
		// mover took it.
		return
	}
	summary := "Unable To Move " + g.Kind.Title + " State"
	if req.SourceRawState == nil {
		resp.Diagnostics.AddError(summary, "Terraform sent no state for "+req.SourceTypeName+".")
		return
	}
	src, err := DecodeSourceState(req.SourceRawState.JSON)
	var moved Moved[M]
	if err == nil {
		moved, err = translate(src)
	}
	if err != nil {
		resp.Diagnostics.AddError(summary,
			fmt.Sprintf("The state of %s cannot be read as a %s: %s. Remove it from state with `terraform state rm` and import the %s instead.",
				req.SourceTypeName, g.Kind.Noun, err, g.Kind.Noun))
		return
	}
	g.Finish(ctx, moved.Model)
	resp.Diagnostics.Append(resp.TargetState.Set(ctx, moved.Model)...)
	if len(moved.Dropped) > 0 {
		resp.Diagnostics.AddWarning("Source Values Not Carried Over",
			fmt.Sprintf("%s has values that %s keeps only from configuration and PVE does not report: %s. %s",
				req.SourceTypeName, g.Kind.Resource, strings.Join(moved.Dropped, ", "), g.Kept))
	}
}

// NullTimeouts is a null value of s's timeouts attribute: no source
// provider has one to carry over.
func NullTimeouts(s schema.Schema) timeouts.Value {
	attrTypes := map[string]attr.Type{}
	if typ, ok := s.Attributes["timeouts"].GetType().(attr.TypeWithAttributeTypes); ok {
		attrTypes = typ.AttributeTypes()
	}
	return timeouts.Value{Object: types.ObjectNull(attrTypes)}
}

// CheckMovedIdentity refuses a source state that does not name the guest:
// the refresh after the move finds the guest by its VMID and node alone.
func CheckMovedIdentity(vmid int64, node string) error {
	if vmid < 100 {
		return fmt.Errorf("no VMID in the source state")
	}
	if node == "" {
		return fmt.Errorf("no node in the source state")
	}
	return nil
}

// BPGIdentity reads the VMID and node of a bpg/proxmox guest state, which
// keeps the VMID in vm_id (older versions only in id). A template is
// refused: kind manages guests that are not templates (W17).
func BPGIdentity(src SourceState, kind Kind) (int64, string, error) {
	vmid, ok := src.Positive("vm_id")
	if !ok {
		vmid, _ = src.Positive("id")
	}
	node, _ := src.Str("node_name")
	if template, _ := src.Boolean("template"); template {
		return 0, "", fmt.Errorf("%s %d is a template, and %s manages %ss only", kind.Noun, vmid, kind.Resource, kind.Noun)
	}
	return vmid, node, nil
}

// FromProxmoxProvider accepts the registry addresses of bpg/proxmox and
// Telmate/proxmox, and of their forks and mirrors, which keep the provider
// type "proxmox" and the resource type names the translations read.
func FromProxmoxProvider(address string) bool {
	parts := strings.Split(strings.ToLower(address), "/")
	return parts[len(parts)-1] == "proxmox"
}

// SourceTags is a tag set without duplicates; null when there are no tags.
func SourceTags(tags []string) fwutil.TagSetValue {
	var unique []string
	for _, tag := range tags {
		if tag = strings.TrimSpace(tag); tag != "" && !slices.Contains(unique, tag) {
			unique = append(unique, tag)
		}
	}
	if len(unique) == 0 {
		return fwutil.TagSetNull()
	}
	return fwutil.TagSetOf(unique)
}

// Size reads a size: a bare number is GiB (bpg/proxmox keeps whole GiB), a
// unit spells the rest ("8G", "512M", Telmate/proxmox's form). It is
// spelled the way configuration writes it ("8" for whole GiB).
func (s SourceState) Size(key string) fwutil.SizeValue {
	raw, ok := s.Str(key)
	if !ok {
		return fwutil.SizeNull()
	}
	bytes, err := fwutil.ParseSizeAttribute(raw)
	if err != nil || bytes <= 0 {
		return fwutil.SizeNull()
	}
	return fwutil.SizeFromString(fwutil.FormatSizeAttribute(bytes))
}
