package lxc

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

// CheckConfig checks what needs several attributes at once: volume
// versus bind mount, sizes, quotas, empty nested objects.
func (r *containerResource) CheckConfig(m *containerModel) []guestops.Issue {
	return checkConfig(m)
}

// ModifyPlan needs os_template to create; runs the data-loss guard on
// updates; refuses, under any login but root@pam with a password, the
// changes PVE reserves to root@pam (W33, W36); warns that keys and
// password apply only at create; and marks the power status as unknown
// when an update may change it.
func (r *containerResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if r.api.RefuseTurnedTemplate(ctx, req.Private, &resp.Diagnostics) {
		return
	}
	if req.Plan.Raw.IsNull() {
		r.api.WarnDestroyPlan(ctx, req.State, req.Private, &resp.Diagnostics)
		return
	}
	r.api.CheckPlacement(ctx, req, resp)
	r.api.CheckHA(ctx, req, resp)
	plan, okPlan := guestops.ReadModel[containerModel](ctx, req.Plan)
	if !okPlan {
		return
	}
	// A plan that changes nothing, the plan of most guests, decodes one
	// model for plan and state (the checks only read them).
	unchanged := guestops.PlanUnchanged(req)
	var state *containerModel
	switch {
	case unchanged:
		state = plan
	case !req.State.Raw.IsNull():
		var okState bool
		if state, okState = guestops.ReadModel[containerModel](ctx, req.State); !okState {
			return
		}
	}
	if state == nil {
		guestops.AddIssues(&resp.Diagnostics, checkNewContainerSource(plan))
		var template types.String
		resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("os_template"), &template)...)
		if template.IsNull() && !plan.inherits() {
			resp.Diagnostics.AddAttributeError(path.Root("os_template"), "Template Required",
				"Creating a container needs os_template, the template archive to unpack, such as "+
					"\"local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst\". Upload one with pve_os_template, or import an existing container.")
		}
	} else {
		guestops.AddIssues(&resp.Diagnostics, checkPlan(state, plan))
		guestops.AddIssues(&resp.Diagnostics, createOnlyWarnings(state, plan))
		// Where the container is: HA may have moved it off the declared node.
		node := r.api.NodeOf(ctx, req.Private, state.Node.ValueString())
		r.checkVanishedMounts(ctx, req, resp, node, state, plan)
		r.checkReplicatedMounts(ctx, node, state, plan, &resp.Diagnostics)
		r.checkMigration(ctx, node, state, plan, &resp.Diagnostics)
		guestops.AddIssues(&resp.Diagnostics, migrationRestartWarning(node, state, plan))
	}
	prior := r.warnReplacement(ctx, req.Private, state, plan, &resp.Diagnostics)
	if client := r.api.Client; client != nil && (client.UsesAPIToken() || client.Principal() != rootPrincipal) {
		guestops.AddIssues(&resp.Diagnostics, rootOnlyIssues(prior, plan, client.Principal()))
		guestops.AddIssues(&resp.Diagnostics, deviceIssues(prior, plan, client.Principal()))
	}
	if resp.Diagnostics.HasError() || state == nil || unchanged {
		return
	}
	guestops.MarkStatusIfItMayChange(ctx, req, resp)
}

// unprivilegedByDefault plans unprivileged = true for a container created
// from a template without the attribute: the provider then sends
// unprivileged=1, which PVE 9 defaults to and PVE 8 does not (it would
// create a privileged container). A clone or restore keeps its source's
// value, and an existing container the value in state: a container that
// was created privileged is never planned for replacement by this default.
func unprivilegedByDefault() planmodifier.Bool { return unprivilegedDefaultModifier{} }

type unprivilegedDefaultModifier struct{}

func (unprivilegedDefaultModifier) Description(context.Context) string {
	return "A container created from a template without unprivileged is unprivileged."
}

func (m unprivilegedDefaultModifier) MarkdownDescription(ctx context.Context) string {
	return m.Description(ctx)
}

func (unprivilegedDefaultModifier) PlanModifyBool(ctx context.Context, req planmodifier.BoolRequest, resp *planmodifier.BoolResponse) {
	if !req.State.Raw.IsNull() || req.Plan.Raw.IsNull() || !req.ConfigValue.IsNull() || !req.PlanValue.IsUnknown() {
		return
	}
	for _, source := range []string{"clone", "restore"} {
		var v types.Object
		if diags := req.Config.GetAttribute(ctx, path.Root(source), &v); diags.HasError() || !v.IsNull() {
			return
		}
	}
	resp.PlanValue = types.BoolValue(true)
}

// osTemplateRecorded makes a change of os_template an in-place update
// that sends nothing to PVE: PVE unpacks a template only when it creates a
// container (W35), so the new one only says how a container created from
// now on is made. The plan warns so. A template missing from state (an
// imported container) is recorded without a word.
func osTemplateRecorded() planmodifier.String { return osTemplateModifier{} }

type osTemplateModifier struct{}

func (osTemplateModifier) Description(context.Context) string {
	return "Changing os_template is only recorded: it affects only a container created from now on."
}

func (m osTemplateModifier) MarkdownDescription(ctx context.Context) string {
	return m.Description(ctx)
}

func (osTemplateModifier) PlanModifyString(_ context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() || !guestops.Known(req.StateValue) || req.PlanValue.IsUnknown() ||
		req.PlanValue.Equal(req.StateValue) {
		return
	}
	change := fmt.Sprintf("changes from %s to %s", req.StateValue.ValueString(), req.PlanValue.ValueString())
	if req.PlanValue.IsNull() {
		change = fmt.Sprintf("is removed (it was %s)", req.StateValue.ValueString())
	}
	resp.Diagnostics.AddAttributeWarning(req.Path, "Template Change Only Recorded",
		fmt.Sprintf("os_template %s. PVE unpacks a template only when it creates a container, so the change is recorded in state and nothing is sent to PVE: "+
			"the existing container and its volumes stay as they are. It affects only a container created from now on "+
			"(after a destroy, or terraform apply -replace, which destroys this container and its volumes).", change))
}
