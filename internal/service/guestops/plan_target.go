package guestops

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// CheckPlacement asks PVE at plan time about the node and the pool a
// guest is planned on, when they are new to the plan (a create, a
// migration, a pool change): PVE's own answers come only at apply and
// mislead (an unknown node fails as a hostname lookup, an unknown pool as
// a permission check). A node outside the cluster is an error; a pool
// that does not exist is a warning, since the same configuration may
// create it (pve_pool) before the guest. Values known only after apply,
// and failures to ask, leave the answer to the apply.
func (a API) CheckPlacement(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || a.Client == nil {
		return
	}
	var node, pool, priorNode, priorPool types.String
	if req.Plan.GetAttribute(ctx, path.Root("node"), &node).HasError() || req.Plan.GetAttribute(ctx, path.Root("pool"), &pool).HasError() {
		return
	}
	if !req.State.Raw.IsNull() {
		_ = req.State.GetAttribute(ctx, path.Root("node"), &priorNode)
		_ = req.State.GetAttribute(ctx, path.Root("pool"), &priorPool)
	}
	if Known(node) && !node.Equal(priorNode) {
		a.checkNode(ctx, node.ValueString(), resp)
	}
	if Known(pool) && !pool.Equal(priorPool) {
		a.checkPool(ctx, pool.ValueString(), resp)
	}
}

func (a API) checkNode(ctx context.Context, node string, resp *resource.ModifyPlanResponse) {
	// Only whether the node belongs to the cluster matters here, not
	// whether it is online, so the client's list, read once per command,
	// serves every guest.
	names, err := a.Client.NodeNames(ctx)
	if err != nil || len(names) == 0 || slices.Contains(names, node) {
		return
	}
	slices.Sort(names)
	resp.Diagnostics.AddAttributeError(path.Root("node"), "Node Not Found",
		fmt.Sprintf("Node %q is not a node of this PVE cluster, whose nodes are: %s. Set node to one of them.", node, strings.Join(names, ", ")))
}

func (a API) checkPool(ctx context.Context, pool string, resp *resource.ModifyPlanResponse) {
	exists, err := a.Client.PoolExists(ctx, pool)
	if err != nil || exists {
		return
	}
	resp.Diagnostics.AddAttributeWarning(path.Root("pool"), "Pool Not Found",
		fmt.Sprintf("Pool %q does not exist in PVE. Unless this configuration creates it (a pve_pool the %s depends on, e.g. through "+
			"pool = pve_pool.NAME.poolid), the apply fails: create the pool first or correct the name.", pool, a.Kind.Noun))
}
