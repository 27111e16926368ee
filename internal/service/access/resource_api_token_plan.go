package access

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// ModifyPlan decides what the connected PVE release can do in place: a
// secret rotation regenerates the secret where PVE can (the new secret is
// then unknown until apply) and replaces the token elsewhere; removing a
// comment is refused where PVE cannot remove it. It also refuses to cut
// off the provider's own access (allow_self_lockout).
func (r *apiTokenResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.State.Raw.IsNull() || r.client == nil {
		return // a new token, or no provider yet to ask
	}
	var state apiTokenModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if req.Plan.Raw.IsNull() {
		r.refuseSelfLockout(state, state.AllowSelfLockout, "Destroying", "destroy", &resp.Diagnostics)
		return
	}
	var plan apiTokenModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}

	replaced := !plan.UserID.Equal(state.UserID) || !plan.TokenName.Equal(state.TokenName)
	rotated := !plan.SecretVersion.Equal(state.SecretVersion)
	if rotated && !replaced {
		version, ok := r.pveVersion(ctx, &resp.Diagnostics)
		if !ok {
			return
		}
		if wire.TokenRegenerateSupported(version) {
			plan.Value = types.StringUnknown()
			plan.APIToken = types.StringUnknown()
			resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
		} else {
			resp.RequiresReplace = append(resp.RequiresReplace, path.Root("secret_version"))
			replaced = true
		}
	}

	if !replaced && plan.Comment.IsNull() && !state.Comment.IsNull() {
		version, ok := r.pveVersion(ctx, &resp.Diagnostics)
		if !ok {
			return
		}
		if !wire.TokenCommentClearable(version) {
			resp.Diagnostics.AddAttributeError(path.Root("comment"), "API Token Comment Cannot Be Removed", fmt.Sprintf(
				"PVE %s cannot remove the comment of an existing API token (PVE removes it from pve-manager 9.0.13 on). "+
					"Keep a comment, or change secret_version in the same apply to recreate %s without one: the token then "+
					"gets a new secret, and PVE drops its ACL entries with the old token.", version, state.tokenID()))
		}
	}

	switch {
	case replaced:
		r.refuseSelfLockout(state, plan.AllowSelfLockout, "Replacing", "replace", &resp.Diagnostics)
	case rotated:
		r.refuseSelfLockout(state, plan.AllowSelfLockout, "Rotating", "regenerate the secret of", &resp.Diagnostics)
	case plan.PrivilegeSeparation.ValueBool() && !state.PrivilegeSeparation.ValueBool():
		r.refuseSelfLockout(state, plan.AllowSelfLockout, "Separating", "turn on privilege separation for", &resp.Diagnostics)
	}
}

// refuseSelfLockout refuses a change that takes away the provider's own
// credentials (or its privileges), unless allow_self_lockout is true.
func (r *apiTokenResource) refuseSelfLockout(state apiTokenModel, allow types.Bool, verb, action string, diags *diag.Diagnostics) {
	self := r.client.Principal()
	if state.tokenID() != self || allow.ValueBool() {
		return
	}
	consequence := "the provider's requests fail from then on, in this apply too"
	if verb == "Separating" {
		consequence = "the token keeps only the privileges its own ACL entries grant, which may be none"
	}
	diags.AddAttributeError(path.Root("allow_self_lockout"), verb+" The Provider's Own API Token", fmt.Sprintf(
		"The provider authenticates with the API token %s, and this plan would %s it: %s. "+
			"Give the provider other credentials first, or set allow_self_lockout = true on this resource "+
			"(and apply that alone first when destroying) to do it anyway.", self, action, consequence))
}
