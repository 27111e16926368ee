package access

import (
	"context"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// roleModel is pve_role.
type roleModel struct {
	ID               types.String `tfsdk:"id"`
	RoleID           types.String `tfsdk:"roleid"`
	Privileges       types.Set    `tfsdk:"privileges"`
	AllowSelfLockout types.Bool   `tfsdk:"allow_self_lockout"`
}

// fromAPI sets what PVE holds of a role. allow_self_lockout is
// configuration only and stays as it is.
func (m *roleModel) fromAPI(roleid string, privs []string) diag.Diagnostics {
	m.ID = types.StringValue(roleid)
	m.RoleID = types.StringValue(roleid)
	set, diags := stringSet(privs)
	m.Privileges = set
	return diags
}

// privileges are the planned privileges, sorted; nil while unknown.
func (m *roleModel) privileges(ctx context.Context) ([]string, bool, diag.Diagnostics) {
	return setStrings(ctx, m.Privileges)
}

// stringSet is a set of strings; an empty list is an empty set, not null.
func stringSet(values []string) (types.Set, diag.Diagnostics) {
	elems := make([]string, len(values))
	copy(elems, values)
	sort.Strings(elems)
	return types.SetValueFrom(context.Background(), types.StringType, elems)
}

// setStrings reads a set of strings, sorted; known is false when the set
// or an element is unknown.
func setStrings(ctx context.Context, set types.Set) (values []string, known bool, diags diag.Diagnostics) {
	if set.IsUnknown() {
		return nil, false, nil
	}
	if set.IsNull() {
		return nil, true, nil
	}
	for _, elem := range set.Elements() {
		if elem.IsUnknown() {
			return nil, false, nil
		}
	}
	diags = set.ElementsAs(ctx, &values, false)
	sort.Strings(values)
	return values, true, diags
}
