package lxc

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

// modelSource is what plan, state and config have in common.
type modelSource interface {
	Get(ctx context.Context, target any) diag.Diagnostics
}

// readModel decodes a whole plan, state or config. It fails when a map or
// nested object is not known yet (configuration built from values known
// only after apply); the checks that need it then wait for the apply.
func readModel(ctx context.Context, src modelSource) (*containerModel, bool) {
	var m containerModel
	if diags := src.Get(ctx, &m); diags.HasError() {
		return nil, false
	}
	return &m, true
}

// ValidateConfig checks what needs several attributes at once: volume
// versus bind mount, sizes, quotas, empty nested objects.
func (r *containerResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	m, ok := readModel(ctx, req.Config)
	if !ok {
		return
	}
	guestops.AddIssues(&resp.Diagnostics, checkConfig(m))
}

// ModifyPlan needs os_template to create; runs the data-loss guard on
// updates; refuses, under any login but root@pam with a password, the
// changes PVE reserves to root@pam (W33, W36); warns that keys and
// password apply only at create; and marks the power status as unknown
// when an update may change it.
func (r *containerResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	plan, okPlan := readModel(ctx, req.Plan)
	if !okPlan {
		return
	}
	var state *containerModel
	if !req.State.Raw.IsNull() {
		var okState bool
		if state, okState = readModel(ctx, req.State); !okState {
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
		guestops.AddIssues(&resp.Diagnostics, migrationRestartWarning(state, plan))
	}
	if client := r.api.Client; client != nil && (client.UsesAPIToken() || client.Principal() != rootPrincipal) {
		guestops.AddIssues(&resp.Diagnostics, rootOnlyIssues(state, plan, client.Principal()))
	}
	if resp.Diagnostics.HasError() || state == nil || req.Plan.Raw.Equal(req.State.Raw) {
		return
	}
	guestops.MarkStatusIfItMayChange(ctx, req, resp)
}

// osTemplateReplaces replaces the container when a known template changes
// (W35). A template missing from state (an imported container) is only
// recorded: PVE cannot tell which template the container came from.
func osTemplateReplaces() planmodifier.String {
	return stringplanmodifier.RequiresReplaceIf(osTemplateChanged,
		"Changing a known os_template replaces the container; setting it after an import only records it.",
		"Changing a known `os_template` replaces the container; setting it after an import only records it.")
}

func osTemplateChanged(_ context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
	if req.State.Raw.IsNull() || !guestops.Known(req.StateValue) || !guestops.Known(req.ConfigValue) ||
		req.ConfigValue.ValueString() == req.StateValue.ValueString() {
		return
	}
	resp.RequiresReplace = true
	resp.Diagnostics.AddAttributeWarning(req.Path, "Container Will Be Replaced",
		fmt.Sprintf("os_template changes from %s to %s. PVE unpacks a template only when it creates a container (W35): "+
			"the container is destroyed with its volumes and created again from the new template. "+
			"Set os_template back to %s to keep the container.", req.StateValue.ValueString(), req.ConfigValue.ValueString(), req.StateValue.ValueString()))
}
