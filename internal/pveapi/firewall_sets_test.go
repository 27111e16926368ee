package pveapi

import (
	"context"
	"net/http"
	"net/url"
	"testing"
)

// PVE stores an alias's name as the request's path spells it and ignores a
// rename to the same name in another case (pve-firewall
// src/PVE/API2/Firewall/Aliases.pm register_update_alias): a new spelling
// goes in the path, another name in rename.
func TestUpdateFirewallAliasRename(t *testing.T) {
	f := newFakePVE(t)
	var paths []string
	var forms []url.Values
	f.handle("PUT /cluster/firewall/aliases/{name}", func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, r.PathValue("name"))
		forms = append(forms, r.PostForm)
		writeData(w, nil)
	})
	c := f.client()
	ctx := context.Background()
	for _, tc := range []struct {
		name, newName, wantPath, wantRename string
	}{
		{"office", "", "office", ""},
		{"office", "office", "office", ""},
		{"office", "Office", "Office", ""},
		{"office", "branch", "office", "branch"},
	} {
		paths, forms = nil, nil
		if err := c.UpdateFirewallAlias(ctx, FirewallScope{}, tc.name, tc.newName, "10.0.0.1", "", "d1"); err != nil {
			t.Fatal(err)
		}
		if len(paths) != 1 || paths[0] != tc.wantPath || forms[0].Get("rename") != tc.wantRename || forms[0].Get("digest") != "d1" {
			t.Errorf("%s -> %q: sent %v %v, want path %s rename %q", tc.name, tc.newName, paths, forms, tc.wantPath, tc.wantRename)
		}
		if _, sent := forms[0]["comment"]; sent {
			t.Errorf("an empty comment was sent: %v", forms[0])
		}
	}
}

// An empty IP set's answer carries no digest; its digest is the empty
// list's.
func TestIPSetEntriesEmptyDigest(t *testing.T) {
	f := newFakePVE(t)
	f.handle("GET /cluster/firewall/ipset/{name}", func(w http.ResponseWriter, _ *http.Request) { writeData(w, []any{}) })
	_, digest, err := f.client().IPSetEntries(context.Background(), FirewallScope{}, "empty")
	if err != nil || digest != "da39a3ee5e6b4b0d3255bfef95601890afd80709" {
		t.Errorf("digest %q, %v", digest, err)
	}
}

func TestIsNoSuchIPSet(t *testing.T) {
	if !IsNoSuchIPSet(&Error{StatusCode: 500, Message: "no such IPSet 'web'\n"}) {
		t.Error("PVE's answer for a missing IP set was not recognised")
	}
	if IsNoSuchIPSet(&Error{StatusCode: 500, Message: "no such alias 'web'"}) {
		t.Error("another error was taken for a missing IP set")
	}
}
