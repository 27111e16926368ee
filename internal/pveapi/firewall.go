package pveapi

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
)

// FirewallScope names the firewall a call addresses: the cluster's (no
// Node), a node's (Node only) or a guest's (Node, GuestType and VMID).
type FirewallScope struct {
	Node      string
	GuestType string // "qemu" or "lxc" for a guest's firewall
	VMID      int
}

// IsCluster tells whether the scope is the cluster's firewall.
func (s FirewallScope) IsCluster() bool { return s.Node == "" }

// IsGuest tells whether the scope is a guest's firewall.
func (s FirewallScope) IsGuest() bool { return s.VMID != 0 }

// path is the scope's firewall root, e.g. /nodes/pve1/qemu/100/firewall.
func (s FirewallScope) path() string {
	switch {
	case s.IsGuest():
		return guestPath(s.Node, s.GuestType, s.VMID, "/firewall")
	case s.IsCluster():
		return "/cluster/firewall"
	default:
		return "/nodes/" + url.PathEscape(s.Node) + "/firewall"
	}
}

// FirewallRuleList is a rule list: a scope's, or a security group's when
// Group is set (groups live in the cluster's firewall).
type FirewallRuleList struct {
	Scope FirewallScope
	Group string
}

func (l FirewallRuleList) path() string {
	if l.Group != "" {
		return "/cluster/firewall/groups/" + url.PathEscape(l.Group)
	}
	return l.Scope.path() + "/rules"
}

// FirewallRule is one rule as PVE answers it. Fields holds its keys as PVE
// stores them (type, action, macro, iface, source, dest, proto, dport,
// sport, log, icmp-type, comment, enable, ipversion), values as PVE prints
// them; pos and digest are apart.
type FirewallRule struct {
	Pos    int
	Digest string
	Fields map[string]string
}

// FirewallRules reads a rule list in order, with the digest PVE checks
// edits of the list against.
func (c *Client) FirewallRules(ctx context.Context, list FirewallRuleList) (rules []FirewallRule, digest string, err error) {
	var raw []map[string]any
	if err := c.Get(ctx, list.path(), nil, &raw); err != nil {
		return nil, "", err
	}
	rules = make([]FirewallRule, 0, len(raw))
	for i, entry := range raw {
		rule := FirewallRule{Pos: i, Fields: map[string]string{}}
		for k, v := range entry {
			switch k {
			case "pos":
				if n, ok := scalarString(v); ok {
					if p, err := strconv.Atoi(n); err == nil {
						rule.Pos = p
					}
				}
			case "digest":
				rule.Digest, _ = scalarString(v)
			default:
				if s, ok := scalarString(v); ok {
					rule.Fields[k] = s
				}
			}
		}
		if digest == "" {
			digest = rule.Digest
		}
		rules = append(rules, rule)
	}
	return rules, digest, nil
}

// CreateFirewallRule adds a rule; PVE puts a new rule first in the list and
// does not check the list's digest.
func (c *Client) CreateFirewallRule(ctx context.Context, list FirewallRuleList, fields map[string]string) error {
	form := url.Values{}
	for k, v := range fields {
		form.Set(k, v)
	}
	return c.Post(ctx, list.path(), form, nil)
}

// UpdateFirewallRule rewrites the rule at pos: fields are set, remove names
// the keys to drop. digest, when not empty, makes PVE refuse the change if
// the list changed since it was read.
func (c *Client) UpdateFirewallRule(ctx context.Context, list FirewallRuleList, pos int, fields map[string]string, remove []string, digest string) error {
	form := url.Values{}
	for k, v := range fields {
		form.Set(k, v)
	}
	if len(remove) > 0 {
		form.Set("delete", strings.Join(remove, ","))
	}
	setDigest(form, digest)
	return c.Put(ctx, list.path()+"/"+strconv.Itoa(pos), form, nil)
}

// MoveFirewallRule moves the rule at pos before the rule at moveTo in the
// current list (to the end when moveTo is the list's length).
func (c *Client) MoveFirewallRule(ctx context.Context, list FirewallRuleList, pos, moveTo int, digest string) error {
	form := url.Values{"moveto": {strconv.Itoa(moveTo)}}
	setDigest(form, digest)
	return c.Put(ctx, list.path()+"/"+strconv.Itoa(pos), form, nil)
}

// DeleteFirewallRule deletes the rule at pos.
func (c *Client) DeleteFirewallRule(ctx context.Context, list FirewallRuleList, pos int, digest string) error {
	query := url.Values{}
	setDigest(query, digest)
	return c.Delete(ctx, list.path()+"/"+strconv.Itoa(pos), query, nil)
}

// FirewallOptions reads a scope's options as PVE stores them (values
// printed as PVE prints them) and their digest.
func (c *Client) FirewallOptions(ctx context.Context, scope FirewallScope) (options map[string]string, digest string, err error) {
	var raw map[string]any
	if err := c.Get(ctx, scope.path()+"/options", nil, &raw); err != nil {
		return nil, "", err
	}
	options = make(map[string]string, len(raw))
	for k, v := range raw {
		s, ok := scalarString(v)
		if !ok {
			continue
		}
		if k == "digest" {
			digest = s
			continue
		}
		options[k] = s
	}
	return options, digest, nil
}

// UpdateFirewallOptions sets and removes options of a scope, guarded by
// digest when it is not empty.
func (c *Client) UpdateFirewallOptions(ctx context.Context, scope FirewallScope, set map[string]string, remove []string, digest string) error {
	form := url.Values{}
	for k, v := range set {
		form.Set(k, v)
	}
	if len(remove) > 0 {
		form.Set("delete", strings.Join(remove, ","))
	}
	setDigest(form, digest)
	return c.Put(ctx, scope.path()+"/options", form, nil)
}

// SecurityGroup is one entry of GET /cluster/firewall/groups.
type SecurityGroup struct {
	Group   string `json:"group"`
	Comment string `json:"comment,omitempty"`
	Digest  string `json:"digest,omitempty"`
}

// SecurityGroups lists the cluster's security groups.
func (c *Client) SecurityGroups(ctx context.Context) ([]SecurityGroup, error) {
	var out []SecurityGroup
	if err := c.Get(ctx, "/cluster/firewall/groups", nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// CreateSecurityGroup creates an empty security group.
func (c *Client) CreateSecurityGroup(ctx context.Context, name, comment string) error {
	form := url.Values{"group": {name}}
	if comment != "" {
		form.Set("comment", comment)
	}
	return c.Post(ctx, "/cluster/firewall/groups", form, nil)
}

// UpdateSecurityGroup renames a security group (PVE rewrites every rule
// that uses it) and sets its comment; to keep the name, pass it as both
// names. comment nil leaves the comment alone.
func (c *Client) UpdateSecurityGroup(ctx context.Context, name, newName string, comment *string, digest string) error {
	form := url.Values{"group": {newName}, "rename": {name}}
	if comment != nil {
		form.Set("comment", *comment)
	}
	setDigest(form, digest)
	return c.Post(ctx, "/cluster/firewall/groups", form, nil)
}

// DeleteSecurityGroup deletes an empty security group.
func (c *Client) DeleteSecurityGroup(ctx context.Context, name string) error {
	return c.Delete(ctx, "/cluster/firewall/groups/"+url.PathEscape(name), nil, nil)
}

// FirewallAlias is one alias of a scope.
type FirewallAlias struct {
	Name      string      `json:"name"`
	CIDR      string      `json:"cidr"`
	Comment   string      `json:"comment,omitempty"`
	IPVersion IntOrString `json:"ipversion,omitempty"`
	Digest    string      `json:"digest,omitempty"`
}

// FirewallAliases lists a scope's aliases (the cluster's or a guest's).
func (c *Client) FirewallAliases(ctx context.Context, scope FirewallScope) ([]FirewallAlias, error) {
	var out []FirewallAlias
	if err := c.Get(ctx, scope.path()+"/aliases", nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// CreateFirewallAlias adds an alias.
func (c *Client) CreateFirewallAlias(ctx context.Context, scope FirewallScope, name, cidr, comment string) error {
	form := url.Values{"name": {name}, "cidr": {cidr}}
	if comment != "" {
		form.Set("comment", comment)
	}
	return c.Post(ctx, scope.path()+"/aliases", form, nil)
}

// UpdateFirewallAlias rewrites an alias: its address and comment (PVE
// drops a comment that is not sent), and its name when newName differs.
// PVE finds the alias by its lowercased name and stores the name as the
// request's path spells it; its rename compares lowercased names and does
// nothing when they match. So a new spelling of the same name goes in the
// path, and only another name goes in rename (pve-firewall
// src/PVE/API2/Firewall/Aliases.pm register_update_alias).
func (c *Client) UpdateFirewallAlias(ctx context.Context, scope FirewallScope, name, newName, cidr, comment, digest string) error {
	form := url.Values{"cidr": {cidr}}
	if comment != "" {
		form.Set("comment", comment)
	}
	switch {
	case newName == "" || newName == name:
	case strings.EqualFold(newName, name):
		name = newName
	default:
		form.Set("rename", newName)
	}
	setDigest(form, digest)
	return c.Put(ctx, scope.path()+"/aliases/"+url.PathEscape(name), form, nil)
}

// DeleteFirewallAlias deletes an alias.
func (c *Client) DeleteFirewallAlias(ctx context.Context, scope FirewallScope, name, digest string) error {
	query := url.Values{}
	setDigest(query, digest)
	return c.Delete(ctx, scope.path()+"/aliases/"+url.PathEscape(name), query, nil)
}

// IPSet is one entry of a scope's IP set list.
type IPSet struct {
	Name    string `json:"name"`
	Comment string `json:"comment,omitempty"`
	Digest  string `json:"digest,omitempty"`
}

// IPSetEntry is one address of an IP set.
type IPSetEntry struct {
	CIDR    string `json:"cidr"`
	NoMatch Bool01 `json:"nomatch,omitempty"`
	Comment string `json:"comment,omitempty"`
	Digest  string `json:"digest,omitempty"`
}

// IPSets lists a scope's IP sets.
func (c *Client) IPSets(ctx context.Context, scope FirewallScope) ([]IPSet, error) {
	var out []IPSet
	if err := c.Get(ctx, scope.path()+"/ipset", nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// CreateIPSet creates an empty IP set.
func (c *Client) CreateIPSet(ctx context.Context, scope FirewallScope, name, comment string) error {
	form := url.Values{"name": {name}}
	if comment != "" {
		form.Set("comment", comment)
	}
	return c.Post(ctx, scope.path()+"/ipset", form, nil)
}

// UpdateIPSet renames an IP set and sets its comment; to keep the name,
// pass it as both names. comment nil leaves the comment alone.
func (c *Client) UpdateIPSet(ctx context.Context, scope FirewallScope, name, newName string, comment *string, digest string) error {
	form := url.Values{"name": {newName}, "rename": {name}}
	if comment != nil {
		form.Set("comment", *comment)
	}
	setDigest(form, digest)
	return c.Post(ctx, scope.path()+"/ipset", form, nil)
}

// DeleteIPSet deletes an IP set; force deletes one that still has entries.
func (c *Client) DeleteIPSet(ctx context.Context, scope FirewallScope, name string, force bool) error {
	query := url.Values{}
	if force {
		query.Set("force", FormBool(true))
	}
	return c.Delete(ctx, ipsetPath(scope, name), query, nil)
}

// IPSetEntries reads an IP set's addresses and the set's digest. PVE puts
// the digest on each entry, so an empty set's answer carries none: its
// digest is that of an empty list (pve-firewall src/PVE/Firewall.pm
// copy_list_with_digest), the SHA-1 of nothing.
func (c *Client) IPSetEntries(ctx context.Context, scope FirewallScope, name string) (entries []IPSetEntry, digest string, err error) {
	if err := c.Get(ctx, ipsetPath(scope, name), nil, &entries); err != nil {
		return nil, "", err
	}
	digest = emptyListDigest
	if len(entries) > 0 {
		digest = entries[0].Digest
	}
	return entries, digest, nil
}

// emptyListDigest is the digest PVE gives a list with no entries.
const emptyListDigest = "da39a3ee5e6b4b0d3255bfef95601890afd80709"

// AddIPSetEntry adds an address (PVE does not check the set's digest for
// additions).
func (c *Client) AddIPSetEntry(ctx context.Context, scope FirewallScope, name string, entry IPSetEntry) error {
	form := url.Values{"cidr": {entry.CIDR}}
	if entry.NoMatch {
		form.Set("nomatch", FormBool(true))
	}
	if entry.Comment != "" {
		form.Set("comment", entry.Comment)
	}
	return c.Post(ctx, ipsetPath(scope, name), form, nil)
}

// UpdateIPSetEntry sets an address's nomatch flag and comment (PVE replaces
// both).
func (c *Client) UpdateIPSetEntry(ctx context.Context, scope FirewallScope, name string, entry IPSetEntry, digest string) error {
	form := url.Values{}
	if entry.NoMatch {
		form.Set("nomatch", FormBool(true))
	}
	if entry.Comment != "" {
		form.Set("comment", entry.Comment)
	}
	setDigest(form, digest)
	return c.Put(ctx, ipsetEntryPath(scope, name, entry.CIDR), form, nil)
}

// DeleteIPSetEntry removes an address.
func (c *Client) DeleteIPSetEntry(ctx context.Context, scope FirewallScope, name, cidr, digest string) error {
	query := url.Values{}
	setDigest(query, digest)
	return c.Delete(ctx, ipsetEntryPath(scope, name, cidr), query, nil)
}

func ipsetPath(scope FirewallScope, name string) string {
	return scope.path() + "/ipset/" + url.PathEscape(name)
}

// ipsetEntryPath addresses one address of a set. PVE takes the rest of the
// path as the address (the handler is mounted without a fragment
// delimiter), so the slash of a CIDR is sent as it is.
func ipsetEntryPath(scope FirewallScope, name, cidr string) string {
	return ipsetPath(scope, name) + "/" + cidr
}

// FirewallMacro is one macro PVE knows.
type FirewallMacro struct {
	Macro       string `json:"macro"`
	Description string `json:"descr"`
}

// FirewallMacros lists the macros rules may use.
func (c *Client) FirewallMacros(ctx context.Context) ([]FirewallMacro, error) {
	var out []FirewallMacro
	if err := c.Get(ctx, "/cluster/firewall/macros", nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// FirewallRef is an alias or IP set a rule of a scope may name.
type FirewallRef struct {
	Type    string `json:"type"` // alias or ipset
	Name    string `json:"name"`
	Ref     string `json:"ref"`
	Scope   string `json:"scope,omitempty"`
	Comment string `json:"comment,omitempty"`
}

// FirewallRefs lists what a rule of the scope may reference; kind is
// "alias", "ipset" or empty for both.
func (c *Client) FirewallRefs(ctx context.Context, scope FirewallScope, kind string) ([]FirewallRef, error) {
	query := url.Values{}
	if kind != "" {
		query.Set("type", kind)
	}
	var out []FirewallRef
	if err := c.Get(ctx, scope.path()+"/refs", query, &out); err != nil {
		return nil, err
	}
	return out, nil
}

func setDigest(form url.Values, digest string) {
	if digest != "" {
		form.Set("digest", digest)
	}
}

// scalarString prints a JSON scalar the way PVE printed it.
func scalarString(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case json.Number:
		return t.String(), true
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64), true
	case bool:
		return FormBool(t), true
	}
	return "", false
}

// IsDigestMismatch reports PVE's refusal of an edit whose digest is not the
// digest of what it edits: the object changed since it was read
// (pve-common PVE/Tools.pm assert_if_modified, a plain die: 500).
func IsDigestMismatch(err error) bool {
	apiErr, ok := AsError(err)
	return ok && apiErr.StatusCode == 500 &&
		strings.HasPrefix(firstLine(apiErr.Message), "detected modified configuration - file changed by other user?")
}

// IsNoSuchSecurityGroup reports PVE's answer for a security group that does
// not exist (pve-firewall PVE/API2/Firewall/Rules.pm GroupRules
// load_config).
func IsNoSuchSecurityGroup(err error) bool {
	apiErr, ok := AsError(err)
	return ok && apiErr.StatusCode == 500 && strings.HasPrefix(firstLine(apiErr.Message), "no such security group '")
}
