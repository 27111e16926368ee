package access

import (
	"context"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

func strPtr(s string) *string { return &s }

// PVE's answer maps to state with absent values null: "" texts, expire 0,
// no groups, and the two-factor marker in keys.
func TestUserFromAPI(t *testing.T) {
	t.Parallel()
	var m userModel
	m.fromAPI(&pveapi.User{
		UserID: "alice@pve", Enable: false, Expire: 1893456000, Firstname: "Alice", Email: "",
		Keys: "x", Groups: pveapi.IDList{"ops", "dev", "ops"},
	})
	if m.ID.ValueString() != "alice@pve" || m.Enabled.ValueBool() || m.FirstName.ValueString() != "Alice" {
		t.Errorf("fromAPI = %+v", m)
	}
	if got := m.Expire.ValueString(); got != "2030-01-01T00:00:00Z" {
		t.Errorf("expire = %q, want UTC RFC 3339", got)
	}
	for name, v := range map[string]types.String{"last_name": m.LastName, "email": m.Email, "comment": m.Comment, "keys": m.Keys, "password_wo": m.PasswordWO} {
		if !v.IsNull() {
			t.Errorf("%s = %v, want null", name, v)
		}
	}
	var groups []string
	m.Groups.ElementsAs(context.Background(), &groups, false)
	if !reflect.DeepEqual(groups, []string{"dev", "ops"}) {
		t.Errorf("groups = %v", groups)
	}
	if m.AllowSelfLockout.IsNull() || m.AllowSelfLockout.ValueBool() {
		t.Errorf("allow_self_lockout after an import = %v, want false", m.AllowSelfLockout)
	}

	// The same instant in the configuration's offset stays as written;
	// another instant replaces it.
	m.Expire = timetypes.NewRFC3339ValueMust("2030-01-01T01:00:00+01:00")
	m.fromAPI(&pveapi.User{UserID: "alice@pve", Expire: 1893456000})
	if got := m.Expire.ValueString(); got != "2030-01-01T01:00:00+01:00" {
		t.Errorf("expire = %q, want the configuration's form kept", got)
	}
	m.fromAPI(&pveapi.User{UserID: "alice@pve", Expire: 1893456001})
	if got := m.Expire.ValueString(); got != "2030-01-01T00:00:01Z" {
		t.Errorf("expire = %q, want PVE's instant in UTC", got)
	}

	m.fromAPI(&pveapi.User{UserID: "alice@pve", Enable: true, Keys: "ccccccabcdef"})
	if !m.Groups.IsNull() || !m.Expire.IsNull() || m.Keys.ValueString() != "ccccccabcdef" {
		t.Errorf("no groups, no expiry, legacy keys: %+v", m)
	}
}

// One PUT carries every change: cleared texts as "", a removed expiry as
// 0, the whole group list (empty to leave every group); unchanged fields
// are not sent.
func TestUserToUpdate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	base := userModel{
		UserID: types.StringValue("alice@pve"), Enabled: types.BoolValue(true),
		Expire:    timetypes.NewRFC3339ValueMust("2030-01-01T00:00:00Z"),
		FirstName: types.StringValue("Alice"), LastName: types.StringNull(), Email: types.StringValue("a@example.com"),
		Comment: types.StringNull(), Keys: types.StringNull(),
		Groups: idSetFromAPI([]string{"dev", "ops"}),
	}
	var diags diag.Diagnostics
	if _, needed := userUpdate(ctx, base, base, &diags); needed {
		t.Error("no change should send nothing")
	}

	// An equal time in another offset is no change.
	same := base
	same.Expire = timetypes.NewRFC3339ValueMust("2030-01-01T01:00:00+01:00")
	if _, needed := userUpdate(ctx, base, same, &diags); needed {
		t.Error("the same instant in another offset should send nothing")
	}

	plan := base
	plan.Enabled = types.BoolValue(false)
	plan.Expire = timetypes.NewRFC3339Null()
	plan.FirstName = types.StringNull()
	plan.Comment = types.StringValue("ops lead")
	plan.Groups = types.SetNull(types.StringType)
	update, needed := userUpdate(ctx, base, plan, &diags)
	if !needed || diags.HasError() {
		t.Fatalf("needed %v, %v", needed, diags)
	}
	zero, off := int64(0), false
	want := pveapi.UserUpdate{
		UserID: "alice@pve", Enable: &off, Expire: &zero, Firstname: strPtr(""), Comment: strPtr("ops lead"),
		Groups: []string{},
	}
	if !reflect.DeepEqual(update, want) {
		t.Errorf("userUpdate =\n %+v\nwant\n %+v", update, want)
	}

	plan = base
	plan.Groups = idSetFromAPI([]string{"ops"})
	update, _ = userUpdate(ctx, base, plan, &diags)
	if !reflect.DeepEqual(update, pveapi.UserUpdate{UserID: "alice@pve", Groups: []string{"ops"}}) {
		t.Errorf("groups only: %+v", update)
	}
}

func TestUserToCreate(t *testing.T) {
	t.Parallel()
	var diags diag.Diagnostics
	m := userModel{
		UserID: types.StringValue("alice@pve"), Enabled: types.BoolValue(true), Expire: timetypes.NewRFC3339Null(),
		FirstName: types.StringValue("Alice"), Groups: idSetFromAPI([]string{"ops"}),
	}
	got := m.toCreate(context.Background(), "s3cret-passw0rd", &diags)
	on := true
	want := pveapi.UserCreate{UserID: "alice@pve", Password: "s3cret-passw0rd", Enable: &on, Firstname: "Alice", Groups: []string{"ops"}}
	if !reflect.DeepEqual(got, want) || diags.HasError() {
		t.Errorf("toCreate = %+v, %v", got, diags)
	}
}

func TestPasswordChange(t *testing.T) {
	t.Parallel()
	with := func(v types.Int64) userModel { return userModel{PasswordWOVersion: v} }
	for _, tc := range []struct {
		state, plan types.Int64
		want        bool
	}{
		{types.Int64Null(), types.Int64Value(1), true},
		{types.Int64Value(1), types.Int64Value(2), true},
		{types.Int64Value(1), types.Int64Value(1), false},
		{types.Int64Value(1), types.Int64Null(), false},
		{types.Int64Null(), types.Int64Null(), false},
	} {
		if got := passwordChange(with(tc.state), with(tc.plan)); got != tc.want {
			t.Errorf("passwordChange(%v -> %v) = %v", tc.state, tc.plan, got)
		}
	}
}

func TestOwnUser(t *testing.T) {
	t.Parallel()
	for principal, want := range map[string]string{
		"root@pam": "root@pam", "root@pam!tf": "root@pam", "a!b@pve!ci": "a!b@pve", "a!b@pve": "a!b@pve", "": "",
	} {
		if got := ownUser(principal); got != want {
			t.Errorf("ownUser(%q) = %q, want %q", principal, got, want)
		}
	}
}
