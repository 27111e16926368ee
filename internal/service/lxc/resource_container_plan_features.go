package lxc

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// featuresFollowState plans an undeclared features object as state has it
// (null at create): the configuration leaves the flags to PVE, so nothing
// is written and no change is planned, whoever sets them.
type featuresFollowState struct{}

func (featuresFollowState) Description(context.Context) string {
	return "Left out of the configuration, the container's features are left as they are."
}

func (m featuresFollowState) MarkdownDescription(ctx context.Context) string {
	return m.Description(ctx)
}

func (featuresFollowState) PlanModifyObject(_ context.Context, req planmodifier.ObjectRequest, resp *planmodifier.ObjectResponse) {
	switch {
	case !req.ConfigValue.IsNull():
	case req.State.Raw.IsNull():
		resp.PlanValue = types.ObjectNull(req.PlanValue.AttributeTypes(context.Background()))
	default:
		resp.PlanValue = req.StateValue
	}
}

// flagOffWhenUnset plans a flag the declared features object leaves out as
// false: PVE's default, which is how a refresh reports an absent flag, so
// "features = { keyctl = false }" and "features = {nesting = false}" agree
// with a container that has no features at all.
type flagOffWhenUnset struct{}

func (flagOffWhenUnset) Description(context.Context) string {
	return "A flag left out of a declared features object is off."
}

func (m flagOffWhenUnset) MarkdownDescription(ctx context.Context) string { return m.Description(ctx) }

func (flagOffWhenUnset) PlanModifyBool(ctx context.Context, req planmodifier.BoolRequest, resp *planmodifier.BoolResponse) {
	if !req.ConfigValue.IsNull() {
		return
	}
	var declared types.Object
	if req.Config.GetAttribute(ctx, req.Path.ParentPath(), &declared).HasError() || declared.IsNull() || declared.IsUnknown() {
		return
	}
	resp.PlanValue = types.BoolValue(false)
}
