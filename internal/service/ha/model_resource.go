package ha

import (
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// haResourceModel is pve_ha_resource's state.
type haResourceModel struct {
	ID          types.String `tfsdk:"id"`
	VMID        types.Int64  `tfsdk:"vmid"`
	Type        types.String `tfsdk:"type"`
	SID         types.String `tfsdk:"sid"`
	State       types.String `tfsdk:"state"`
	MaxRestart  types.Int64  `tfsdk:"max_restart"`
	MaxRelocate types.Int64  `tfsdk:"max_relocate"`
	Failback    types.Bool   `tfsdk:"failback"`
	Group       types.String `tfsdk:"group"`
	Comment     types.String `tfsdk:"comment"`
}

// haResourceFromAPI fills the model from PVE's entry: options PVE does not
// have are null (PVE's defaults are not written into state). 'enabled',
// PVE's alias, reads as 'started'.
func (m *haResourceModel) haResourceFromAPI(res *pveapi.HAResource) {
	typ, vmid, ok := wire.ParseHASID(res.SID)
	if ok {
		m.VMID = types.Int64Value(int64(vmid))
		m.Type = types.StringValue(typ)
	}
	m.SID = types.StringValue(res.SID)
	m.ID = types.StringValue(res.SID)
	m.State = haOptString(wire.HAStateFromPVE(res.State))
	m.Group = haOptString(res.Group)
	m.Comment = haOptString(res.Comment)
	m.MaxRestart = haOptInt(res.MaxRestart)
	m.MaxRelocate = haOptInt(res.MaxRelocate)
	if res.Failback != nil {
		m.Failback = types.BoolValue(bool(*res.Failback))
	} else {
		m.Failback = types.BoolNull()
	}
}

func haOptString(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

func haOptInt(v *pveapi.IntOrString) types.Int64 {
	if v == nil {
		return types.Int64Null()
	}
	return types.Int64Value(int64(*v))
}

// haResourceCreateParams are the options a create sends: those set.
func (m *haResourceModel) haResourceCreateParams() pveapi.HAResourceParams {
	var p pveapi.HAResourceParams
	p.State = haStringPtr(m.State)
	p.Group = haStringPtr(m.Group)
	p.Comment = haStringPtr(m.Comment)
	p.MaxRestart = haInt64Ptr(m.MaxRestart)
	p.MaxRelocate = haInt64Ptr(m.MaxRelocate)
	if !m.Failback.IsNull() && !m.Failback.IsUnknown() {
		b := m.Failback.ValueBool()
		p.Failback = &b
	}
	return p
}

// haResourceUpdate is what turns prior into plan: the options to set and
// the options to delete (declared before, absent now), by PVE's names.
func haResourceUpdate(prior, plan *haResourceModel) (set pveapi.HAResourceParams, del []string, needed bool) {
	str := func(name string, from, to types.String, dst **string) {
		switch {
		case to.IsNull() && !from.IsNull():
			del = append(del, name)
		case !to.IsNull() && !to.IsUnknown() && !to.Equal(from):
			v := to.ValueString()
			*dst = &v
		}
	}
	num := func(name string, from, to types.Int64, dst **int64) {
		switch {
		case to.IsNull() && !from.IsNull():
			del = append(del, name)
		case !to.IsNull() && !to.IsUnknown() && !to.Equal(from):
			v := to.ValueInt64()
			*dst = &v
		}
	}
	str("state", prior.State, plan.State, &set.State)
	str("group", prior.Group, plan.Group, &set.Group)
	str("comment", prior.Comment, plan.Comment, &set.Comment)
	num("max_restart", prior.MaxRestart, plan.MaxRestart, &set.MaxRestart)
	num("max_relocate", prior.MaxRelocate, plan.MaxRelocate, &set.MaxRelocate)
	switch {
	case plan.Failback.IsNull() && !prior.Failback.IsNull():
		del = append(del, "failback")
	case !plan.Failback.IsNull() && !plan.Failback.IsUnknown() && !plan.Failback.Equal(prior.Failback):
		b := plan.Failback.ValueBool()
		set.Failback = &b
	}
	needed = len(del) > 0 || set != (pveapi.HAResourceParams{})
	return set, del, needed
}

// haResourceSameOptions tells whether two models hold the same HA options
// (not ids): an entry PVE holds now against the one read at refresh.
func haResourceSameOptions(a, b *haResourceModel) bool {
	return a.State.Equal(b.State) && a.Group.Equal(b.Group) && a.Comment.Equal(b.Comment) &&
		a.MaxRestart.Equal(b.MaxRestart) && a.MaxRelocate.Equal(b.MaxRelocate) && a.Failback.Equal(b.Failback)
}

func haStringPtr(v types.String) *string {
	if v.IsNull() || v.IsUnknown() {
		return nil
	}
	s := v.ValueString()
	return &s
}

func haInt64Ptr(v types.Int64) *int64 {
	if v.IsNull() || v.IsUnknown() {
		return nil
	}
	n := v.ValueInt64()
	return &n
}
