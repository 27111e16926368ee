package pveapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// User is a user account as PVE answers it: GET /access/users/{userid}
// (UserID filled in by GetUser) or an entry of GET /access/users. PVE
// keeps a firstname, lastname, comment or keys value of "0" or "" as
// absent once user.cfg is read back (pve-access-control,
// src/PVE/AccessControl.pm parse_user_config), while an empty email reads
// back as "".
type User struct {
	UserID    string      `json:"userid"`
	Enable    Bool01      `json:"enable"`
	Expire    IntOrString `json:"expire,omitempty"` // seconds since the epoch; 0 never expires
	Firstname string      `json:"firstname,omitempty"`
	Lastname  string      `json:"lastname,omitempty"`
	Email     string      `json:"email,omitempty"`
	Comment   string      `json:"comment,omitempty"`
	Keys      string      `json:"keys,omitempty"` // Yubico key ids of the old per-user two-factor setting
	Groups    IDList      `json:"groups,omitempty"`
	Tokens    TokenList   `json:"tokens,omitempty"`
	// RealmType, TOTPLocked and TFALockedUntil come only in the list.
	RealmType      string      `json:"realm-type,omitempty"`
	TOTPLocked     Bool01      `json:"totp-locked,omitempty"`
	TFALockedUntil IntOrString `json:"tfa-locked-until,omitempty"`
}

// UnmarshalJSON decodes a user; an account without an enable flag is
// enabled, PVE's default.
func (u *User) UnmarshalJSON(data []byte) error {
	type plain User
	decoded := plain{Enable: true}
	if err := json.Unmarshal(data, &decoded); err != nil {
		return err
	}
	*u = User(decoded)
	return nil
}

// IDList is a list of ids that PVE answers as a JSON array on one call and
// as a comma-joined string on another (a user's groups, a group's users, a
// role's privileges). It decodes both; null and "" are an empty list.
type IDList []string

// UnmarshalJSON implements json.Unmarshaler.
func (l *IDList) UnmarshalJSON(data []byte) error {
	var items []string
	if err := json.Unmarshal(data, &items); err == nil {
		*l = items
		return nil
	}
	raw, _, err := scalarText(data)
	if err != nil {
		return fmt.Errorf("id list: %w", err)
	}
	*l = wire.SplitList(raw)
	return nil
}

// Token is an API token's settings: an entry of GET
// /access/users/{userid}/token, or of a user's tokens. TokenID is the part
// after the "!" of the full token id. PVE keeps no empty or "0" comment.
type Token struct {
	TokenID string      `json:"tokenid,omitempty"`
	Comment string      `json:"comment,omitempty"`
	Expire  IntOrString `json:"expire,omitempty"` // seconds since the epoch; 0 never expires
	// PrivSep restricts the token to its own ACL entries (within the
	// user's privileges); false gives it all of the user's privileges.
	PrivSep Bool01 `json:"privsep"`
}

// UnmarshalJSON decodes a token; privilege separation is on unless PVE
// says otherwise, as PVE defaults it.
func (t *Token) UnmarshalJSON(data []byte) error {
	type plain Token
	decoded := plain{PrivSep: true}
	if err := json.Unmarshal(data, &decoded); err != nil {
		return err
	}
	*t = Token(decoded)
	return nil
}

// TokenList is a user's tokens sorted by id. GET /access/users/{userid}
// answers them as an object keyed by token id, the user list as an array
// of entries with tokenid; both decode.
type TokenList []Token

// UnmarshalJSON implements json.Unmarshaler.
func (l *TokenList) UnmarshalJSON(data []byte) error {
	var list []Token
	if err := json.Unmarshal(data, &list); err != nil {
		var byID map[string]Token
		if mapErr := json.Unmarshal(data, &byID); mapErr != nil {
			return fmt.Errorf("tokens: %w", err)
		}
		for id, token := range byID {
			token.TokenID = id
			list = append(list, token)
		}
	}
	sort.Slice(list, func(i, j int) bool { return list[i].TokenID < list[j].TokenID })
	*l = list
	return nil
}

// UserCreate is POST /access/users. PVE stores a text field, keys or an
// expiry only when it is not empty, "0" or 0 (src/PVE/API2/User.pm
// create_user), so those are sent only then. Password sets the initial
// password of a pve realm user and is never logged.
type UserCreate struct {
	UserID    string
	Password  string
	Enable    *bool // nil: PVE's default, enabled
	Expire    int64
	Firstname string
	Lastname  string
	Email     string
	Comment   string
	Keys      string
	Groups    []string
}

// UserUpdate is PUT /access/users/{userid}. Nil fields are left alone. PVE
// has no delete list for users: it stores any value that is sent, so ""
// clears a text field (src/PVE/API2/User.pm update_user).
type UserUpdate struct {
	UserID    string
	Enable    *bool
	Expire    *int64 // 0 removes the expiry
	Firstname *string
	Lastname  *string
	Email     *string
	Comment   *string
	Keys      *string
	// Groups, when not nil, replaces the user's groups; an empty, non-nil
	// list takes the user out of every group. With AppendGroups the groups
	// are added to the user's current ones instead.
	Groups       []string
	AppendGroups bool
}

// Users lists the users the caller may see; full adds each user's groups
// and tokens.
func (c *Client) Users(ctx context.Context, full bool) ([]User, error) {
	query := url.Values{}
	if full {
		query.Set("full", FormBool(true))
	}
	var out []User
	if err := c.Get(ctx, "/access/users", query, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// GetUser reads one user with its groups and tokens. A missing user is an
// error IsNoSuchUser recognises.
func (c *Client) GetUser(ctx context.Context, userid string) (*User, error) {
	var out User
	if err := c.Get(ctx, userPath(userid), nil, &out); err != nil {
		return nil, err
	}
	out.UserID = userid
	return &out, nil
}

// CreateUser creates a user.
func (c *Client) CreateUser(ctx context.Context, user UserCreate) error {
	form := url.Values{"userid": {user.UserID}}
	if user.Password != "" {
		c.redactor.add(user.Password)
		form.Set("password", user.Password)
	}
	if user.Enable != nil {
		form.Set("enable", FormBool(*user.Enable))
	}
	if user.Expire > 0 {
		form.Set("expire", strconv.FormatInt(user.Expire, 10))
	}
	for key, value := range map[string]string{
		"firstname": user.Firstname, "lastname": user.Lastname, "email": user.Email,
		"comment": user.Comment, "keys": user.Keys,
	} {
		if value != "" {
			form.Set(key, value)
		}
	}
	if len(user.Groups) > 0 {
		form.Set("groups", strings.Join(user.Groups, ","))
	}
	return c.Post(ctx, "/access/users", form, nil)
}

// UpdateUser changes a user's settings.
func (c *Client) UpdateUser(ctx context.Context, update UserUpdate) error {
	form := url.Values{}
	if update.Enable != nil {
		form.Set("enable", FormBool(*update.Enable))
	}
	if update.Expire != nil {
		form.Set("expire", strconv.FormatInt(*update.Expire, 10))
	}
	for key, value := range map[string]*string{
		"firstname": update.Firstname, "lastname": update.Lastname, "email": update.Email,
		"comment": update.Comment, "keys": update.Keys,
	} {
		if value != nil {
			form.Set(key, *value)
		}
	}
	switch {
	case update.Groups == nil:
	case update.AppendGroups && len(update.Groups) > 0:
		form.Set("groups", strings.Join(update.Groups, ","))
		form.Set("append", FormBool(true))
	case !update.AppendGroups:
		form.Set("groups", strings.Join(update.Groups, ","))
	}
	return c.Put(ctx, userPath(update.UserID), form, nil)
}

// DeleteUser deletes a user with its tokens, two-factor entries, group
// memberships and ACL entries.
func (c *Client) DeleteUser(ctx context.Context, userid string) error {
	return c.Delete(ctx, userPath(userid), nil, nil)
}

// ErrPasswordNeedsTicket is ChangePassword's refusal for a client that
// authenticates with an API token: PVE serves PUT /access/password only to
// a ticket (src/PVE/API2/AccessControl.pm change_password, allowtoken 0).
var ErrPasswordNeedsTicket = errors.New("pve: changing a password needs a password login (ticket); PVE refuses it to API tokens")

// ChangePassword sets a user's password (PUT /access/password).
// confirmation is the current password of the user making the change,
// which PVE asks of everyone but root@pam; empty leaves it out. Neither
// password is ever logged. Only a ticket client may call it.
func (c *Client) ChangePassword(ctx context.Context, userid, password, confirmation string) error {
	if c.UsesAPIToken() {
		return ErrPasswordNeedsTicket
	}
	c.redactor.add(password, confirmation)
	form := url.Values{"userid": {userid}, "password": {password}}
	if confirmation != "" {
		form.Set("confirmation-password", confirmation)
	}
	return c.Put(ctx, "/access/password", form, nil)
}

// SetUserPassword sets a user's password as the client's own login:
// PVE asks everyone but root@pam to confirm a change with their own
// current password (src/PVE/RPCEnvironment.pm
// reauth_user_for_user_modification), which is the password the client
// logged in with. Only a ticket client may call it
// (ErrPasswordNeedsTicket).
func (c *Client) SetUserPassword(ctx context.Context, userid, password string) error {
	ticket, ok := c.auth.(*ticketAuth)
	if !ok {
		return ErrPasswordNeedsTicket
	}
	confirmation := ""
	if ticket.username != rootUser {
		confirmation = ticket.password
	}
	return c.ChangePassword(ctx, userid, password, confirmation)
}

// rootUser is the one user PVE lets change any password without
// confirming its own.
const rootUser = "root@pam"

// TokenCreate is POST /access/users/{userid}/token/{tokenid}. PVE keeps no
// empty or "0" comment at creation (src/PVE/API2/User.pm generate_token).
type TokenCreate struct {
	UserID  string
	TokenID string
	Comment string
	Expire  int64 // 0: never
	PrivSep *bool // nil: PVE's default, separated
}

// NewToken is a token's secret as PVE hands it out, once: at creation, or
// when an update regenerates it. Value is the secret; FullTokenID is
// USER@REALM!TOKENID. String and GoString hide Value.
type NewToken struct {
	FullTokenID string `json:"full-tokenid"`
	Info        Token  `json:"info"`
	Value       string `json:"value"`
}

// String hides the secret, so a NewToken can be printed or logged.
func (t NewToken) String() string {
	value := ""
	if t.Value != "" {
		value = redactedMark
	}
	return fmt.Sprintf("pveapi.NewToken{FullTokenID: %s, Value: %s}", t.FullTokenID, value)
}

// GoString hides the secret from %#v too.
func (t NewToken) GoString() string { return t.String() }

// TokenUpdate is PUT /access/users/{userid}/token/{tokenid}; nil fields
// are left alone.
type TokenUpdate struct {
	UserID  string
	TokenID string
	// Comment "" clears the comment on PVE 9.1 and later; earlier
	// releases keep the old comment (src/PVE/API2/User.pm
	// update_token_info before "fix #6890"), and know no other way.
	Comment *string
	Expire  *int64
	PrivSep *bool
	// Regenerate asks for a new secret, which the answer carries; the old
	// one stops working. Newer PVE 9.1 only: other releases refuse the
	// parameter.
	Regenerate bool
}

// Tokens lists a user's API tokens.
func (c *Client) Tokens(ctx context.Context, userid string) ([]Token, error) {
	var out TokenList
	if err := c.Get(ctx, userPath(userid)+"/token", nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// GetToken reads one API token's settings. A missing token, or a missing
// user, is an error IsNoSuchToken (IsNoSuchUser) recognises.
func (c *Client) GetToken(ctx context.Context, userid, tokenid string) (*Token, error) {
	var out Token
	if err := c.Get(ctx, tokenPath(userid, tokenid), nil, &out); err != nil {
		return nil, err
	}
	out.TokenID = tokenid
	return &out, nil
}

// CreateToken creates an API token and returns its secret, which PVE
// never shows again. The client redacts the secret from its logs and
// errors from then on.
func (c *Client) CreateToken(ctx context.Context, token TokenCreate) (*NewToken, error) {
	form := url.Values{}
	if token.Comment != "" {
		form.Set("comment", token.Comment)
	}
	if token.Expire > 0 {
		form.Set("expire", strconv.FormatInt(token.Expire, 10))
	}
	if token.PrivSep != nil {
		form.Set("privsep", FormBool(*token.PrivSep))
	}
	var out NewToken
	if err := c.Post(ctx, tokenPath(token.UserID, token.TokenID), form, &out); err != nil {
		return nil, err
	}
	c.redactor.add(out.Value)
	out.Info.TokenID = token.TokenID
	return &out, nil
}

// UpdateToken changes an API token's settings and returns them as PVE
// stored them; with Regenerate, the answer's Value holds the new secret
// (redacted from the client's logs from then on).
func (c *Client) UpdateToken(ctx context.Context, update TokenUpdate) (*NewToken, error) {
	form := url.Values{}
	if update.Comment != nil {
		form.Set("comment", *update.Comment)
	}
	if update.Expire != nil {
		form.Set("expire", strconv.FormatInt(*update.Expire, 10))
	}
	if update.PrivSep != nil {
		form.Set("privsep", FormBool(*update.PrivSep))
	}
	if update.Regenerate {
		form.Set("regenerate", FormBool(true))
	}
	// The answer is the token's settings with the secret beside them.
	var raw json.RawMessage
	if err := c.Put(ctx, tokenPath(update.UserID, update.TokenID), form, &raw); err != nil {
		return nil, err
	}
	out := &NewToken{Info: Token{PrivSep: true}}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &out.Info); err != nil {
			return nil, fmt.Errorf("pve: decoding the token update answer: %w", err)
		}
		if err := json.Unmarshal(raw, &struct {
			FullTokenID *string `json:"full-tokenid"`
			Value       *string `json:"value"`
		}{&out.FullTokenID, &out.Value}); err != nil {
			return nil, fmt.Errorf("pve: decoding the token update answer: %w", err)
		}
	}
	c.redactor.add(out.Value)
	out.Info.TokenID = update.TokenID
	return out, nil
}

// DeleteToken deletes an API token.
func (c *Client) DeleteToken(ctx context.Context, userid, tokenid string) error {
	return c.Delete(ctx, tokenPath(userid, tokenid), nil, nil)
}

func userPath(userid string) string { return "/access/users/" + url.PathEscape(userid) }

func tokenPath(userid, tokenid string) string {
	return userPath(userid) + "/token/" + url.PathEscape(tokenid)
}
