package access

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// apiTokenModel is pve_api_token's Terraform model.
type apiTokenModel struct {
	ID                  types.String      `tfsdk:"id"`
	UserID              types.String      `tfsdk:"userid"`
	TokenName           types.String      `tfsdk:"token_name"`
	Comment             types.String      `tfsdk:"comment"`
	Expire              timetypes.RFC3339 `tfsdk:"expire"`
	PrivilegeSeparation types.Bool        `tfsdk:"privilege_separation"`
	SecretVersion       types.String      `tfsdk:"secret_version"`
	AllowSelfLockout    types.Bool        `tfsdk:"allow_self_lockout"`
	Value               types.String      `tfsdk:"value"`
	APIToken            types.String      `tfsdk:"api_token"`
}

// tokenID is the full token id, USER@REALM!NAME.
func (m apiTokenModel) tokenID() string {
	return wire.JoinTokenID(m.UserID.ValueString(), m.TokenName.ValueString())
}

// fromAPI takes the settings PVE keeps for the token. PVE keeps no empty
// comment and stores "never expires" as 0 (or no expiry at all); both are
// null here, as in a configuration that leaves them out. The expiry keeps
// the model's own spelling when it names the same second.
func (m *apiTokenModel) fromAPI(token pveapi.Token) {
	m.ID = types.StringValue(m.tokenID())
	m.Comment = types.StringNull()
	if token.Comment != "" {
		m.Comment = types.StringValue(token.Comment)
	}
	if read := expireFromAPI(int64(token.Expire)); !sameInstant(read, m.Expire) {
		m.Expire = read
	}
	m.PrivilegeSeparation = types.BoolValue(bool(token.PrivSep))
}

// setSecret records the secret PVE handed out, and the full token string
// a provider block or PVE_API_TOKEN takes.
func (m *apiTokenModel) setSecret(secret string) {
	m.Value = types.StringValue(secret)
	m.APIToken = types.StringValue(m.tokenID() + "=" + secret)
}

// sameInstant tells whether two expiries name the same second, whatever
// their UTC offsets; two nulls are the same, never.
func sameInstant(a, b timetypes.RFC3339) bool {
	if a.IsNull() || b.IsNull() || a.IsUnknown() || b.IsUnknown() {
		return a.IsNull() && b.IsNull()
	}
	ta, diagsA := a.ValueRFC3339Time()
	tb, diagsB := b.ValueRFC3339Time()
	return !diagsA.HasError() && !diagsB.HasError() && ta.Equal(tb)
}

// commentProblem refuses the comments PVE does not keep when it creates a
// token (src/PVE/API2/User.pm generate_token stores only a true Perl
// value): leave the comment out instead.
func commentProblem(value string) string {
	if value == "" || value == "0" {
		return fmt.Sprintf("PVE does not keep the comment %q; leave comment out for a token without one", value)
	}
	return ""
}

// toCreate is the create request for the planned token.
func (m apiTokenModel) toCreate() (pveapi.TokenCreate, error) {
	expire := expireToAPI(m.Expire)
	privsep := m.PrivilegeSeparation.ValueBool()
	return pveapi.TokenCreate{
		UserID:  m.UserID.ValueString(),
		TokenID: m.TokenName.ValueString(),
		Comment: m.Comment.ValueString(),
		Expire:  expire,
		PrivSep: &privsep,
	}, nil
}

// tokenUpdate is the update from state to plan, with the new secret asked
// for when regenerate is set; needed is false when PVE has nothing to
// change (allow_self_lockout alone is the provider's own setting). A
// removed comment is sent empty, which PVE takes as removal from
// pve-manager 9.0.13 on; the plan refuses it before that.
func tokenUpdate(state, plan apiTokenModel, regenerate bool) (update pveapi.TokenUpdate, needed bool, err error) {
	update = pveapi.TokenUpdate{
		UserID:     plan.UserID.ValueString(),
		TokenID:    plan.TokenName.ValueString(),
		Regenerate: regenerate,
	}
	needed = regenerate
	if !plan.Comment.Equal(state.Comment) {
		comment := plan.Comment.ValueString()
		update.Comment, needed = &comment, true
	}
	if !sameInstant(plan.Expire, state.Expire) {
		expire := expireToAPI(plan.Expire)
		update.Expire, needed = &expire, true
	}
	if !plan.PrivilegeSeparation.Equal(state.PrivilegeSeparation) {
		privsep := plan.PrivilegeSeparation.ValueBool()
		update.PrivSep, needed = &privsep, true
	}
	return update, needed, nil
}
