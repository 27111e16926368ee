package pveapi

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// Each access control call is the one request PVE's access API takes for
// it: booleans as 1/0 (W6), create calls leave out what PVE would not
// keep, update calls send "" to clear a user's or group's text (PVE's
// update_user and update_group store any value sent; a request holding an
// empty value travels as JSON, which keeps it) and a realm's delete list
// for the rest.
func TestAccessCallsSendTheRightRequest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	yes, no := true, false
	empty, text := "", "ops team"
	never := int64(0)
	cases := []struct {
		name                      string
		call                      func(c *Client) error
		method, path, query, body string
	}{
		{"list users with groups and tokens", func(c *Client) error {
			_, err := c.Users(ctx, true)
			return err
		}, "GET", "/access/users", "full=1", ""},
		{"create a user", func(c *Client) error {
			return c.CreateUser(ctx, UserCreate{
				UserID: "alice@pve", Password: "s3cret-pass", Enable: &no, Expire: 1893456000,
				Firstname: "Alice", Email: "alice@example.com", Groups: []string{"ops", "dev"},
			})
		}, "POST", "/access/users", "", "email=alice%40example.com&enable=0&expire=1893456000&firstname=Alice&groups=ops%2Cdev&password=s3cret-pass&userid=alice%40pve"},
		{"create a user with PVE's defaults", func(c *Client) error {
			return c.CreateUser(ctx, UserCreate{UserID: "bob@pam"})
		}, "POST", "/access/users", "", "userid=bob%40pam"},
		{"update a user, clearing fields", func(c *Client) error {
			return c.UpdateUser(ctx, UserUpdate{UserID: "alice@pve", Enable: &yes, Expire: &never, Comment: &empty, Email: &text})
		}, "PUT", "/access/users/alice@pve", "", `{"comment":"","email":"ops team","enable":"1","expire":"0"}`},
		{"take a user out of every group", func(c *Client) error {
			return c.UpdateUser(ctx, UserUpdate{UserID: "alice@pve", Groups: []string{}})
		}, "PUT", "/access/users/alice@pve", "", `{"groups":""}`},
		{"add a user to groups", func(c *Client) error {
			return c.UpdateUser(ctx, UserUpdate{UserID: "alice@pve", Groups: []string{"ops"}, AppendGroups: true})
		}, "PUT", "/access/users/alice@pve", "", "append=1&groups=ops"},
		{"add a user to no group", func(c *Client) error {
			return c.UpdateUser(ctx, UserUpdate{UserID: "alice@pve", Groups: []string{}, AppendGroups: true, Keys: &text})
		}, "PUT", "/access/users/alice@pve", "", "keys=ops+team"},
		{"delete a user", func(c *Client) error {
			return c.DeleteUser(ctx, "alice@pve")
		}, "DELETE", "/access/users/alice@pve", "", ""},
		{"create a token", func(c *Client) error {
			_, err := c.CreateToken(ctx, TokenCreate{UserID: "alice@pve", TokenID: "tf", Comment: "ci", Expire: 1893456000, PrivSep: &no})
			return err
		}, "POST", "/access/users/alice@pve/token/tf", "", "comment=ci&expire=1893456000&privsep=0"},
		{"update a token", func(c *Client) error {
			_, err := c.UpdateToken(ctx, TokenUpdate{UserID: "alice@pve", TokenID: "tf", Comment: &empty, PrivSep: &yes, Regenerate: true})
			return err
		}, "PUT", "/access/users/alice@pve/token/tf", "", `{"comment":"","privsep":"1","regenerate":"1"}`},
		{"delete a token", func(c *Client) error {
			return c.DeleteToken(ctx, "alice@pve", "tf")
		}, "DELETE", "/access/users/alice@pve/token/tf", "", ""},
		{"create a group", func(c *Client) error {
			return c.CreateGroup(ctx, "ops", "")
		}, "POST", "/access/groups", "", "groupid=ops"},
		{"clear a group's comment", func(c *Client) error {
			return c.UpdateGroup(ctx, "ops", "")
		}, "PUT", "/access/groups/ops", "", `{"comment":""}`},
		{"delete a group", func(c *Client) error {
			return c.DeleteGroup(ctx, "ops")
		}, "DELETE", "/access/groups/ops", "", ""},
		{"create a role", func(c *Client) error {
			return c.CreateRole(ctx, "Ops", []string{"VM.Audit", "VM.PowerMgmt"})
		}, "POST", "/access/roles", "", "privs=VM.Audit%2CVM.PowerMgmt&roleid=Ops"},
		{"add privileges to a role", func(c *Client) error {
			return c.UpdateRole(ctx, "Ops", []string{"VM.Console"}, true)
		}, "PUT", "/access/roles/Ops", "", "append=1&privs=VM.Console"},
		{"empty a role", func(c *Client) error {
			return c.UpdateRole(ctx, "Ops", nil, true)
		}, "PUT", "/access/roles/Ops", "", ""},
		{"delete a role", func(c *Client) error {
			return c.DeleteRole(ctx, "Ops")
		}, "DELETE", "/access/roles/Ops", "", ""},
		{"grant roles", func(c *Client) error {
			return c.UpdateACL(ctx, ACLChange{Path: "/vms/100", Roles: []string{"PVEVMUser", "Ops"}, Users: []string{"alice@pve"},
				Tokens: []string{"alice@pve!tf"}, Propagate: &no})
		}, "PUT", "/access/acl", "", "path=%2Fvms%2F100&propagate=0&roles=PVEVMUser%2COps&tokens=alice%40pve%21tf&users=alice%40pve"},
		{"revoke a role", func(c *Client) error {
			return c.UpdateACL(ctx, ACLChange{Path: "/", Roles: []string{"PVEAuditor"}, Groups: []string{"ops"}, Delete: true})
		}, "PUT", "/access/acl", "", "delete=1&groups=ops&path=%2F&roles=PVEAuditor"},
		{"effective permissions of a token on a path", func(c *Client) error {
			_, err := c.GetPermissions(ctx, "alice@pve!tf", "/vms/100")
			return err
		}, "GET", "/access/permissions", "path=%2Fvms%2F100&userid=alice%40pve%21tf", ""},
		{"create an LDAP realm", func(c *Client) error {
			return c.CreateRealm(ctx, RealmCreate{Realm: "corp", Type: RealmTypeLDAP, Comment: "Corp", Default: true,
				Options:  map[string]string{"server1": "ldap.example.com", "base_dn": "dc=example,dc=com", "user_attr": "uid"},
				Password: "bind-secret", CheckConnection: true})
		}, "POST", "/access/domains", "", "base_dn=dc%3Dexample%2Cdc%3Dcom&check-connection=1&comment=Corp&default=1&password=bind-secret&realm=corp&server1=ldap.example.com&type=ldap&user_attr=uid"},
		{"update a realm, removing the comment and the bind password", func(c *Client) error {
			return c.UpdateRealm(ctx, RealmUpdate{Realm: "corp", Comment: &empty, Password: &empty, Default: &no,
				Options: map[string]string{"port": "636"}, Delete: []string{"server2"}, Digest: "d1"})
		}, "PUT", "/access/domains/corp", "", "default=0&delete=server2%2Ccomment%2Cpassword&digest=d1&port=636"},
		{"delete a realm", func(c *Client) error {
			return c.DeleteRealm(ctx, "corp")
		}, "DELETE", "/access/domains/corp", "", ""},
		{"sync a realm", func(c *Client) error {
			_, err := c.SyncRealm(ctx, "corp", RealmSync{Scope: "both", RemoveVanished: "acl;entry", EnableNew: &no, DryRun: true})
			return err
		}, "POST", "/access/domains/corp/sync", "", "dry-run=1&enable-new=0&remove-vanished=acl%3Bentry&scope=both"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newCatchAllPVE(t, func(w http.ResponseWriter, _ *http.Request) { writeData(w, nil) })
			if err := tc.call(f.client()); err != nil {
				t.Fatalf("call: %v", err)
			}
			sent := f.requests()
			want := sentRequest{method: tc.method, path: tc.path, query: tc.query, body: tc.body}
			if len(sent) != 1 || sent[0] != want {
				t.Errorf("sent %+v\nwant %+v", sent, want)
			}
		})
	}
}

// A user reads back with its groups as an array and its tokens as an
// object keyed by token id (read_user); the list gives groups comma-joined
// and tokens as an array (index with full=1). Booleans come as 0/1 and
// absent flags take PVE's defaults (W5).
func TestUserDecode(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	f.handle("GET /access/users/{userid}", func(w http.ResponseWriter, _ *http.Request) {
		writeData(w, map[string]any{
			"enable": 1, "expire": 0, "firstname": "Alice", "email": "",
			"groups": []string{"dev", "ops"},
			"tokens": map[string]any{
				"tf": map[string]any{"privsep": 0, "expire": 0, "comment": "ci"},
				"ab": map[string]any{"expire": "1893456000"},
			},
		})
	})
	f.handle("GET /access/users", func(w http.ResponseWriter, _ *http.Request) {
		writeData(w, []map[string]any{
			{"userid": "root@pam", "enable": 1, "expire": 0, "realm-type": "pam", "groups": "", "tokens": []any{}},
			{"userid": "bob@pve", "enable": 0, "expire": 1893456000, "realm-type": "pve", "groups": "dev,ops",
				"tokens": []map[string]any{{"tokenid": "x", "privsep": "1", "expire": 0}}, "totp-locked": 1},
			{"userid": "carol@pve", "groups": "ops"},
		})
	})
	c := f.client()
	user, err := c.GetUser(context.Background(), "alice@pve")
	if err != nil {
		t.Fatal(err)
	}
	want := &User{UserID: "alice@pve", Enable: true, Firstname: "Alice", Groups: IDList{"dev", "ops"},
		Tokens: TokenList{{TokenID: "ab", Expire: 1893456000, PrivSep: true}, {TokenID: "tf", Comment: "ci"}}}
	if !reflect.DeepEqual(user, want) {
		t.Errorf("GetUser = %+v\nwant %+v", user, want)
	}
	users, err := c.Users(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	if len(users) != 3 {
		t.Fatalf("Users = %+v", users)
	}
	if users[0].RealmType != "pam" || len(users[0].Groups) != 0 || len(users[0].Tokens) != 0 {
		t.Errorf("root@pam = %+v", users[0])
	}
	bob := users[1]
	if bool(bob.Enable) || bob.Expire != 1893456000 || !reflect.DeepEqual(bob.Groups, IDList{"dev", "ops"}) ||
		!reflect.DeepEqual(bob.Tokens, TokenList{{TokenID: "x", PrivSep: true}}) || !bool(bob.TOTPLocked) {
		t.Errorf("bob@pve = %+v", bob)
	}
	if !users[2].Enable {
		t.Error("a user without an enable flag is enabled")
	}
}

// A group's members come as an array (read_group), the list's as a comma
// string (index); a role reads as a privilege map (read_role), the list
// with privs comma-joined and special as 0/1; ACL entries carry
// propagate as 0/1; effective permissions map path to privilege to
// propagate.
func TestGroupRoleACLPermissionsDecode(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	f.handle("GET /access/groups/{groupid}", func(w http.ResponseWriter, _ *http.Request) {
		writeData(w, map[string]any{"members": []string{"alice@pve"}, "comment": "Ops"})
	})
	f.handle("GET /access/groups", func(w http.ResponseWriter, _ *http.Request) {
		writeData(w, []map[string]any{{"groupid": "ops", "users": "alice@pve,bob@pve"}, {"groupid": "empty"}})
	})
	f.handle("GET /access/roles/{roleid}", func(w http.ResponseWriter, _ *http.Request) {
		writeData(w, map[string]any{"VM.PowerMgmt": 1, "VM.Audit": 1})
	})
	f.handle("GET /access/roles", func(w http.ResponseWriter, _ *http.Request) {
		writeData(w, []map[string]any{
			{"roleid": "NoAccess", "privs": "", "special": 1},
			{"roleid": "Ops", "privs": "VM.Audit,VM.PowerMgmt", "special": 0},
		})
	})
	f.handle("GET /access/acl", func(w http.ResponseWriter, _ *http.Request) {
		writeData(w, []map[string]any{
			{"path": "/vms/100", "type": "token", "ugid": "alice@pve!tf", "roleid": "PVEVMUser", "propagate": 0},
			{"path": "/", "type": "group", "ugid": "ops", "roleid": "PVEAuditor", "propagate": 1},
		})
	})
	f.handle("GET /access/permissions", func(w http.ResponseWriter, _ *http.Request) {
		writeData(w, map[string]any{"/vms/100": map[string]any{"VM.Audit": 1, "VM.Console": 0}})
	})
	c := f.client()
	ctx := context.Background()

	group, err := c.GetGroup(ctx, "ops")
	if err != nil || !reflect.DeepEqual(group, &Group{GroupID: "ops", Comment: "Ops", Members: IDList{"alice@pve"}}) {
		t.Errorf("GetGroup = %+v, %v", group, err)
	}
	groups, err := c.Groups(ctx)
	if err != nil || len(groups) != 2 || !reflect.DeepEqual(groups[0].Users, IDList{"alice@pve", "bob@pve"}) || len(groups[1].Users) != 0 {
		t.Errorf("Groups = %+v, %v", groups, err)
	}
	privs, err := c.GetRole(ctx, "Ops")
	if err != nil || !reflect.DeepEqual(privs, []string{"VM.Audit", "VM.PowerMgmt"}) {
		t.Errorf("GetRole = %v, %v", privs, err)
	}
	roles, err := c.Roles(ctx)
	if err != nil || len(roles) != 2 || !bool(roles[0].Special) || len(roles[0].Privs) != 0 || bool(roles[1].Special) ||
		!reflect.DeepEqual(roles[1].Privs, IDList{"VM.Audit", "VM.PowerMgmt"}) {
		t.Errorf("Roles = %+v, %v", roles, err)
	}
	acl, err := c.ACL(ctx)
	want := []ACLEntry{
		{Path: "/vms/100", Type: ACLTypeToken, UGID: "alice@pve!tf", RoleID: "PVEVMUser", Propagate: false},
		{Path: "/", Type: ACLTypeGroup, UGID: "ops", RoleID: "PVEAuditor", Propagate: true},
	}
	if err != nil || !reflect.DeepEqual(acl, want) {
		t.Errorf("ACL = %+v, %v", acl, err)
	}
	perms, err := c.GetPermissions(ctx, "", "")
	if err != nil || !reflect.DeepEqual(perms, Permissions{"/vms/100": {"VM.Audit": true, "VM.Console": false}}) {
		t.Errorf("GetPermissions = %v, %v", perms, err)
	}
}

// A realm reads with its common properties typed and the rest as PVE
// printed them, numbers and 0/1 booleans included; the sync answers a
// task id.
func TestRealmDecode(t *testing.T) {
	t.Parallel()
	const upid = "UPID:pve1:0000A1B2:00C3D4E5:6789ABCD:auth-realm-sync:corp:root@pam:"
	f := newFakePVE(t)
	f.handle("GET /access/domains/{realm}", func(w http.ResponseWriter, _ *http.Request) {
		writeData(w, map[string]any{
			"type": "ldap", "comment": "Corp", "default": 1, "digest": "abc", "server1": "ldap.example.com",
			"port": 636, "secure": 1, "base_dn": "dc=example,dc=com", "user_attr": "uid",
			"sync-defaults-options": "remove-vanished=acl;entry,scope=both",
		})
	})
	f.handle("GET /access/domains", func(w http.ResponseWriter, _ *http.Request) {
		writeData(w, []map[string]any{{"realm": "pve", "type": "pve", "comment": "Proxmox VE authentication server"},
			{"realm": "corp", "type": "ldap", "default": 1, "tfa": "oath"}})
	})
	f.handle("POST /access/domains/{realm}/sync", func(w http.ResponseWriter, _ *http.Request) { writeData(w, upid) })
	c := f.client()
	ctx := context.Background()
	realm, err := c.GetRealm(ctx, "corp")
	if err != nil {
		t.Fatal(err)
	}
	want := &Realm{Realm: "corp", Type: "ldap", Comment: "Corp", Default: true, Digest: "abc", Options: map[string]string{
		"server1": "ldap.example.com", "port": "636", "secure": "1", "base_dn": "dc=example,dc=com", "user_attr": "uid",
		"sync-defaults-options": "remove-vanished=acl;entry,scope=both",
	}}
	if !reflect.DeepEqual(realm, want) {
		t.Errorf("GetRealm = %+v\nwant %+v", realm, want)
	}
	realms, err := c.Realms(ctx)
	if err != nil || len(realms) != 2 || realms[0].Realm != "corp" || !realms[0].Default || realms[0].TFA != "oath" {
		t.Errorf("Realms = %+v, %v", realms, err)
	}
	got, err := c.SyncRealm(ctx, "corp", RealmSync{Scope: "users"})
	if err != nil || got != upid {
		t.Errorf("SyncRealm = %q, %v", got, err)
	}
}

// A new token's answer (generate_token) carries the settings under info
// and the secret apart; an update's (update_token_info) the settings at
// top level, with the secret only when regenerated.
func TestTokenAnswersDecode(t *testing.T) {
	t.Parallel()
	const secret = "0b9a2b8e-4c1d-4e6f-8a7b-9c0d1e2f3a4b"
	f := newFakePVE(t)
	f.handle("POST /access/users/{userid}/token/{tokenid}", func(w http.ResponseWriter, _ *http.Request) {
		writeData(w, map[string]any{"full-tokenid": "alice@pve!tf", "value": secret, "info": map[string]any{"privsep": 1, "comment": "ci"}})
	})
	f.handle("PUT /access/users/{userid}/token/{tokenid}", func(w http.ResponseWriter, r *http.Request) {
		answer := map[string]any{"privsep": 0, "expire": 0}
		if r.FormValue("regenerate") == "1" {
			answer["value"], answer["full-tokenid"] = secret, "alice@pve!tf"
		}
		writeData(w, answer)
	})
	f.handle("GET /access/users/{userid}/token/{tokenid}", func(w http.ResponseWriter, _ *http.Request) {
		writeData(w, map[string]any{"privsep": "0", "expire": 1893456000})
	})
	c := f.client()
	ctx := context.Background()
	created, err := c.CreateToken(ctx, TokenCreate{UserID: "alice@pve", TokenID: "tf", Comment: "ci"})
	if err != nil {
		t.Fatal(err)
	}
	if created.FullTokenID != "alice@pve!tf" || created.Value != secret || created.Info != (Token{TokenID: "tf", Comment: "ci", PrivSep: true}) {
		t.Errorf("CreateToken = %#v / %+v", created, created.Info)
	}
	updated, err := c.UpdateToken(ctx, TokenUpdate{UserID: "alice@pve", TokenID: "tf"})
	if err != nil || updated.Value != "" || updated.Info != (Token{TokenID: "tf"}) {
		t.Errorf("UpdateToken = %+v, %v", updated, err)
	}
	regenerated, err := c.UpdateToken(ctx, TokenUpdate{UserID: "alice@pve", TokenID: "tf", Regenerate: true})
	if err != nil || regenerated.Value != secret || regenerated.FullTokenID != "alice@pve!tf" {
		t.Errorf("UpdateToken with regenerate = %+v, %v", regenerated, err)
	}
	token, err := c.GetToken(ctx, "alice@pve", "tf")
	if err != nil || *token != (Token{TokenID: "tf", Expire: 1893456000}) {
		t.Errorf("GetToken = %+v, %v", token, err)
	}
}

// PVE serves PUT /access/password only to a ticket, so a token client
// refuses it without asking.
func TestChangePasswordNeedsATicket(t *testing.T) {
	t.Parallel()
	f := newCatchAllPVE(t, func(w http.ResponseWriter, _ *http.Request) { writeData(w, nil) })
	err := f.client().ChangePassword(context.Background(), "alice@pve", "n3w-passw0rd", "")
	if !errors.Is(err, ErrPasswordNeedsTicket) || len(f.requests()) != 0 {
		t.Errorf("err %v after %d requests", err, len(f.requests()))
	}
}

// PVE asks every user but root@pam to confirm a password change with its
// own password: SetUserPassword sends the one the client logged in with,
// and a token client is refused without a request.
func TestSetUserPasswordConfirmsWithTheLogin(t *testing.T) {
	t.Parallel()
	confirmations := make(chan []string, 2)
	p := newTicketPVE(t)
	p.handle("PUT /access/password", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		confirmations <- r.Form["confirmation-password"]
		writeData(w, nil)
	})
	c := p.passwordClient()
	for _, tc := range []struct {
		user string
		want []string
	}{{testUser, []string{testPassword}}, {"root@pam", nil}} {
		// The fake logs in only testUser (first round); the name the
		// client knows itself by is what decides, so the second round
		// renames it while its ticket stays valid.
		c.auth.(*ticketAuth).username = tc.user
		if err := c.SetUserPassword(context.Background(), "alice@pve", "n3w-passw0rd"); err != nil {
			t.Fatalf("as %s: %v", tc.user, err)
		}
		if got := <-confirmations; strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("as %s: confirmation-password %q, want %q", tc.user, got, tc.want)
		}
	}
	f := newCatchAllPVE(t, func(w http.ResponseWriter, _ *http.Request) { writeData(w, nil) })
	if err := f.client().SetUserPassword(context.Background(), "alice@pve", "n3w-passw0rd"); !errors.Is(err, ErrPasswordNeedsTicket) || len(f.requests()) != 0 {
		t.Errorf("token client: %v after %d requests", err, len(f.requests()))
	}
}
