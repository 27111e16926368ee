package pveapi

import (
	"context"
	"net/url"
	"sort"
	"strings"
)

// Realm types PVE knows (POST /access/domains type).
const (
	RealmTypePAM    = "pam"
	RealmTypePVE    = "pve"
	RealmTypeLDAP   = "ldap"
	RealmTypeAD     = "ad"
	RealmTypeOpenID = "openid"
)

// RealmSummary is one entry of GET /access/domains.
type RealmSummary struct {
	Realm   string `json:"realm"`
	Type    string `json:"type"`
	Comment string `json:"comment,omitempty"`
	Default Bool01 `json:"default,omitempty"`
	TFA     string `json:"tfa,omitempty"` // the realm's second factor type: yubico, oath
}

// Realm is GET /access/domains/{realm}: the properties every realm type
// has, and the type's own (server1, base_dn, mode, issuer-url, client-id,
// sync-defaults-options, ...) in Options as PVE prints them, booleans as
// 1 and 0. The bind password of an LDAP or AD realm is never in the answer
// (PVE keeps it apart, in priv/realm/REALM.pw); an OpenID realm's
// client-key is, and the client keeps it out of its logs and errors from
// then on.
type Realm struct {
	Realm   string
	Type    string
	Comment string
	Default bool
	TFA     string // the realm's second factor setting, a property string
	Digest  string // of domains.cfg, for UpdateRealm
	Options map[string]string
}

// RealmCreate is POST /access/domains. Only ldap, ad and openid realms
// can be created; pam and pve exist on every cluster. Password is the bind
// password of an LDAP or AD realm, write-only and never logged.
// CheckConnection makes PVE try the bind first (LDAP and AD only).
// Options holds the type's own properties, none of the typed ones.
type RealmCreate struct {
	Realm           string
	Type            string
	Comment         string
	Default         bool
	TFA             string
	Options         map[string]string
	Password        string
	CheckConnection bool
}

// RealmUpdate is PUT /access/domains/{realm}. Nil fields are left alone;
// Options are set and Delete names the properties to remove. Password ""
// removes the stored bind password. Digest, when set, makes PVE refuse the
// change if domains.cfg changed since it was read.
type RealmUpdate struct {
	Realm           string
	Comment         *string // "" removes the comment
	Default         *bool
	TFA             *string // "" removes the realm's second factor
	Options         map[string]string
	Delete          []string
	Password        *string
	CheckConnection bool
	Digest          string
}

// RealmSync is POST /access/domains/{realm}/sync; empty fields take the
// realm's sync-defaults-options, then PVE's defaults.
type RealmSync struct {
	Scope          string // users, groups or both; needed unless the realm's defaults name one
	RemoveVanished string // "acl;properties;entry" or a part of it, or "none"
	EnableNew      *bool
	DryRun         bool
}

// Realms lists the authentication realms (PVE serves it to anyone, for the
// login form).
func (c *Client) Realms(ctx context.Context) ([]RealmSummary, error) {
	var out []RealmSummary
	if err := c.Get(ctx, "/access/domains", nil, &out); err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Realm < out[j].Realm })
	return out, nil
}

// GetRealm reads one realm's configuration. A missing realm is an error
// IsNoSuchRealm recognises.
func (c *Client) GetRealm(ctx context.Context, realm string) (*Realm, error) {
	var raw map[string]any
	if err := c.Get(ctx, realmPath(realm), nil, &raw); err != nil {
		return nil, err
	}
	out := &Realm{Realm: realm, Options: map[string]string{}}
	for key, value := range raw {
		text, ok := scalarString(value)
		if !ok {
			continue
		}
		switch key {
		case "type":
			out.Type = text
		case "comment":
			out.Comment = text
		case "default":
			out.Default, _ = ParseBool(text)
		case "tfa":
			out.TFA = text
		case "digest":
			out.Digest = text
		case "realm":
		case "client-key":
			c.redactor.add(text)
			out.Options[key] = text
		default:
			out.Options[key] = text
		}
	}
	return out, nil
}

// CreateRealm adds an authentication realm.
func (c *Client) CreateRealm(ctx context.Context, realm RealmCreate) error {
	form := c.realmOptionsForm(realm.Options)
	form.Set("realm", realm.Realm)
	form.Set("type", realm.Type)
	if realm.Comment != "" {
		form.Set("comment", realm.Comment)
	}
	if realm.Default {
		form.Set("default", FormBool(true))
	}
	if realm.TFA != "" {
		form.Set("tfa", realm.TFA)
	}
	if realm.Password != "" {
		c.redactor.add(realm.Password)
		form.Set("password", realm.Password)
	}
	if realm.CheckConnection {
		form.Set("check-connection", FormBool(true))
	}
	return c.Post(ctx, "/access/domains", form, nil)
}

// UpdateRealm changes a realm's settings.
func (c *Client) UpdateRealm(ctx context.Context, update RealmUpdate) error {
	form := c.realmOptionsForm(update.Options)
	remove := append([]string(nil), update.Delete...)
	setOrRemove := func(key string, value *string) {
		switch {
		case value == nil:
		case *value == "":
			remove = append(remove, key)
		default:
			form.Set(key, *value)
		}
	}
	setOrRemove("comment", update.Comment)
	setOrRemove("tfa", update.TFA)
	if update.Password != nil && *update.Password != "" {
		c.redactor.add(*update.Password)
	}
	setOrRemove("password", update.Password)
	if update.Default != nil {
		form.Set("default", FormBool(*update.Default))
	}
	if len(remove) > 0 {
		form.Set("delete", strings.Join(remove, ","))
	}
	if update.CheckConnection {
		form.Set("check-connection", FormBool(true))
	}
	setDigest(form, update.Digest)
	return c.Put(ctx, realmPath(update.Realm), form, nil)
}

// DeleteRealm deletes a realm; its users stay in user.cfg.
func (c *Client) DeleteRealm(ctx context.Context, realm string) error {
	return c.Delete(ctx, realmPath(realm), nil, nil)
}

// SyncRealm starts a sync of an LDAP or AD realm's users and groups and
// returns the task's UPID, for WaitTask.
func (c *Client) SyncRealm(ctx context.Context, realm string, sync RealmSync) (upid string, err error) {
	form := url.Values{}
	if sync.Scope != "" {
		form.Set("scope", sync.Scope)
	}
	if sync.RemoveVanished != "" {
		form.Set("remove-vanished", sync.RemoveVanished)
	}
	if sync.EnableNew != nil {
		form.Set("enable-new", FormBool(*sync.EnableNew))
	}
	if sync.DryRun {
		form.Set("dry-run", FormBool(true))
	}
	if err := c.Post(ctx, realmPath(realm)+"/sync", form, &upid); err != nil {
		return "", err
	}
	return upid, nil
}

// realmOptionsForm starts a realm's form with its type's options. An
// OpenID client secret joins the secrets kept out of errors and logs.
func (c *Client) realmOptionsForm(options map[string]string) url.Values {
	form := url.Values{}
	for key, value := range options {
		form.Set(key, value)
	}
	c.redactor.add(options["client-key"])
	return form
}

func realmPath(realm string) string { return "/access/domains/" + url.PathEscape(realm) }
