package access

import (
	"context"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

func realmTestTypes() map[string]attr.Type {
	return realmSchema(context.Background()).Type().(types.ObjectType).AttrTypes
}

// realmTestValues is a model read from PVE without a prior state.
func realmTestValues(t *testing.T, r *pveapi.Realm, prior realmValues) realmValues {
	t.Helper()
	v, err := realmFromAPI(context.Background(), r, prior, realmTestTypes())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestRealmFromAPIBuiltinCommentAndDefault(t *testing.T) {
	t.Parallel()
	pam := &pveapi.Realm{Realm: "pam", Type: "pam", Comment: "Linux PAM standard authentication", Options: map[string]string{}}
	// PVE's built-in comment is no comment of the realm's own.
	if v := realmTestValues(t, pam, nil); !v["comment"].IsNull() || !v["default"].IsNull() {
		t.Errorf("pam read as comment %v default %v, want both null", v["comment"], v["default"])
	}
	// Unless the configuration declares that very comment.
	prior := realmValues{"comment": types.StringValue("Linux PAM standard authentication"), "default": types.BoolValue(false)}
	v := realmTestValues(t, pam, prior)
	if !v["comment"].Equal(types.StringValue("Linux PAM standard authentication")) {
		t.Errorf("declared built-in comment read as %v", v["comment"])
	}
	// Not the default: false where the state said false, null otherwise.
	if !v["default"].Equal(types.BoolValue(false)) {
		t.Errorf("default read as %v, want false", v["default"])
	}
	pam.Default = true
	if v := realmTestValues(t, pam, nil); !v["default"].Equal(types.BoolValue(true)) {
		t.Errorf("default read as %v, want true", v["default"])
	}
}

func TestRealmFromAPIOptions(t *testing.T) {
	t.Parallel()
	r := &pveapi.Realm{Realm: "corp", Type: "ldap", TFA: "type=oath,step=60", Options: map[string]string{
		"server1": "ldap1", "base_dn": "dc=x", "user_attr": "uid", "port": "636", "verify": "1",
		"user_classes":    "inetorgperson, posixaccount;person",
		"sync_attributes": "email=mail, firstname = givenName",
		// PVE reads the deprecated flags into remove-vanished and shows both.
		"sync-defaults-options": "full=1,purge=1,remove-vanished=entry;properties;acl,scope=both",
		// Options of other realm types are not the ldap realm's.
		"issuer-url": "https://id",
	}}
	v := realmTestValues(t, r, nil)
	got := v.wireOptions()
	want := map[string]string{
		"server1": "ldap1", "base_dn": "dc=x", "user_attr": "uid", "port": "636", "verify": "1",
		"user_classes": "inetorgperson,posixaccount,person", "sync_attributes": "email=mail,firstname=givenName",
		"sync-defaults-options": "remove-vanished=acl;properties;entry,scope=both",
		"tfa":                   "type=oath,step=60",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("wire options\n got %v\nwant %v", got, want)
	}
	if !v["issuer_url"].IsNull() {
		t.Errorf("issuer_url of an ldap realm read as %v", v["issuer_url"])
	}
}

func TestRealmFromAPIRemoveVanishedNone(t *testing.T) {
	t.Parallel()
	r := &pveapi.Realm{Realm: "corp", Type: "ad", Options: map[string]string{"sync-defaults-options": "remove-vanished=none"}}
	v := realmTestValues(t, r, nil)
	sd, ok := v.object("sync_defaults")
	if !ok {
		t.Fatal("sync_defaults read as null")
	}
	if flags, ok := sd.strings("remove_vanished"); !ok || len(flags) != 0 {
		t.Errorf("remove_vanished none read as %v (set: %v), want the empty set", flags, ok)
	}
	if got := v.wireOptions()["sync-defaults-options"]; got != "remove-vanished=none" {
		t.Errorf("written back as %q", got)
	}
}

func TestRealmToUpdate(t *testing.T) {
	t.Parallel()
	prior := realmTestValues(t, &pveapi.Realm{Realm: "corp", Type: "openid", Default: true, Comment: "old", Options: map[string]string{
		"issuer-url": "https://id", "client-id": "pve", "username-claim": "email", "scopes": "openid email", "client-key": "k1",
	}}, nil)
	prior["client_key_wo_version"] = types.Int64Value(1)

	plan := realmTestValues(t, &pveapi.Realm{Realm: "corp", Type: "openid", Options: map[string]string{
		"issuer-url": "https://id", "client-id": "pve2", "username-claim": "email", "prompt": "login",
	}}, nil)
	plan["client_key_wo_version"] = types.Int64Value(1)

	update, needed := realmToUpdate(prior, plan, realmSecrets{password: types.StringNull(), clientKey: types.StringValue("k2")})
	if !needed {
		t.Fatal("no update needed")
	}
	// The unchanged fixed username-claim is never sent; the key is not
	// sent while its version stays.
	wantOptions := map[string]string{"client-id": "pve2", "prompt": "login"}
	if !reflect.DeepEqual(update.Options, wantOptions) || !reflect.DeepEqual(update.Delete, []string{"comment", "scopes", "default"}) ||
		update.Comment != nil || update.Default != nil || update.Password != nil {
		t.Errorf("update %+v", update)
	}

	plan["client_key_wo_version"] = types.Int64Value(2)
	update, _ = realmToUpdate(prior, plan, realmSecrets{password: types.StringNull(), clientKey: types.StringValue("k2")})
	if update.Options["client-key"] != "k2" {
		t.Errorf("a new version sends the key: %+v", update.Options)
	}
	update, _ = realmToUpdate(prior, plan, realmSecrets{password: types.StringNull(), clientKey: types.StringNull()})
	if _, set := update.Options["client-key"]; set || update.Delete[len(update.Delete)-1] != "client-key" {
		t.Errorf("a new version without a key deletes it: %+v", update)
	}

	if _, needed := realmToUpdate(prior, prior, realmSecrets{password: types.StringNull(), clientKey: types.StringNull()}); needed {
		t.Error("an unchanged realm needs an update")
	}
}

func TestRealmChangedOutsideLeavesDefaultOut(t *testing.T) {
	t.Parallel()
	known := realmTestValues(t, &pveapi.Realm{Realm: "pam", Type: "pam", Default: true, Comment: "a", Options: map[string]string{}}, nil)
	live := realmTestValues(t, &pveapi.Realm{Realm: "pam", Type: "pam", Comment: "a", Options: map[string]string{}}, nil)
	if changed := changedOutside(known, live); len(changed) != 0 {
		t.Errorf("losing the default flag counts as a change: %v", changed)
	}
	live = realmTestValues(t, &pveapi.Realm{Realm: "pam", Type: "pam", Comment: "b", TFA: "type=oath", Options: map[string]string{}}, nil)
	if changed := changedOutside(known, live); !reflect.DeepEqual(changed, []string{"comment", "tfa"}) {
		t.Errorf("changed %v, want comment and tfa", changed)
	}
}

func TestRealmToCreate(t *testing.T) {
	t.Parallel()
	plan := realmTestValues(t, &pveapi.Realm{Realm: "corp", Type: "ldap", Default: true, Comment: "c", TFA: "type=yubico,id=1,key=k", Options: map[string]string{
		"server1": "ldap1", "base_dn": "dc=x", "user_attr": "uid", "group_classes": "group",
	}}, nil)
	create := realmToCreate(plan, realmSecrets{password: types.StringValue("pw"), clientKey: types.StringValue("ignored")})
	want := pveapi.RealmCreate{Realm: "corp", Type: "ldap", Comment: "c", Default: true, TFA: "type=yubico,id=1,key=k", Password: "pw",
		Options: map[string]string{"server1": "ldap1", "base_dn": "dc=x", "user_attr": "uid", "group_classes": "group"}}
	if !reflect.DeepEqual(create, want) {
		t.Errorf("create\n got %+v\nwant %+v", create, want)
	}
}

func TestRealmSelfLockout(t *testing.T) {
	t.Parallel()
	newResource := func(cfg pveapi.Config) *realmResource {
		cfg.Endpoint = "https://127.0.0.1:8006"
		client, err := pveapi.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return &realmResource{client: client}
	}
	token := newResource(pveapi.Config{APIToken: "alice@corp!tf=00000000-0000-0000-0000-000000000000"})
	password := newResource(pveapi.Config{Username: "alice@corp", Password: "x"})
	corp := realmTestValues(t, &pveapi.Realm{Realm: "corp", Type: "ldap", Options: map[string]string{}}, nil)
	other := realmTestValues(t, &pveapi.Realm{Realm: "other", Type: "ldap", Options: map[string]string{}}, nil)
	withTFA := realmTestValues(t, &pveapi.Realm{Realm: "corp", Type: "ldap", TFA: "type=oath", Options: map[string]string{}}, nil)
	allowed := realmTestValues(t, &pveapi.Realm{Realm: "corp", Type: "ldap", Options: map[string]string{}}, nil)
	allowed["allow_self_lockout"] = types.BoolValue(true)
	cases := []struct {
		name      string
		r         *realmResource
		prior     realmValues
		plan      realmValues
		replacing bool
		refused   bool
	}{
		{"destroy own realm", token, corp, nil, false, true},
		{"destroy own realm allowed", token, allowed, nil, false, false},
		{"destroy another realm", token, other, nil, false, false},
		{"replace own realm", token, corp, corp, true, true},
		{"update own realm", token, corp, corp, false, false},
		{"tfa on own realm with a password", password, corp, withTFA, false, true},
		{"tfa on own realm created with a password", password, nil, withTFA, false, true},
		{"tfa on own realm with a token", token, corp, withTFA, false, false},
		{"tfa kept on own realm", password, withTFA, withTFA, false, false},
	}
	for _, c := range cases {
		var resp resource.ModifyPlanResponse
		c.r.refuseSelfLockout(c.prior, c.plan, c.replacing, &resp)
		if got := resp.Diagnostics.HasError(); got != c.refused {
			t.Errorf("%s: refused %v, want %v (%v)", c.name, got, c.refused, resp.Diagnostics)
		}
	}
}
