package pveapi

import (
	"context"
	"net/url"
	"regexp"
	"strings"
)

// HA groups (PVE 8, /cluster/ha/groups) and HA rules (PVE 9,
// /cluster/ha/rules): cluster-wide configuration in ha/groups.cfg and
// ha/rules.cfg. Writes are synchronous. Each answer carries the digest of
// the whole file, so a write guarded by a digest fails when any group (or
// rule) changed since that digest was read.

// HAGroup is GET /cluster/ha/groups/{group}. Nodes is PVE's node list
// ("pve1:2,pve2"), in no particular order.
type HAGroup struct {
	Group      string  `json:"group"`
	Nodes      string  `json:"nodes"`
	Restricted *Bool01 `json:"restricted,omitempty"`
	NoFailback *Bool01 `json:"nofailback,omitempty"`
	Comment    *string `json:"comment,omitempty"`
	Digest     string  `json:"digest"`
}

// HAGroupConfig is what a group create or update sends. Nil fields are
// not sent; Delete lists options to remove (update only).
type HAGroupConfig struct {
	Nodes      string
	Restricted *bool
	NoFailback *bool
	Comment    *string
	Delete     []string
	Digest     string
}

func (c HAGroupConfig) form() url.Values {
	f := url.Values{}
	if c.Nodes != "" {
		f.Set("nodes", c.Nodes)
	}
	if c.Restricted != nil {
		f.Set("restricted", FormBool(*c.Restricted))
	}
	if c.NoFailback != nil {
		f.Set("nofailback", FormBool(*c.NoFailback))
	}
	if c.Comment != nil {
		f.Set("comment", *c.Comment)
	}
	if len(c.Delete) > 0 {
		f.Set("delete", strings.Join(c.Delete, ","))
	}
	if c.Digest != "" {
		f.Set("digest", c.Digest)
	}
	return f
}

func haGroupPath(id string) string { return "/cluster/ha/groups/" + url.PathEscape(id) }

// GetHAGroup reads one group; found is false when PVE has no such group.
// On PVE 9 after the group migration this is an error IsHAGroupsMigrated
// recognises.
func (c *Client) GetHAGroup(ctx context.Context, id string) (group *HAGroup, found bool, err error) {
	var out HAGroup
	if err := c.Get(ctx, haGroupPath(id), nil, &out); err != nil {
		if isNoSuchHAObject(err, "group") {
			return nil, false, nil
		}
		return nil, false, err
	}
	out.Group = id
	return &out, true, nil
}

// HAGroupsMigrated tells whether PVE refuses HA groups because its HA
// manager has turned them into rules (PVE 9). It asks
// GET /cluster/ha/groups, which PVE 9 refuses from then on; PVE 8 always
// answers it.
func (c *Client) HAGroupsMigrated(ctx context.Context) (bool, error) {
	var out []map[string]any
	if err := c.Get(ctx, "/cluster/ha/groups", nil, &out); err != nil {
		if IsHAGroupsMigrated(err) {
			return true, nil
		}
		return false, err
	}
	return false, nil
}

// CreateHAGroup creates group id.
func (c *Client) CreateHAGroup(ctx context.Context, id string, cfg HAGroupConfig) error {
	f := cfg.form()
	f.Set("group", id)
	f.Del("delete")
	f.Del("digest")
	return c.Post(ctx, "/cluster/ha/groups", f, nil)
}

// UpdateHAGroup changes group id.
func (c *Client) UpdateHAGroup(ctx context.Context, id string, cfg HAGroupConfig) error {
	return c.Put(ctx, haGroupPath(id), cfg.form(), nil)
}

// DeleteHAGroup deletes group id; PVE refuses while an HA resource uses
// it, and succeeds when the group does not exist.
func (c *Client) DeleteHAGroup(ctx context.Context, id string) error {
	return c.Delete(ctx, haGroupPath(id), nil, nil)
}

// HARule is one rule as GET /cluster/ha/rules/{rule} answers it. Nodes
// and Resources are PVE's lists, sorted by PVE. Errors are the reasons
// PVE's HA manager ignores the rule, per option.
type HARule struct {
	Rule      string              `json:"rule"`
	Type      string              `json:"type"`
	Resources string              `json:"resources"`
	Nodes     *string             `json:"nodes,omitempty"`
	Strict    *Bool01             `json:"strict,omitempty"`
	Affinity  *string             `json:"affinity,omitempty"`
	Disable   *Bool01             `json:"disable,omitempty"`
	Comment   *string             `json:"comment,omitempty"`
	Order     *IntOrString        `json:"order,omitempty"`
	Digest    string              `json:"digest"`
	Errors    map[string][]string `json:"errors,omitempty"`
}

// HARuleConfig is what a rule create or update sends. Type is always
// sent: PVE's update requires it and refuses a different one.
type HARuleConfig struct {
	Type      string
	Resources string
	Nodes     string
	Strict    *bool
	Affinity  string
	Disable   bool
	Comment   *string
	Delete    []string
	Digest    string
}

func (c HARuleConfig) form() url.Values {
	f := url.Values{"type": {c.Type}}
	for k, v := range map[string]string{"resources": c.Resources, "nodes": c.Nodes, "affinity": c.Affinity, "digest": c.Digest} {
		if v != "" {
			f.Set(k, v)
		}
	}
	if c.Strict != nil {
		f.Set("strict", FormBool(*c.Strict))
	}
	// PVE drops a false disable (Rules.pm create_rule/update_rule): a rule
	// is enabled again by deleting the option.
	if c.Disable {
		f.Set("disable", "1")
	}
	if c.Comment != nil {
		f.Set("comment", *c.Comment)
	}
	if len(c.Delete) > 0 {
		f.Set("delete", strings.Join(c.Delete, ","))
	}
	return f
}

func haRulePath(id string) string { return "/cluster/ha/rules/" + url.PathEscape(id) }

// GetHARule reads one rule; found is false when PVE has no such rule.
func (c *Client) GetHARule(ctx context.Context, id string) (rule *HARule, found bool, err error) {
	var out HARule
	if err := c.Get(ctx, haRulePath(id), nil, &out); err != nil {
		if isNoSuchHAObject(err, "rule") {
			return nil, false, nil
		}
		return nil, false, err
	}
	out.Rule = id
	return &out, true, nil
}

// CreateHARule creates rule id.
func (c *Client) CreateHARule(ctx context.Context, id string, cfg HARuleConfig) error {
	cfg.Delete, cfg.Digest = nil, ""
	f := cfg.form()
	f.Set("rule", id)
	return c.Post(ctx, "/cluster/ha/rules", f, nil)
}

// UpdateHARule changes rule id.
func (c *Client) UpdateHARule(ctx context.Context, id string, cfg HARuleConfig) error {
	return c.Put(ctx, haRulePath(id), cfg.form(), nil)
}

// DeleteHARule deletes rule id; PVE succeeds when it does not exist.
func (c *Client) DeleteHARule(ctx context.Context, id string) error {
	return c.Delete(ctx, haRulePath(id), nil, nil)
}

var (
	// pve-ha-manager src/PVE/API2/HA/Groups.pm $api_copy_config and
	// Rules.pm $get_api_ha_rule.
	noSuchHAObjectPattern = regexp.MustCompile(`^no such ha (group|rule) '[^']*'$`)
	// PVE's digest refusal (pve-common src/PVE/Tools.pm
	// assert_if_modified), behind the caller's prefix.
	haModifiedPattern = regexp.MustCompile(`detected modified configuration - file changed by other user\? Try again\.$`)
)

func isNoSuchHAObject(err error, kind string) bool {
	apiErr, ok := AsError(err)
	if !ok || apiErr.StatusCode != 500 {
		return false
	}
	m := noSuchHAObjectPattern.FindStringSubmatch(firstLine(apiErr.Message))
	return m != nil && m[1] == kind
}

// IsHAGroupsMigrated reports PVE 9's refusal of a group call after its HA
// manager turned the groups into rules.
func IsHAGroupsMigrated(err error) bool {
	apiErr, ok := AsError(err)
	return ok && apiErr.StatusCode == 500 && strings.HasSuffix(firstLine(apiErr.Message), "ha groups have been migrated to rules")
}

// IsHAGroupsNotMigrated reports PVE 9's refusal of a rule write while HA
// groups remain.
func IsHAGroupsNotMigrated(err error) bool {
	apiErr, ok := AsError(err)
	return ok && apiErr.StatusCode == 500 && strings.HasSuffix(firstLine(apiErr.Message), "ha groups have not been migrated yet")
}

// IsHAConfigModified reports a digest-guarded write that PVE refused
// because the file changed since the digest was read.
func IsHAConfigModified(err error) bool {
	apiErr, ok := AsError(err)
	return ok && apiErr.StatusCode == 500 && haModifiedPattern.MatchString(firstLine(apiErr.Message))
}
