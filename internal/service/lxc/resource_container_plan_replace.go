package lxc

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

// unprivilegedFixed is the entry of the description's list of changes that
// replace the container for unprivileged.
const unprivilegedFixed = "`unprivileged` (PVE maps the container's user ids only when it creates it)"

// replacements lists the planned changes PVE cannot make to a container
// in place: its vmid, and unprivileged, which PVE takes only at create
// (W34).
func replacements(state, plan *containerModel) []guestops.Replacement {
	out := guestops.VMIDReplacement(state.VMID, plan.VMID)
	if guestops.Known(state.Unprivileged) && guestops.Known(plan.Unprivileged) && !state.Unprivileged.Equal(plan.Unprivileged) {
		out = append(out, guestops.Replacement{Attribute: "unprivileged",
			From: fmt.Sprint(state.Unprivileged.ValueBool()), To: fmt.Sprint(plan.Unprivileged.ValueBool())})
	}
	return out
}

// warnReplacement warns when the plan replaces the container, naming the
// volumes destroyed, and returns the container the plan starts from: state
// for an update, nil for a create, a replacement included (what PVE
// checks then is what it checks at create).
func (r *containerResource) warnReplacement(ctx context.Context, private guestops.PrivateGetter, state, plan *containerModel, diags *diag.Diagnostics) *containerModel {
	if state == nil {
		return nil
	}
	why := replacements(state, plan)
	if len(why) == 0 {
		return state
	}
	r.api.WarnReplacement(ctx, r.api.NodeOf(ctx, private, state.Node.ValueString()), state.vmid(), why, diags)
	return nil
}
