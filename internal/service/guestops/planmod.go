package guestops

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// ModelSource is what plan, state and config have in common.
type ModelSource interface {
	Get(ctx context.Context, target any) diag.Diagnostics
}

// ReadModel decodes a whole plan, state or config into a model. It fails
// when a map or nested object is not known yet (configuration built from
// values known only after apply); the checks that need it then wait for
// the apply.
func ReadModel[M any](ctx context.Context, src ModelSource) (*M, bool) {
	var m M
	if diags := src.Get(ctx, &m); diags.HasError() {
		return nil, false
	}
	return &m, true
}

// VolumeFollowsStorage keeps a volume id in the plan while its disk or
// mount point stays in its slot on the same storage (read from the sibling
// attribute "storage"). A new volume, or one moving to another storage,
// gets its id only after apply (W23). A slot without storage on either
// side (a bind mount) keeps its null id.
func VolumeFollowsStorage() planmodifier.String { return volumeFollowsStorage{} }

type volumeFollowsStorage struct{}

func (volumeFollowsStorage) Description(context.Context) string {
	return "Keeps the volume id while the volume stays on the same storage."
}

func (m volumeFollowsStorage) MarkdownDescription(ctx context.Context) string {
	return m.Description(ctx)
}

func (volumeFollowsStorage) PlanModifyString(ctx context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if !req.PlanValue.IsUnknown() || req.State.Raw.IsNull() || req.StateValue.IsUnknown() {
		return
	}
	storagePath := req.Path.ParentPath().AtName("storage")
	var planned, prior types.String
	if diags := req.Plan.GetAttribute(ctx, storagePath, &planned); diags.HasError() {
		return
	}
	if diags := req.State.GetAttribute(ctx, storagePath, &prior); diags.HasError() {
		return
	}
	switch {
	case req.StateValue.IsNull():
		if planned.IsNull() && prior.IsNull() {
			resp.PlanValue = req.StateValue
		}
	case Known(planned) && Known(prior) && planned.ValueString() == prior.ValueString():
		resp.PlanValue = req.StateValue
	}
}

// MACFollowsState keeps a NIC's MAC address: the prior one when the
// configuration leaves it out, and the prior spelling when the configured
// one differs only in letter case.
func MACFollowsState() planmodifier.String { return macFollowsState{} }

type macFollowsState struct{}

func (macFollowsState) Description(context.Context) string {
	return "Keeps the MAC address PVE assigned for the life of the device."
}

func (m macFollowsState) MarkdownDescription(ctx context.Context) string { return m.Description(ctx) }

func (macFollowsState) PlanModifyString(_ context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if req.StateValue.IsNull() || req.StateValue.IsUnknown() {
		return
	}
	if req.ConfigValue.IsNull() {
		if req.PlanValue.IsUnknown() {
			resp.PlanValue = req.StateValue
		}
		return
	}
	if Known(req.ConfigValue) && strings.EqualFold(req.ConfigValue.ValueString(), req.StateValue.ValueString()) {
		resp.PlanValue = req.StateValue
	}
}
