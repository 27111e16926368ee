package access

import (
	"context"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// userModel is pve_user.
type userModel struct {
	ID                types.String      `tfsdk:"id"`
	UserID            types.String      `tfsdk:"userid"`
	Enabled           types.Bool        `tfsdk:"enabled"`
	Expire            timetypes.RFC3339 `tfsdk:"expire"`
	FirstName         types.String      `tfsdk:"first_name"`
	LastName          types.String      `tfsdk:"last_name"`
	Email             types.String      `tfsdk:"email"`
	Comment           types.String      `tfsdk:"comment"`
	Keys              types.String      `tfsdk:"keys"`
	Groups            types.Set         `tfsdk:"groups"`
	PasswordWO        types.String      `tfsdk:"password_wo"`
	PasswordWOVersion types.Int64       `tfsdk:"password_wo_version"`
	AllowSelfLockout  types.Bool        `tfsdk:"allow_self_lockout"`
}

// fromAPI sets what PVE holds of the user. The write-only password is
// never kept; its version and allow_self_lockout are the configuration's
// own and stay as they are (allow_self_lockout false after an import).
func (m *userModel) fromAPI(u *pveapi.User) {
	m.ID = types.StringValue(u.UserID)
	m.UserID = types.StringValue(u.UserID)
	m.Enabled = types.BoolValue(bool(u.Enable))
	// The same instant written in another offset stays as written: the
	// framework compares RFC 3339 values semantically only on refresh.
	if m.Expire.IsNull() || m.Expire.IsUnknown() || expireToAPI(m.Expire) != int64(u.Expire) {
		m.Expire = expireFromAPI(int64(u.Expire))
	}
	m.FirstName = textFromAPI(u.Firstname)
	m.LastName = textFromAPI(u.Lastname)
	m.Email = textFromAPI(u.Email)
	m.Comment = textFromAPI(u.Comment)
	m.Keys = keysFromAPI(u.Keys)
	m.Groups = idSetFromAPI(u.Groups)
	m.PasswordWO = types.StringNull()
	if m.AllowSelfLockout.IsNull() || m.AllowSelfLockout.IsUnknown() {
		m.AllowSelfLockout = types.BoolValue(false)
	}
}

// keysFromAPI is the legacy keys field: PVE's own marker for a user with
// two-factor entries is not a key the configuration could hold, so it
// reads as null.
func keysFromAPI(keys string) types.String {
	if keys == "" || wire.IsTFAMarker(keys) {
		return types.StringNull()
	}
	return types.StringValue(keys)
}

// toCreate is POST /access/users for the planned user; password is the
// write-only password_wo from the configuration ("" for none).
func (m userModel) toCreate(ctx context.Context, password string, diags *diag.Diagnostics) pveapi.UserCreate {
	enabled := m.Enabled.IsNull() || m.Enabled.IsUnknown() || m.Enabled.ValueBool()
	return pveapi.UserCreate{
		UserID:    m.UserID.ValueString(),
		Password:  password,
		Enable:    &enabled,
		Expire:    expireToAPI(m.Expire),
		Firstname: m.FirstName.ValueString(),
		Lastname:  m.LastName.ValueString(),
		Email:     m.Email.ValueString(),
		Comment:   m.Comment.ValueString(),
		Keys:      m.Keys.ValueString(),
		Groups:    idsOf(ctx, m.Groups, diags),
	}
}

// userUpdate is the one PUT /access/users/{userid} that takes the user from
// state to plan, and whether anything is to be sent. The groups, when they
// change, are sent whole: the user's groups become exactly the planned
// ones (none for null).
func userUpdate(ctx context.Context, state, plan userModel, diags *diag.Diagnostics) (pveapi.UserUpdate, bool) {
	update := pveapi.UserUpdate{UserID: plan.UserID.ValueString()}
	needed := false
	if !state.Enabled.Equal(plan.Enabled) && !plan.Enabled.IsUnknown() {
		enabled := plan.Enabled.ValueBool()
		update.Enable, needed = &enabled, true
	}
	if before, after := expireToAPI(state.Expire), expireToAPI(plan.Expire); before != after {
		update.Expire, needed = &after, true
	}
	for _, field := range []struct {
		state, plan types.String
		into        **string
	}{
		{state.FirstName, plan.FirstName, &update.Firstname},
		{state.LastName, plan.LastName, &update.Lastname},
		{state.Email, plan.Email, &update.Email},
		{state.Comment, plan.Comment, &update.Comment},
		{state.Keys, plan.Keys, &update.Keys},
	} {
		if change := textChange(field.state, field.plan); change != nil {
			*field.into, needed = change, true
		}
	}
	if before, after := idsOf(ctx, state.Groups, diags), idsOf(ctx, plan.Groups, diags); !slices.Equal(before, after) {
		update.Groups, needed = append([]string{}, after...), true
	}
	return update, needed
}

// passwordChange reports whether an update sets the password again: the
// planned password_wo_version is set and differs from the state's.
func passwordChange(state, plan userModel) bool {
	return !plan.PasswordWOVersion.IsNull() && !plan.PasswordWOVersion.IsUnknown() &&
		!plan.PasswordWOVersion.Equal(state.PasswordWOVersion)
}
