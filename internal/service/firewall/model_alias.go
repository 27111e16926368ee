package firewall

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// aliasModel is pve_firewall_alias's Terraform state.
type aliasModel struct {
	ID      types.String `tfsdk:"id"`
	VMID    types.Int64  `tfsdk:"vmid"`
	Name    types.String `tfsdk:"name"`
	CIDR    types.String `tfsdk:"cidr"`
	Comment types.String `tfsdk:"comment"`
	Ref     types.String `tfsdk:"ref"`
}

func (m aliasModel) scope() scopeRef { return scopeFromModel(types.StringNull(), m.VMID) }

// aliasID is the alias's import id: "cluster/NAME" or "guest/VMID/NAME".
func aliasID(scope scopeRef, name string) string { return scopedNameID(scope, name) }

// parseAliasID reads an import id; a node's firewall has no aliases.
func parseAliasID(id string) (scopeRef, string, error) {
	scope, name, err := parseScope(id)
	if err != nil {
		return scopeRef{}, "", err
	}
	if scope.kind() == nodeScope {
		return scopeRef{}, "", fmt.Errorf("%q names a node's firewall, which has no aliases: import a cluster alias as cluster/NAME or a guest's as guest/VMID/NAME", id)
	}
	if err := validateAliasName(name); err != nil {
		return scopeRef{}, "", fmt.Errorf("%q does not end in an alias name (cluster/NAME or guest/VMID/NAME): the name %w", id, err)
	}
	return scope, name, nil
}

// findAlias finds an alias by name as PVE does: ignoring case (pve-firewall
// src/PVE/API2/Firewall/Aliases.pm read_alias looks the lowercased name
// up).
func findAlias(aliases []pveapi.FirewallAlias, name string) (pveapi.FirewallAlias, bool) {
	for _, a := range aliases {
		if strings.EqualFold(a.Name, name) {
			return a, true
		}
	}
	return pveapi.FirewallAlias{}, false
}

// fromAPI fills the model from the alias as PVE holds it. The name is
// PVE's spelling (a change of case outside Terraform shows in the plan).
// The address keeps the configured spelling while it is the address PVE
// stores (10.0.0.5/32 is stored as 10.0.0.5), so such a configuration plans
// empty.
func (m *aliasModel) fromAPI(scope scopeRef, a pveapi.FirewallAlias) {
	m.ID = types.StringValue(aliasID(scope, a.Name))
	m.Name = types.StringValue(a.Name)
	m.Ref = types.StringValue(scope.referencePrefix() + a.Name)
	if !sameAliasCIDR(m.CIDR.ValueString(), a.CIDR) {
		m.CIDR = types.StringValue(a.CIDR)
	}
	m.Comment = types.StringNull()
	if a.Comment != "" {
		m.Comment = types.StringValue(a.Comment)
	}
}

// sameAliasCIDR tells whether the configured address is stored as stored.
func sameAliasCIDR(configured, stored string) bool {
	if configured == stored {
		return true
	}
	normal, err := normalizeAliasCIDR(configured)
	return err == nil && normal == stored
}

// aliasUnchanged tells whether PVE's alias is the one the state describes:
// the guard against a change made outside Terraform since the refresh.
func aliasUnchanged(state aliasModel, a pveapi.FirewallAlias) bool {
	return a.Name == state.Name.ValueString() && sameAliasCIDR(state.CIDR.ValueString(), a.CIDR) &&
		a.Comment == state.Comment.ValueString()
}

// aliasNeedsWrite tells whether the plan asks PVE for anything the state
// does not already have: a respelled address PVE stores the same is no
// change.
func aliasNeedsWrite(state, plan aliasModel) bool {
	if state.Name.ValueString() != plan.Name.ValueString() || state.Comment.ValueString() != plan.Comment.ValueString() {
		return true
	}
	a, errA := normalizeAliasCIDR(state.CIDR.ValueString())
	b, errB := normalizeAliasCIDR(plan.CIDR.ValueString())
	return errA != nil || errB != nil || a != b
}
