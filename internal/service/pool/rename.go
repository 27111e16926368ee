package pool

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// PVE has no pool rename, and deletes only an empty pool (pve-manager
// PVE/API2/Pool.pm delete_pool: "pool 'X' is not empty"). A new poolid is
// therefore done in place by the resource: create the new pool, move the
// members over (update_pool with allow-move for guests; storages leave one
// pool and join the other), then delete the old pool. Guests whose pool
// attribute refers to pve_pool.X.poolid follow in the same apply.

var _ resource.ResourceWithModifyPlan = (*poolResource)(nil)

// ModifyPlan keeps id equal to poolid and, on a rename, reads the old pool
// (the only plan-time request, made only then) to refuse what cannot be
// renamed and to name what moves.
func (r *poolResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() {
		return
	}
	var state, plan poolModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || plan.PoolID.IsUnknown() || plan.PoolID.Equal(state.PoolID) {
		return
	}
	from, to := state.PoolID.ValueString(), plan.PoolID.ValueString()
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("id"), types.StringValue(to))...)
	if r.client == nil {
		return
	}
	pools, err := r.client.Pools(ctx)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To List Pools", err)
		return
	}
	var nested []string
	exists := false
	for _, p := range pools {
		if strings.HasPrefix(p.PoolID, from+"/") {
			nested = append(nested, p.PoolID)
		}
		exists = exists || p.PoolID == to
	}
	if len(nested) > 0 {
		slices.Sort(nested)
		resp.Diagnostics.AddAttributeError(path.Root("poolid"), "Pool With Nested Pools Cannot Be Renamed",
			fmt.Sprintf("Pool %s contains the nested pools %s. PVE has no rename: the provider renames a pool by creating %s, moving the members and deleting %s, "+
				"and PVE deletes no pool that still contains pools. Remove or rename the nested pools first (their poolid starts with %q), or keep poolid = %q.",
				from, strings.Join(nested, ", "), to, from, from+"/", from))
		return
	}
	pool, found, err := r.client.GetPool(ctx, from)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read Pool", err)
		return
	}
	var members []string
	if found {
		members = memberNames(pool)
	}
	detail := fmt.Sprintf("PVE cannot rename a pool: %s is created, ", to)
	if exists {
		detail = fmt.Sprintf("PVE cannot rename a pool, and %s exists already: ", to)
	}
	if len(members) > 0 {
		detail += fmt.Sprintf("the members of %s (%s) move to it, ", from, strings.Join(members, ", "))
	}
	detail += fmt.Sprintf("then %s is deleted. Permissions granted on /pool/%s are deleted with it by PVE: grant them again on /pool/%s. "+
		"A guest whose pool attribute names %q literally must name %q (or refer to this resource's poolid), or its next apply tries to move it back into a pool that is gone.",
		from, from, to, from, to)
	resp.Diagnostics.AddAttributeWarning(path.Root("poolid"), "Pool Will Be Renamed", detail)
}

// memberNames lists a pool's members for messages: guests by VMID,
// storages by name once each.
func memberNames(pool *pveapi.Pool) []string {
	var out []string
	for _, m := range pool.Members {
		if m.Type == pveapi.GuestTypeQemu || m.Type == pveapi.GuestTypeLXC {
			out = append(out, fmt.Sprintf("%s %d", guestWord(m.Type), m.VMID.Int()))
		}
	}
	for _, s := range storageMembers(pool) {
		out = append(out, "storage "+s)
	}
	return out
}

func guestWord(t string) string {
	if t == pveapi.GuestTypeLXC {
		return "container"
	}
	return "VM"
}

// rename moves the pool from to to (see above). Each step is safe to run
// again: a later apply after a failure picks up where this one stopped.
func (r *poolResource) rename(ctx context.Context, from, to string, comment types.String, diags *diag.Diagnostics) bool {
	attr := path.Root("poolid")
	err := r.client.CreatePool(ctx, to, comment.ValueString())
	if pveapi.IsPoolExists(err) {
		c := comment.ValueString()
		err = r.client.UpdatePool(ctx, pveapi.PoolUpdate{PoolID: to, Comment: &c})
	}
	if err != nil {
		fwutil.AddAttributeAPIError(diags, attr, "Unable To Create Renamed Pool", err)
		return false
	}
	old, found, err := r.client.GetPool(ctx, from)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read Pool", err)
		return false
	}
	if found {
		var vmids []int
		var storages []string
		for _, m := range old.Members {
			if m.Type == pveapi.GuestTypeQemu || m.Type == pveapi.GuestTypeLXC {
				vmids = append(vmids, m.VMID.Int())
			}
		}
		storages = storageMembers(old)
		if len(vmids) > 0 {
			if err := r.client.UpdatePool(ctx, pveapi.PoolUpdate{PoolID: to, VMs: vmids, AllowMove: true}); err != nil {
				fwutil.AddAttributeAPIError(diags, attr, "Unable To Move Guests To Renamed Pool", err)
				return false
			}
		}
		if len(storages) > 0 {
			if err := r.client.UpdatePool(ctx, pveapi.PoolUpdate{PoolID: from, Storage: storages, Delete: true}); err != nil {
				fwutil.AddAttributeAPIError(diags, attr, "Unable To Move Storages To Renamed Pool", err)
				return false
			}
			for _, s := range storages {
				err := r.client.UpdatePool(ctx, pveapi.PoolUpdate{PoolID: to, Storage: []string{s}})
				if err != nil && !pveapi.IsAlreadyPoolMember(err) {
					fwutil.AddAttributeAPIError(diags, attr, "Unable To Move Storages To Renamed Pool", err)
					return false
				}
			}
		}
	}
	if err := r.client.DeletePool(ctx, from); err != nil && !pveapi.IsPoolNotFound(err) {
		fwutil.AddAttributeAPIError(diags, attr, "Unable To Delete Pool "+strconv.Quote(from)+" After Renaming It", err)
		return false
	}
	return true
}
