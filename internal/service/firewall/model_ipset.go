package firewall

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// ipsetModel is pve_firewall_ipset's Terraform state.
type ipsetModel struct {
	ID      types.String `tfsdk:"id"`
	VMID    types.Int64  `tfsdk:"vmid"`
	Name    types.String `tfsdk:"name"`
	Comment types.String `tfsdk:"comment"`
	// Entries are keyed by address: PVE keeps one entry per address.
	Entries types.Map    `tfsdk:"entries"`
	Ref     types.String `tfsdk:"ref"`
}

// ipsetEntryModel is one entry's settings; its address is its key.
type ipsetEntryModel struct {
	NoMatch types.Bool
	Comment types.String
}

var ipsetEntryType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"nomatch": types.BoolType,
	"comment": types.StringType,
}}

func (m ipsetModel) scope() scopeRef { return scopeFromModel(types.StringNull(), m.VMID) }

// ipsetID is the IP set's import id: "cluster/NAME" or "guest/VMID/NAME".
func ipsetID(scope scopeRef, name string) string { return scopedNameID(scope, name) }

// validateIPSetName is the name check of IP sets: PVE's pattern, and no
// capitals, because PVE's configuration parser lowercases IP set names
// (pve-firewall src/PVE/Firewall.pm generic_fw_config_parser): a set
// created as "Office" is read back as "office".
func validateIPSetName(name string) error {
	if err := wire.ValidateFirewallName(wire.FirewallIPSetName, name); err != nil {
		return err
	}
	if lower := strings.ToLower(name); lower != name {
		return fmt.Errorf("IP set name %q must be lowercase: PVE would store the IP set as %q", name, lower)
	}
	return nil
}

// parseIPSetID reads an import id; a node's firewall has no IP sets.
func parseIPSetID(id string) (scopeRef, string, error) {
	scope, name, err := parseScope(id)
	if err != nil {
		return scopeRef{}, "", err
	}
	if scope.kind() == nodeScope {
		return scopeRef{}, "", fmt.Errorf("%q names a node's firewall, which has no IP sets: import a cluster IP set as cluster/NAME or a guest's as guest/VMID/NAME", id)
	}
	if err := validateIPSetName(name); err != nil {
		return scopeRef{}, "", fmt.Errorf("%q does not end in an IP set name (cluster/NAME or guest/VMID/NAME): the name %w", id, err)
	}
	return scope, name, nil
}

// ipsetEntry is one entry of an IP set as PVE stores it: the address in
// PVE's spelling (normalizeIPSetCIDR), its nomatch flag and comment.
type ipsetEntry struct {
	CIDR    string
	NoMatch bool
	Comment string
}

// entryMap is an IP set's entries by stored address: PVE keeps at most one
// entry per address.
type entryMap map[string]ipsetEntry

// configuredEntries reads entries from the model: the entries as PVE would
// store them, and the configured spelling of each address PVE would store
// otherwise. Two entries PVE would store as the same address are an error.
func configuredEntries(entriesMap types.Map) (entryMap, map[string]string, diag.Diagnostics) {
	var diags diag.Diagnostics
	if entriesMap.IsNull() || entriesMap.IsUnknown() {
		return entryMap{}, map[string]string{}, diags
	}
	models := make(map[string]ipsetEntryModel, len(entriesMap.Elements()))
	for cidr, v := range entriesMap.Elements() {
		obj, ok := v.(types.Object)
		if !ok {
			diags.AddError("Invalid IP Set Entries", fmt.Sprintf("entry %q is a %T, not an object", cidr, v))
			return nil, nil, diags
		}
		attrs := obj.Attributes()
		nomatch, _ := attrs["nomatch"].(types.Bool)
		comment, _ := attrs["comment"].(types.String)
		models[cidr] = ipsetEntryModel{NoMatch: nomatch, Comment: comment}
	}
	entries, spelling, err := storedEntries(models)
	if err != nil {
		diags.AddError("Invalid IP Set Entries", err.Error())
	}
	return entries, spelling, diags
}

// storedEntries maps configured entries to PVE's form; see
// configuredEntries.
func storedEntries(models map[string]ipsetEntryModel) (entryMap, map[string]string, error) {
	entries := make(entryMap, len(models))
	spelling := map[string]string{}
	written := make([]string, 0, len(models))
	for cidr := range models {
		written = append(written, cidr)
	}
	sort.Strings(written)
	for _, cidr := range written {
		m := models[cidr]
		stored, err := normalizeIPSetCIDR(cidr)
		if err != nil {
			return nil, nil, fmt.Errorf("entry %q %w", cidr, err)
		}
		if _, dup := entries[stored]; dup {
			other := stored
			if s, ok := spelling[stored]; ok {
				other = s
			}
			return nil, nil, fmt.Errorf("entries %q and %q are the same address to PVE, which stores both as %q "+
				"and keeps one entry per address: keep one of them", other, cidr, stored)
		}
		entries[stored] = ipsetEntry{CIDR: stored, NoMatch: m.NoMatch.ValueBool(), Comment: m.Comment.ValueString()}
		if cidr != stored {
			spelling[stored] = cidr
		}
	}
	return entries, spelling, nil
}

// entriesFromAPI is the set as PVE answers it.
func entriesFromAPI(list []pveapi.IPSetEntry) entryMap {
	entries := make(entryMap, len(list))
	for _, e := range list {
		entries[e.CIDR] = ipsetEntry{CIDR: e.CIDR, NoMatch: bool(e.NoMatch), Comment: e.Comment}
	}
	return entries
}

// sortedAddresses are the set's stored addresses in the order PVE's file
// writer puts them: sorted as strings (pve-firewall src/PVE/Firewall.pm
// $format_ipsets), the order every later read answers.
func (m entryMap) sortedAddresses() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// digest is the digest PVE gives the set when it holds exactly these
// entries: the list digest over them in file order, with the keys PVE's
// parser sets (nomatch only when set, comment only when not empty).
func (m entryMap) digest() string {
	list := make([]map[string]string, 0, len(m))
	for _, k := range m.sortedAddresses() {
		e := m[k]
		item := map[string]string{"cidr": e.CIDR}
		if e.NoMatch {
			item["nomatch"] = "1"
		}
		if e.Comment != "" {
			item["comment"] = e.Comment
		}
		list = append(list, item)
	}
	return wire.FirewallListDigest(list)
}

// firstDifference names one address where two sets differ, "" when they
// are the same.
func firstDifference(want, got entryMap) string {
	for _, k := range want.sortedAddresses() {
		g, ok := got[k]
		switch {
		case !ok:
			return fmt.Sprintf("%s is no longer in the set", k)
		case g != want[k]:
			return fmt.Sprintf("%s now has nomatch %t and comment %q", k, g.NoMatch, g.Comment)
		}
	}
	for _, k := range got.sortedAddresses() {
		if _, ok := want[k]; !ok {
			return fmt.Sprintf("%s was added", k)
		}
	}
	return ""
}

// entryChanges are the requests that turn one set into another: each
// removed address one DELETE, each address whose nomatch or comment
// changed one PUT (PVE replaces both), each new address one POST.
type entryChanges struct {
	Removes []string
	Updates []ipsetEntry
	Adds    []ipsetEntry
}

func (c entryChanges) count() int { return len(c.Removes) + len(c.Updates) + len(c.Adds) }

// planEntryChanges compares by stored address, so unchanged entries cost
// nothing however large the set is.
func planEntryChanges(current, desired entryMap) entryChanges {
	var c entryChanges
	for _, k := range current.sortedAddresses() {
		want, keep := desired[k]
		switch {
		case !keep:
			c.Removes = append(c.Removes, k)
		case want != current[k]:
			c.Updates = append(c.Updates, want)
		}
	}
	for _, k := range desired.sortedAddresses() {
		if _, have := current[k]; !have {
			c.Adds = append(c.Adds, desired[k])
		}
	}
	return c
}

// entriesValue renders entries for state, each keyed by the configured
// spelling of its address where one is known, PVE's otherwise. keepNull
// leaves an empty set null (entries not configured).
func entriesValue(entries entryMap, spelling map[string]string, keepNull bool) (types.Map, diag.Diagnostics) {
	if len(entries) == 0 && keepNull {
		return types.MapNull(ipsetEntryType), nil
	}
	elems := make(map[string]attr.Value, len(entries))
	for k, e := range entries {
		written := e.CIDR
		if s, ok := spelling[k]; ok {
			written = s
		}
		comment := types.StringNull()
		if e.Comment != "" {
			comment = types.StringValue(e.Comment)
		}
		obj, diags := types.ObjectValue(ipsetEntryType.AttrTypes, map[string]attr.Value{
			"nomatch": types.BoolValue(e.NoMatch),
			"comment": comment,
		})
		if diags.HasError() {
			return types.MapNull(ipsetEntryType), diags
		}
		elems[written] = obj
	}
	return types.MapValue(ipsetEntryType, elems)
}

// fromAPI fills the model from the set as PVE holds it, keeping the
// configured spelling of addresses PVE stores the same.
func (m *ipsetModel) fromAPI(scope scopeRef, set pveapi.IPSet, live entryMap) diag.Diagnostics {
	_, spelling, diags := configuredEntries(m.Entries)
	if diags.HasError() {
		// A prior state PVE would not accept: show PVE's spelling.
		spelling, diags = map[string]string{}, nil
	}
	m.ID = types.StringValue(ipsetID(scope, set.Name))
	m.Name = types.StringValue(set.Name)
	m.Ref = types.StringValue("+" + scope.referencePrefix() + set.Name)
	m.Comment = types.StringNull()
	if set.Comment != "" {
		m.Comment = types.StringValue(set.Comment)
	}
	entries, d := entriesValue(live, spelling, m.Entries.IsNull())
	diags.Append(d...)
	m.Entries = entries
	return diags
}
