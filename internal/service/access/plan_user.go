package access

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// ModifyPlan refuses, before anything is changed, what PVE would refuse
// half-way or what would cut the provider off from PVE: deleting,
// replacing or disabling the user the provider runs as, and a password
// change while the provider authenticates with an API token.
func (r *userResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if r.client == nil || req.State.Raw.IsNull() {
		return // not configured yet, or a create: nothing to guard
	}
	var state userModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	self := ownUser(r.client.Principal())
	isSelf := self != "" && state.UserID.ValueString() == self
	allowed := state.AllowSelfLockout.ValueBool()

	if req.Plan.Raw.IsNull() {
		if isSelf && !allowed {
			resp.Diagnostics.AddError("Deleting The Provider's Own User", fmt.Sprintf(
				"User %s is the user the provider runs as (%s). Deleting it would delete the provider's own login and tokens "+
					"and lock it out of PVE half-way. Run the provider as another user, or set allow_self_lockout = true "+
					"on this resource and apply that before destroying it.", self, r.client.Principal()))
		}
		return
	}

	var plan userModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	allowed = allowed || plan.AllowSelfLockout.ValueBool()
	if isSelf && !allowed {
		if !plan.UserID.IsUnknown() && plan.UserID.ValueString() != self {
			resp.Diagnostics.AddAttributeError(path.Root("userid"), "Replacing The Provider's Own User", fmt.Sprintf(
				"Changing userid replaces the user, which deletes %s, the user the provider runs as (%s), and locks the "+
					"provider out of PVE. Keep the userid, or set allow_self_lockout = true and apply that first.", self, r.client.Principal()))
		}
		if !plan.Enabled.IsUnknown() && !plan.Enabled.ValueBool() && state.Enabled.ValueBool() {
			resp.Diagnostics.AddAttributeError(path.Root("enabled"), "Disabling The Provider's Own User", fmt.Sprintf(
				"Disabling %s, the user the provider runs as (%s), stops its login and API tokens and locks the provider out "+
					"of PVE. Run the provider as another user, or set allow_self_lockout = true and apply that first.", self, r.client.Principal()))
		}
	}

	// A replacement creates the user, which may set its initial password
	// with a token; only a change of an existing user's password needs a
	// ticket. A userid not known yet may be a replacement: left to apply.
	replaced := plan.UserID.IsUnknown() || plan.UserID.ValueString() != state.UserID.ValueString()
	if !replaced && passwordChange(state, plan) && r.client.UsesAPIToken() {
		resp.Diagnostics.AddAttributeError(path.Root("password_wo_version"), "Password Change Needs A Password Login", fmt.Sprintf(
			"password_wo_version changed, so the provider would set the password of %s again, but it authenticates with "+
				"an API token (%s) and PVE refuses password changes to API tokens. Configure the provider with username and "+
				"password (a ticket login) for this apply, or keep password_wo_version as it is.",
			plan.UserID.ValueString(), r.client.Principal()))
	}
}

// ownUser is the user a principal acts for: the user itself, or the
// owner of an API token (USER@REALM!TOKEN).
func ownUser(principal string) string {
	if userid, _, ok := wire.SplitTokenID(principal); ok {
		return userid
	}
	if wire.UserIDProblem(principal) == "" {
		return principal
	}
	return ""
}
