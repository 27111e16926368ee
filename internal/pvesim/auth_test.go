package pvesim

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/url"
	"path/filepath"
	"testing"
	"time"
)

// W2: a configured token authenticates without any CSRF token, even for
// writes.
func TestW2TokenAuthNeedsNoCSRF(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodGet, "/version", nil).wantOK(t)
	e.call(t, http.MethodPost, "/pools", form("poolid", "p1")).wantOK(t)
}

// W3: every token failure is "401 Authentication failed!" with the text only
// in the reason phrase, no body, and the connection closed.
func TestW3TokenFailures(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	cases := map[string]string{
		"wrong secret":    "PVEAPIToken=root@pam!test=wrong",
		"unknown token":   "PVEAPIToken=root@pam!other=0b5e8f2c-7d1a-4c39-9e6f-3a2b1c0d9e8f",
		"colon separator": "PVEAPIToken=root@pam!test:0b5e8f2c-7d1a-4c39-9e6f-3a2b1c0d9e8f",
		"no separator":    "PVEAPIToken=root@pam!test",
	}
	for name, header := range cases {
		a := e.call(t, http.MethodGet, "/version", nil, withHeader("Authorization", header))
		a.wantStatus(t, http.StatusUnauthorized, "Authentication failed!")
		if len(a.body) != 0 {
			t.Errorf("%s: 401 has a body: %q", name, a.body)
		}
		if !a.closed {
			t.Errorf("%s: connection not closed after an error", name)
		}
	}
}

// W3: no credentials at all is "401 No ticket".
func TestW3NoCredentials(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	a := e.call(t, http.MethodGet, "/version", nil, withoutAuth)
	a.wantStatus(t, http.StatusUnauthorized, "No ticket")
	if len(a.body) != 0 {
		t.Errorf("401 has a body: %q", a.body)
	}
}

type ticketAnswer struct {
	Ticket   string `json:"ticket"`
	CSRF     string `json:"CSRFPreventionToken"`
	Username string `json:"username"`
}

func login(t *testing.T, e *env, user, password string) ticketAnswer {
	t.Helper()
	a := e.call(t, http.MethodPost, "/access/ticket", form("username", user, "password", password), withoutAuth)
	a.wantOK(t)
	var out ticketAnswer
	a.decode(t, &out)
	return out
}

func withTicket(ticket string) func(*http.Request) {
	return func(r *http.Request) {
		r.Header.Del("Authorization")
		r.AddCookie(&http.Cookie{Name: cookieName, Value: url.QueryEscape(ticket)})
	}
}

// W2, W3: ticket login; a write without the CSRF token is refused with PVE's
// text, with it accepted; a wrong password is "401 authentication failure".
func TestW3TicketLoginAndCSRF(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Passwords: []string{testPassword}})

	bad := e.call(t, http.MethodPost, "/access/ticket", form("username", "alice@pve", "password", "wrong"), withoutAuth)
	bad.wantStatus(t, http.StatusUnauthorized, "authentication failure")
	if bad.message != "authentication failure\n" {
		t.Errorf("message = %q", bad.message)
	}

	tk := login(t, e, "alice@pve", "correct horse")
	if tk.Username != "alice@pve" || !ticketPattern.MatchString(tk.Ticket) || tk.CSRF == "" {
		t.Fatalf("unexpected ticket answer %+v", tk)
	}
	e.call(t, http.MethodGet, "/version", nil, withTicket(tk.Ticket)).wantOK(t)

	e.call(t, http.MethodPost, "/pools", form("poolid", "p1"), withTicket(tk.Ticket)).
		wantStatus(t, http.StatusUnauthorized, msgInvalidCSRF)
	e.call(t, http.MethodPost, "/pools", form("poolid", "p1"), withTicket(tk.Ticket), withHeader(csrfHeader, "0000:bogus")).
		wantStatus(t, http.StatusUnauthorized, msgInvalidCSRF)
	e.call(t, http.MethodPost, "/pools", form("poolid", "p1"), withTicket(tk.Ticket), withHeader(csrfHeader, tk.CSRF)).wantOK(t)

	// The ticket is also accepted in the Authorization header.
	e.call(t, http.MethodGet, "/pools", nil, withHeader("Authorization", "PVEAuthCookie="+tk.Ticket)).wantOK(t)
	if _, ok := e.sim.Pool("p1"); !ok {
		t.Fatal("pool not created")
	}
}

// W2: a ticket expires after its lifetime; a valid ticket passed as the
// password renews it.
func TestW2TicketExpiryAndRenewal(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	e := newEnv(t, Options{Passwords: []string{testPassword}, Now: clock.Now, TicketLifetime: time.Hour})
	tk := login(t, e, "alice@pve", "correct horse")

	clock.Advance(50 * time.Minute)
	renewed := login(t, e, "alice@pve", tk.Ticket)
	if renewed.Ticket == tk.Ticket {
		t.Fatal("renewal returned the same ticket")
	}

	clock.Advance(20 * time.Minute) // first ticket now 70 minutes old
	e.call(t, http.MethodGet, "/version", nil, withTicket(tk.Ticket)).
		wantStatus(t, http.StatusUnauthorized, msgAuthFailed)
	e.call(t, http.MethodGet, "/version", nil, withTicket(renewed.Ticket)).wantOK(t)

	// An expired ticket cannot renew itself.
	e.call(t, http.MethodPost, "/access/ticket", form("username", "alice@pve", "password", tk.Ticket), withoutAuth).
		wantStatus(t, http.StatusUnauthorized, msgLoginFailure)
	// Neither can another user's ticket.
	e.call(t, http.MethodPost, "/access/ticket", form("username", "bob@pve", "password", renewed.Ticket), withoutAuth).
		wantStatus(t, http.StatusUnauthorized, msgLoginFailure)
}

// A forged or tampered ticket fails like an expired one (W3).
func TestW3TamperedTicket(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Passwords: []string{testPassword}})
	tk := login(t, e, "alice@pve", "correct horse")
	forged := "PVE:root@pam" + tk.Ticket[len("PVE:alice@pve"):]
	e.call(t, http.MethodGet, "/version", nil, withTicket(forged)).wantStatus(t, http.StatusUnauthorized, msgAuthFailed)
}

// POST /access/ticket does not allow API tokens (allowtoken => 0): a token
// header makes it a 403.
func TestTicketEndpointRefusesToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Passwords: []string{testPassword}})
	a := e.call(t, http.MethodPost, "/access/ticket", form("username", "alice@pve", "password", "correct horse"))
	a.wantStatus(t, http.StatusForbidden, "Permission check failed (URI '/access/ticket' not available with API token, need proper ticket.")
}

// W49: a token restricted to privileges without Pool.Allocate cannot
// create a pool; the 403 names path and privilege.
func TestW49PermissionCheckFailed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Privileges: map[string][]string{testTokenUser: {"Pool.Audit", "VM.Audit"}}})
	a := e.call(t, http.MethodPost, "/pools", form("poolid", "p1"))
	a.wantStatus(t, http.StatusForbidden, "Permission check failed (/pool/p1, Pool.Allocate)")
	if a.message != "Permission check failed (/pool/p1, Pool.Allocate)\n" {
		t.Errorf("message = %q", a.message)
	}
	if _, ok := e.sim.Pool("p1"); ok {
		t.Fatal("pool created despite the 403")
	}
	e.sim.SetPrivileges(testTokenUser, "Pool.Allocate")
	e.call(t, http.MethodPost, "/pools", form("poolid", "p1")).wantOK(t)
	e.sim.ClearPrivileges(testTokenUser)
}

// W1: pveproxy speaks HTTP/1.1 only. A client that offers h2 still ends up
// on HTTP/1.1, and the custom reason phrases work over TLS too.
func TestW1TLSNegotiatesHTTP1Only(t *testing.T) {
	t.Parallel()
	sim, err := New(Options{Tokens: []string{testToken}})
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	srv, err := sim.StartTLS("127.0.0.1:0", caFile)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(srv.CAPEM) {
		t.Fatal("CA PEM does not parse")
	}
	tr := &http.Transport{
		ForceAttemptHTTP2: true,
		TLSClientConfig:   &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
	}
	t.Cleanup(tr.CloseIdleConnections)
	e := &env{sim: sim, srv: srv, client: &http.Client{Transport: tr, Timeout: 10 * time.Second}, auth: func(*http.Request) {}}

	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, srv.URL+"/api2/json/version", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "PVEAPIToken="+testToken)
	resp, err := e.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.ProtoMajor != 1 {
		t.Fatalf("protocol %s, want HTTP/1.x", resp.Proto)
	}
	if resp.TLS == nil || resp.TLS.NegotiatedProtocol == "h2" {
		t.Fatalf("negotiated %+v", resp.TLS)
	}

	e.call(t, http.MethodGet, "/version", nil).wantStatus(t, http.StatusUnauthorized, "No ticket")
}

func TestExtractAuthValue(t *testing.T) {
	t.Parallel()
	cases := []struct{ header, key, want string }{
		{"PVEAuthCookie=PVE%3Aroot%40pam%3A1", cookieName, "PVE:root@pam:1"},
		{"other=1; PVEAuthCookie=abc; x=y", cookieName, "abc"},
		{"XPVEAuthCookie=abc", cookieName, ""},
		{"PVEAPIToken=root@pam!t=s", apiTokenName, "root@pam!t=s"},
		{"PVEAPIToken root@pam!t=s", apiTokenName, "root@pam!t=s"},
		{"Bearer x", apiTokenName, ""},
	}
	for _, c := range cases {
		if got := extractAuthValue(c.header, c.key); got != c.want {
			t.Errorf("extractAuthValue(%q, %q) = %q, want %q", c.header, c.key, got, c.want)
		}
	}
}

func TestOptionsRejectBadCredentials(t *testing.T) {
	t.Parallel()
	for _, opts := range []Options{
		{Tokens: []string{"root@pam=secret"}},
		{Tokens: []string{"root@pam!tok"}},
		{Passwords: []string{"root=pw"}},
		{Nodes: 40},
	} {
		if _, err := New(opts); err == nil {
			t.Errorf("New(%+v) accepted", opts)
		}
	}
}
