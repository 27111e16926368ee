package pveapi

import (
	"context"
	"net/http"
	"reflect"
	"sort"
	"testing"
)

// Each access refusal is recognised from PVE's own text, with or without
// the prefix its handler adds under the config lock, and by no other
// recogniser.
func TestAccessRefusalsAreRecognised(t *testing.T) {
	t.Parallel()
	recognisers := map[string]func(error) bool{
		"IsNoSuchUser": IsNoSuchUser, "IsUserExists": IsUserExists,
		"IsNoSuchGroup": IsNoSuchGroup, "IsGroupExists": IsGroupExists,
		"IsNoSuchRole": IsNoSuchRole, "IsRoleExists": IsRoleExists, "IsBuiltinRoleChange": IsBuiltinRoleChange,
		"IsNoSuchToken": IsNoSuchToken, "IsTokenExists": IsTokenExists,
		"IsNoSuchRealm": IsNoSuchRealm, "IsRealmExists": IsRealmExists, "IsRealmsChanged": IsRealmsChanged,
	}
	cases := []struct {
		status  int
		message string
		errors  map[string]string
		want    string // the one recogniser that says yes; "" for none
	}{
		// src/PVE/AccessControl.pm check_user_exist.
		{500, "no such user ('alice@pve')", nil, "IsNoSuchUser"},
		// src/PVE/API2/ACL.pm update_acl.
		{500, "ACL update failed: user 'alice@pve' does not exist", nil, "IsNoSuchUser"},
		// src/PVE/API2/User.pm create_user.
		{500, "create user failed: user 'alice@pve' already exists", nil, "IsUserExists"},
		{500, "create user failed: no such group 'ops'", nil, "IsNoSuchGroup"},
		// src/PVE/API2/Group.pm.
		{500, "group 'ops' does not exist", nil, "IsNoSuchGroup"},
		{500, "delete group failed: group 'ops' does not exist", nil, "IsNoSuchGroup"},
		{500, "create group failed: group 'ops' already exists", nil, "IsGroupExists"},
		// src/PVE/API2/Role.pm.
		{500, "role 'Ops' does not exist", nil, "IsNoSuchRole"},
		{500, "ACL update failed: role 'Ops' does not exist", nil, "IsNoSuchRole"},
		{500, "create role failed: role 'Ops' already exists", nil, "IsRoleExists"},
		{500, "auto-generated role 'PVEAdmin' cannot be modified", nil, "IsBuiltinRoleChange"},
		{500, "auto-generated role 'NoAccess' cannot be deleted", nil, "IsBuiltinRoleChange"},
		{400, "Parameter verification failed.", map[string]string{"roleid": "cannot use role ID starting with the (case-insensitive) 'PVE' namespace"}, "IsBuiltinRoleChange"},
		// src/PVE/AccessControl.pm check_token_exist.
		{500, "no such token 'tf' for user 'alice@pve'", nil, "IsNoSuchToken"},
		{500, "deleting token failed: no such token 'tf' for user 'alice@pve'", nil, "IsNoSuchToken"},
		// src/PVE/API2/User.pm generate_token.
		{400, "Parameter verification failed.", map[string]string{"tokenid": "Token already exists."}, "IsTokenExists"},
		{500, "generating token failed: Token already exists.", nil, "IsTokenExists"},
		// src/PVE/API2/Domains.pm.
		{500, "domain 'corp' does not exist", nil, "IsNoSuchRealm"},
		{500, "update auth server failed: domain 'corp' does not exist", nil, "IsNoSuchRealm"},
		{500, "delete auth server failed: authentication domain 'corp' does not exist", nil, "IsNoSuchRealm"},
		{500, "auth domain 'corp' does not exist", nil, "IsNoSuchRealm"},
		{400, "Parameter verification failed.", map[string]string{"realm": "Realm does not exist."}, "IsNoSuchRealm"},
		{500, "add auth server failed: domain 'corp' already exists", nil, "IsRealmExists"},
		// pve-common src/PVE/SectionConfig.pm assert_if_modified, under
		// Domains.pm update's lock.
		{500, "update auth server failed: detected modified configuration - file changed by other user? Try again.", nil, "IsRealmsChanged"},
		// Not refusals these recognisers know.
		{500, "pool 'ops' does not exist", nil, ""},
		{403, "Permission check failed (/access, Sys.Audit)", nil, ""},
		{400, "Parameter verification failed.", map[string]string{"userid": "invalid format - value 'x' does not look like a valid user name"}, ""},
	}
	for _, tc := range cases {
		err := &Error{Method: "GET", Path: "/access", StatusCode: tc.status, Message: tc.message, Errors: tc.errors}
		var got []string
		for name, is := range recognisers {
			if is(err) {
				got = append(got, name)
			}
		}
		sort.Strings(got)
		var want []string
		if tc.want != "" {
			want = []string{tc.want}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%d %q %v: recognised by %v, want %v", tc.status, tc.message, tc.errors, got, want)
		}
	}
}

// An unknown privilege is refused by the pve-priv format check as a
// parameter error (src/PVE/AccessControl.pm verify_privname; pve-common
// PVE/JSONSchema.pm check_prop "invalid format - ..."), or by
// add_role_privs under the lock; both name it.
func TestInvalidPrivilegeNamesThePrivilege(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	f.handle("POST /access/roles", func(w http.ResponseWriter, _ *http.Request) {
		writeParamError(w, map[string]string{"privs": "invalid format - invalid privilege 'VM.Monitor'\n"})
	})
	f.handle("PUT /access/roles/{roleid}", func(w http.ResponseWriter, _ *http.Request) {
		writePVEError(w, 500, "update role failed: invalid privilege 'VM.Replicate'")
	})
	f.handle("GET /access/roles/{roleid}", func(w http.ResponseWriter, _ *http.Request) {
		writePVEError(w, 500, "role 'Ops' does not exist")
	})
	c := f.client()
	ctx := context.Background()
	if priv, ok := InvalidPrivilege(c.CreateRole(ctx, "Ops", []string{"VM.Monitor"})); !ok || priv != "VM.Monitor" {
		t.Errorf("create: %q %v", priv, ok)
	}
	if priv, ok := InvalidPrivilege(c.UpdateRole(ctx, "Ops", []string{"VM.Replicate"}, false)); !ok || priv != "VM.Replicate" {
		t.Errorf("update: %q %v", priv, ok)
	}
	_, err := c.GetRole(ctx, "Ops")
	if _, ok := InvalidPrivilege(err); ok || !IsNoSuchRole(err) {
		t.Errorf("missing role: %v", err)
	}
}
