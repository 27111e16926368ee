package firewall

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// ipsetModel is pve_firewall_ipset's Terraform state.
type ipsetModel struct {
	ID      types.String `tfsdk:"id"`
	VMID    types.Int64  `tfsdk:"vmid"`
	Name    types.String `tfsdk:"name"`
	Comment types.String `tfsdk:"comment"`
	Entries types.Set    `tfsdk:"entries"`
}

// ipsetEntryModel is one element of entries.
type ipsetEntryModel struct {
	CIDR    types.String `tfsdk:"cidr"`
	NoMatch types.Bool   `tfsdk:"nomatch"`
	Comment types.String `tfsdk:"comment"`
}

var ipsetEntryType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"cidr":    types.StringType,
	"nomatch": types.BoolType,
	"comment": types.StringType,
}}

func (m ipsetModel) scope() scopeRef { return scopeFromModel(types.StringNull(), m.VMID) }

// ipsetID is the IP set's import id: "cluster/NAME" or "guest/VMID/NAME".
func ipsetID(scope scopeRef, name string) string { return scope.String() + "/" + name }

// validateIPSetName is the name check of IP sets: PVE's pattern, and no
// capitals, because PVE's configuration parser lowercases IP set names
// (pve-firewall src/PVE/Firewall.pm generic_fw_config_parser): a set
// created as "Office" is read back as "office".
func validateIPSetName(name string) error {
	if err := validateFirewallName(name); err != nil {
		return err
	}
	if lower := strings.ToLower(name); lower != name {
		return fmt.Errorf("must be lowercase: PVE would store the IP set as %q", lower)
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
		return scopeRef{}, "", fmt.Errorf("%q does not end in an IP set name (cluster/NAME or guest/VMID/NAME): the name %s", id, err)
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
func configuredEntries(ctx context.Context, set types.Set) (entryMap, map[string]string, diag.Diagnostics) {
	var models []ipsetEntryModel
	var diags diag.Diagnostics
	if set.IsNull() || set.IsUnknown() {
		return entryMap{}, map[string]string{}, diags
	}
	diags.Append(set.ElementsAs(ctx, &models, false)...)
	if diags.HasError() {
		return nil, nil, diags
	}
	entries, spelling, err := storedEntries(models)
	if err != nil {
		diags.AddError("Invalid IP Set Entries", err.Error())
	}
	return entries, spelling, diags
}

// storedEntries maps configured entries to PVE's form; see
// configuredEntries. Entries with an unknown address are left out.
func storedEntries(models []ipsetEntryModel) (entryMap, map[string]string, error) {
	entries := make(entryMap, len(models))
	spelling := map[string]string{}
	for _, m := range models {
		if m.CIDR.IsUnknown() || m.CIDR.IsNull() {
			continue
		}
		written := m.CIDR.ValueString()
		stored, err := normalizeIPSetCIDR(written)
		if err != nil {
			return nil, nil, fmt.Errorf("entry %q %s", written, err)
		}
		if _, dup := entries[stored]; dup {
			other := stored
			if s, ok := spelling[stored]; ok {
				other = s
			}
			return nil, nil, fmt.Errorf("entries %q and %q are the same address to PVE, which stores both as %q "+
				"and keeps one entry per address: keep one of them", other, written, stored)
		}
		entries[stored] = ipsetEntry{CIDR: stored, NoMatch: m.NoMatch.ValueBool(), Comment: m.Comment.ValueString()}
		if written != stored {
			spelling[stored] = written
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
	return firewallListDigest(list)
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

// entriesValue renders entries for state: each address in the configured
// spelling where one is known for it, PVE's otherwise. keepNull leaves an
// empty set null (entries not configured).
func entriesValue(entries entryMap, spelling map[string]string, keepNull bool) (types.Set, diag.Diagnostics) {
	if len(entries) == 0 && keepNull {
		return types.SetNull(ipsetEntryType), nil
	}
	elems := make([]attr.Value, 0, len(entries))
	for _, k := range entries.sortedAddresses() {
		e := entries[k]
		written := e.CIDR
		if s, ok := spelling[k]; ok {
			written = s
		}
		comment := types.StringNull()
		if e.Comment != "" {
			comment = types.StringValue(e.Comment)
		}
		obj, diags := types.ObjectValue(ipsetEntryType.AttrTypes, map[string]attr.Value{
			"cidr":    types.StringValue(written),
			"nomatch": types.BoolValue(e.NoMatch),
			"comment": comment,
		})
		if diags.HasError() {
			return types.SetNull(ipsetEntryType), diags
		}
		elems = append(elems, obj)
	}
	return types.SetValue(ipsetEntryType, elems)
}

// fromAPI fills the model from the set as PVE holds it, keeping the
// configured spelling of addresses PVE stores the same.
func (m *ipsetModel) fromAPI(ctx context.Context, scope scopeRef, set pveapi.IPSet, live entryMap) diag.Diagnostics {
	_, spelling, diags := configuredEntries(ctx, m.Entries)
	if diags.HasError() {
		// A prior state PVE would not accept: show PVE's spelling.
		spelling, diags = map[string]string{}, nil
	}
	m.ID = types.StringValue(ipsetID(scope, set.Name))
	m.Name = types.StringValue(set.Name)
	m.Comment = types.StringNull()
	if set.Comment != "" {
		m.Comment = types.StringValue(set.Comment)
	}
	entries, d := entriesValue(live, spelling, m.Entries.IsNull())
	diags.Append(d...)
	m.Entries = entries
	return diags
}
