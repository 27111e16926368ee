package access

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

func tokenModel(comment string, expire string, privsep bool) apiTokenModel {
	m := apiTokenModel{
		UserID:              types.StringValue("alice@pve"),
		TokenName:           types.StringValue("ci"),
		Comment:             types.StringNull(),
		Expire:              timetypes.NewRFC3339Null(),
		PrivilegeSeparation: types.BoolValue(privsep),
		SecretVersion:       types.StringNull(),
	}
	if comment != "" {
		m.Comment = types.StringValue(comment)
	}
	if expire != "" {
		m.Expire = timetypes.NewRFC3339ValueMust(expire)
	}
	return m
}

func TestAPITokenFromAPI(t *testing.T) {
	t.Parallel()
	m := tokenModel("", "", true)
	m.fromAPI(pveapi.Token{TokenID: "ci", Comment: "deploys", Expire: 1893456000, PrivSep: false})
	if m.ID.ValueString() != "alice@pve!ci" || m.Comment.ValueString() != "deploys" ||
		m.Expire.ValueString() != "2030-01-01T00:00:00Z" || m.PrivilegeSeparation.ValueBool() {
		t.Errorf("fromAPI = %+v", m)
	}

	// No comment and expiry 0 are null, as a configuration without them.
	m.fromAPI(pveapi.Token{PrivSep: true})
	if !m.Comment.IsNull() || !m.Expire.IsNull() || !m.PrivilegeSeparation.ValueBool() {
		t.Errorf("fromAPI of an empty token = %+v", m)
	}

	// The same second with another offset keeps the configuration's
	// spelling; another second is PVE's, in UTC.
	m = tokenModel("", "2030-01-01T01:00:00+01:00", true)
	m.fromAPI(pveapi.Token{Expire: 1893456000, PrivSep: true})
	if got := m.Expire.ValueString(); got != "2030-01-01T01:00:00+01:00" {
		t.Errorf("same instant: expire = %s", got)
	}
	m.fromAPI(pveapi.Token{Expire: 1893456001, PrivSep: true})
	if got := m.Expire.ValueString(); got != "2030-01-01T00:00:01Z" {
		t.Errorf("other instant: expire = %s", got)
	}
}

func TestAPITokenSecret(t *testing.T) {
	t.Parallel()
	m := tokenModel("", "", true)
	m.setSecret("0b0e6c1a-2f8e-4b8e-9d55-4b1c0f6f3a11")
	if m.APIToken.ValueString() != "alice@pve!ci=0b0e6c1a-2f8e-4b8e-9d55-4b1c0f6f3a11" {
		t.Errorf("api_token = %s", m.APIToken.ValueString())
	}
}

func TestAPITokenToCreate(t *testing.T) {
	t.Parallel()
	create, err := tokenModel("deploys", "2030-01-01T01:00:00+01:00", false).toCreate()
	if err != nil || create.UserID != "alice@pve" || create.TokenID != "ci" || create.Comment != "deploys" ||
		create.Expire != 1893456000 || create.PrivSep == nil || *create.PrivSep {
		t.Errorf("toCreate = %+v, %v", create, err)
	}
	create, err = tokenModel("", "", true).toCreate()
	if err != nil || create.Comment != "" || create.Expire != 0 || create.PrivSep == nil || !*create.PrivSep {
		t.Errorf("toCreate of a plain token = %+v, %v", create, err)
	}
}

func TestAPITokenToUpdate(t *testing.T) {
	t.Parallel()
	state := tokenModel("deploys", "2030-01-01T00:00:00Z", true)

	if _, needed, err := tokenUpdate(state, tokenModel("deploys", "2030-01-01T01:00:00+01:00", true), false); needed || err != nil {
		t.Errorf("the same expiry in another offset needs an update: %v, %v", needed, err)
	}
	if u, needed, _ := tokenUpdate(state, state, true); !needed || !u.Regenerate || u.Comment != nil || u.Expire != nil || u.PrivSep != nil {
		t.Errorf("rotation alone = %+v, %v", u, needed)
	}

	u, needed, err := tokenUpdate(state, tokenModel("", "", false), false)
	if err != nil || !needed || u.Regenerate {
		t.Fatalf("toUpdate = %+v, %v, %v", u, needed, err)
	}
	// A removed comment is sent empty and a removed expiry as 0 (never).
	if u.Comment == nil || *u.Comment != "" || u.Expire == nil || *u.Expire != 0 || u.PrivSep == nil || *u.PrivSep {
		t.Errorf("toUpdate = comment %v, expire %v, privsep %v", u.Comment, u.Expire, u.PrivSep)
	}

	allow := state
	allow.AllowSelfLockout = types.BoolValue(true)
	if _, needed, _ := tokenUpdate(state, allow, false); needed {
		t.Error("allow_self_lockout alone sends an update to PVE")
	}
}

func TestAPITokenValueProblems(t *testing.T) {
	t.Parallel()
	for value, want := range map[string]string{
		"2030-01-01T00:00:00Z":      "",
		"2030-01-01T00:00:00+02:00": "",
		"2030-01-01T00:00:00.5Z":    "whole seconds",
		"1970-01-01T00:00:00Z":      "not after 1970",
		"1960-01-01T00:00:00Z":      "not after 1970",
		"tomorrow":                  "", // the RFC 3339 type refuses it
	} {
		if got := expireProblem(value); (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("expireProblem(%q) = %q, want %q", value, got, want)
		}
	}
	for value, refused := range map[string]bool{"": true, "0": true, "00": false, "deploys": false, " ": false} {
		if got := commentProblem(value) != ""; got != refused {
			t.Errorf("commentProblem(%q) refuses = %v", value, got)
		}
	}
}
