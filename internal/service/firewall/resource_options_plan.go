package firewall

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// LockoutWarningSummary is the title of the plan warning given when a plan
// switches the cluster's firewall on with an input policy that drops what
// no rule accepts.
const LockoutWarningSummary = "Cluster Firewall Will Drop Unmatched Incoming Traffic"

// ModifyPlan warns when the plan switches the cluster's firewall on, or
// tightens its input policy while it is on: the provider cannot know
// whether the rules PVE has let Terraform itself in.
func (r *optionsResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	plan, ok := getOptions(ctx, req.Plan.Get, &resp.Diagnostics)
	if !ok {
		return
	}
	var state *optionsModel
	if !req.State.Raw.IsNull() {
		s, ok := getOptions(ctx, req.State.Get, &resp.Diagnostics)
		if !ok {
			return
		}
		state = &s
	}
	if detail, warn := lockoutWarning(plan, state); warn {
		resp.Diagnostics.AddAttributeWarning(path.Root("enabled"), LockoutWarningSummary, detail)
	}
}

// lockoutWarning decides the warning for a plan of the cluster's options
// (state nil: create). PVE drops unmatched incoming traffic to the nodes
// when the cluster's policy_in is unset (pve-firewall src/PVE/Firewall.pm
// enable_host_firewall: policy_in defaults to DROP), so an unset policy
// warns too.
func lockoutWarning(plan optionsModel, state *optionsModel) (string, bool) {
	if plan.kind() != clusterScope {
		return "", false
	}
	enabled, _ := plan.value(optionSpecByAttr("enabled")).(types.Bool)
	policy, _ := plan.value(optionSpecByAttr("policy_in")).(types.String)
	if enabled.IsUnknown() || !enabled.ValueBool() || policy.IsUnknown() || policy.ValueString() == "ACCEPT" {
		return "", false
	}
	if state != nil {
		wasEnabled, _ := state.value(optionSpecByAttr("enabled")).(types.Bool)
		wasPolicy, _ := state.value(optionSpecByAttr("policy_in")).(types.String)
		if wasEnabled.ValueBool() && wasPolicy.Equal(policy) {
			return "", false
		}
	}

	how := "its input policy " + policy.ValueString()
	if policy.IsNull() {
		how = "the input policy PVE has (DROP unless policy_in is set in PVE)"
	}
	return "This plan turns on the cluster's firewall with " + how + ": on every node whose own firewall is on " +
		"(the default), incoming connections that no rule accepts are dropped (REJECT: refused).\n\n" +
		"PVE always accepts, from the addresses in the cluster's IP set `management`, TCP connections to the API and web " +
		"interface (8006), SSH (22), VNC consoles (5900-5999), the SPICE proxy (3128) and migration (60000-60050), and it " +
		"accepts corosync traffic between the cluster's nodes. PVE adds the `local_network` alias to that set: the cluster " +
		"alias of that name if there is one, otherwise the network PVE finds around the node's own address.\n\n" +
		"If Terraform reaches PVE from elsewhere, add its address to the IP set `management` or add a rule that accepts it " +
		"before applying, or this apply can lock Terraform (and you) out. The provider cannot see whether such a rule " +
		"exists, so it warns whenever it turns the firewall on or changes its input policy.", true
}
