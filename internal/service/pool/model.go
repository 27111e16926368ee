// Package pool serves pve_pool: PVE resource pools.
package pool

import (
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// poolModel is pve_pool's Terraform state.
type poolModel struct {
	ID      types.String `tfsdk:"id"`
	PoolID  types.String `tfsdk:"poolid"`
	Comment types.String `tfsdk:"comment"`
}

// fromAPI fills the model from what PVE reports. PVE keeps an empty comment
// as "" once one was cleared; an absent optional value is null in state, so
// both read back as null and a configuration without comment plans empty.
func (m *poolModel) fromAPI(poolID string, p *pveapi.Pool) {
	m.ID = types.StringValue(poolID)
	m.PoolID = types.StringValue(poolID)
	if p.Comment == "" {
		m.Comment = types.StringNull()
	} else {
		m.Comment = types.StringValue(p.Comment)
	}
}

// toUpdate is the PUT /pools request that turns state into plan. It returns
// false when nothing needs to be sent. Clearing the comment sends an empty
// comment: PVE only changes what is given.
func toUpdate(state, plan poolModel) (pveapi.PoolUpdate, bool) {
	if state.Comment.Equal(plan.Comment) {
		return pveapi.PoolUpdate{}, false
	}
	comment := plan.Comment.ValueString()
	return pveapi.PoolUpdate{PoolID: plan.PoolID.ValueString(), Comment: &comment}, true
}
