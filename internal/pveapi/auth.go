package pveapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"
)

// ticketRenewAfter: PVE tickets expire after 2 hours (W2). Renewing well
// before that keeps a long apply from failing half way.
const ticketRenewAfter = 90 * time.Minute

// Header and cookie names PVE uses for auth (W2).
const (
	authCookieName = "PVEAuthCookie"
	csrfHeaderName = "CSRFPreventionToken"
	tokenScheme    = "PVEAPIToken="
)

// credentials is what one request carries.
type credentials struct {
	authorization string // token auth
	ticket        string // ticket auth
	csrf          string
}

func (cr credentials) apply(req *http.Request, method string) {
	if cr.authorization != "" {
		req.Header.Set("Authorization", cr.authorization)
	}
	if cr.ticket != "" {
		// Set as a raw header: PVE tickets contain ':' and '=' and are sent
		// verbatim, as the PVE web UI does.
		req.Header.Set("Cookie", authCookieName+"="+cr.ticket)
		if method != http.MethodGet {
			req.Header.Set(csrfHeaderName, cr.csrf)
		}
	}
}

type authenticator interface {
	// credentials returns what the next request carries, logging in first
	// when needed.
	credentials(ctx context.Context) (credentials, error)
	// invalidate drops the given ticket after PVE refused it.
	invalidate(ticket string)
	principal() string
}

func newAuthenticator(cfg Config, c *Client) (authenticator, error) {
	hasToken := cfg.APIToken != ""
	hasLogin := cfg.Username != "" || cfg.Password != ""
	switch {
	case hasToken && hasLogin:
		return nil, errors.New("pve: set either an API token or a username and password, not both")
	case hasToken:
		token, err := parseAPIToken(cfg.APIToken)
		if err != nil {
			return nil, err
		}
		c.redactor.add(token.secret, token.full())
		return token, nil
	case hasLogin:
		if cfg.Username == "" || cfg.Password == "" {
			return nil, errors.New("pve: password auth needs both a username (USER@REALM) and a password")
		}
		if !userRealmPattern.MatchString(cfg.Username) {
			return nil, fmt.Errorf("pve: username %q must have the form USER@REALM (for example root@pam)", cfg.Username)
		}
		c.redactor.add(cfg.Password)
		return &ticketAuth{
			username: cfg.Username,
			password: cfg.Password,
			client:   c,
			gate:     make(chan struct{}, 1),
		}, nil
	default:
		return nil, errors.New("pve: no credentials: set an API token (USER@REALM!TOKENID=SECRET) or a username and password")
	}
}

var (
	userRealmPattern = regexp.MustCompile(`^[^\s@!:]+@[A-Za-z][A-Za-z0-9.\-_]*$`)
	tokenIDPattern   = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9.\-_]*$`)
)

// tokenAuth is API token auth (W2): a fixed Authorization header.
type tokenAuth struct {
	user, tokenID, secret string
}

func parseAPIToken(s string) (*tokenAuth, error) {
	const want = "the API token must have the form USER@REALM!TOKENID=SECRET"
	s = strings.TrimSpace(s)
	if len(s) >= len(tokenScheme) && strings.EqualFold(s[:len(tokenScheme)], tokenScheme) {
		s = s[len(tokenScheme):]
	}
	bang := strings.IndexByte(s, '!')
	if bang < 0 {
		return nil, fmt.Errorf("pve: %s (no '!' between user and token id)", want)
	}
	user, rest := s[:bang], s[bang+1:]
	eq := strings.IndexByte(rest, '=')
	if eq < 0 {
		return nil, fmt.Errorf("pve: %s (no '=' before the secret)", want)
	}
	tokenID, secret := rest[:eq], rest[eq+1:]
	// Messages name the user and token id, never the secret.
	if !userRealmPattern.MatchString(user) {
		return nil, fmt.Errorf("pve: %s (user %q is not USER@REALM)", want, user)
	}
	if !tokenIDPattern.MatchString(tokenID) {
		return nil, fmt.Errorf("pve: %s (token id %q is not valid)", want, tokenID)
	}
	if secret == "" || strings.ContainsAny(secret, " \t\r\n") {
		return nil, fmt.Errorf("pve: %s (the secret of %s!%s is empty or contains whitespace)", want, user, tokenID)
	}
	return &tokenAuth{user: user, tokenID: tokenID, secret: secret}, nil
}

func (t *tokenAuth) full() string { return t.user + "!" + t.tokenID + "=" + t.secret }

func (t *tokenAuth) credentials(context.Context) (credentials, error) {
	return credentials{authorization: tokenScheme + t.full()}, nil
}

func (t *tokenAuth) invalidate(string) {}

func (t *tokenAuth) principal() string { return t.user + "!" + t.tokenID }

// maskToken shows a token's user and id but not its secret.
func maskToken(s string) string {
	t, err := parseAPIToken(s)
	if err != nil {
		return redactedMark
	}
	return t.principal() + "=" + redactedMark
}

// ticketAuth is password auth (W2): POST /access/ticket gives a ticket
// cookie and a CSRF token for writes. Login is lazy and shared: the gate
// lets one caller log in while concurrent callers wait for its result.
type ticketAuth struct {
	username, password string
	client             *Client
	gate               chan struct{} // held while logging in; honours ctx unlike a mutex

	mu      sync.Mutex
	current *ticket
}

type ticket struct {
	value    string
	csrf     string
	obtained time.Time
}

func (a *ticketAuth) principal() string { return a.username }

func (a *ticketAuth) usable() *ticket {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.current == nil || a.client.now().Sub(a.current.obtained) >= ticketRenewAfter {
		return nil
	}
	return a.current
}

func (a *ticketAuth) credentials(ctx context.Context) (credentials, error) {
	if t := a.usable(); t != nil {
		return credentials{ticket: t.value, csrf: t.csrf}, nil
	}
	select {
	case a.gate <- struct{}{}:
	case <-ctx.Done():
		return credentials{}, fmt.Errorf("pve: waiting for login: %w", ctx.Err())
	}
	defer func() { <-a.gate }()
	// Another caller may have logged in while this one waited.
	if t := a.usable(); t != nil {
		return credentials{ticket: t.value, csrf: t.csrf}, nil
	}
	t, err := a.login(ctx)
	if err != nil {
		return credentials{}, err
	}
	a.mu.Lock()
	a.current = t
	a.mu.Unlock()
	return credentials{ticket: t.value, csrf: t.csrf}, nil
}

func (a *ticketAuth) invalidate(value string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.current != nil && a.current.value == value {
		a.current = nil
	}
}

// login always uses the password rather than renewing with the old ticket:
// the password is at hand, and it also recovers when the old ticket was
// revoked.
func (a *ticketAuth) login(ctx context.Context) (_ *ticket, err error) {
	const path = "/access/ticket"
	obtained := a.client.now()
	form := url.Values{"username": {a.username}, "password": {a.password}}
	var res *rawResponse
	defer a.client.logRequest(ctx, http.MethodPost, path, func() map[string]any {
		return map[string]any{"params": a.client.redactor.redactForm(form)}
	}, time.Now(), &res, &err)
	res, err = a.client.roundTrip(ctx, http.MethodPost, path, form, credentials{})
	if err != nil {
		return nil, err
	}
	var data struct {
		Ticket  string `json:"ticket"`
		CSRF    string `json:"CSRFPreventionToken"`
		NeedTFA Bool01 `json:"NeedTFA"`
	}
	if err := a.client.decodeResponse(http.MethodPost, path, res, &data); err != nil {
		return nil, err
	}
	a.client.redactor.add(data.Ticket, data.CSRF)
	if data.NeedTFA {
		return nil, fmt.Errorf("pve: user %s has two-factor authentication enabled; use an API token instead", a.username)
	}
	if data.Ticket == "" || data.CSRF == "" {
		return nil, fmt.Errorf("pve: login as %s returned no ticket", a.username)
	}
	return &ticket{value: data.Ticket, csrf: data.CSRF, obtained: obtained}, nil
}
