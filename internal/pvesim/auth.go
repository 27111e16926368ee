package pvesim

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// authGracePeriod is PVE's $auth_graceperiod: a ticket stamped up to five
// minutes in the future is still accepted (clock skew between nodes).
const authGracePeriod = 5 * time.Minute

// Texts of the auth layer (W3, ERRORS.md).
const (
	msgNoTicket      = "No ticket"
	msgAuthFailed    = "Authentication failed!"
	msgInvalidCSRF   = "Permission denied - invalid csrf token"
	msgLoginFailure  = "authentication failure"
	cookieName       = "PVEAuthCookie"
	apiTokenName     = "PVEAPIToken"
	csrfHeader       = "CSRFPreventionToken"
	ticketPrefix     = "PVE"
	maxUsernameBytes = 64
)

// authState holds the credentials the simulator accepts: the token secrets
// (PVE's priv/token.cfg) and the passwords (PAM's and the pve realm's
// shadow file). After New, the model lock (Sim.mu) guards it.
type authState struct {
	tokens    map[string]apiToken // by token id
	passwords map[string]string   // by user id
	// realmPasswords are the LDAP and AD bind passwords, by realm (PVE's
	// priv/realm/REALM.pw, pve-access-control src/PVE/Auth/LDAP.pm
	// ldap_set_credentials); no API answer ever contains them.
	realmPasswords map[string]string
	secret         []byte // signs tickets and CSRF tokens
	lifetime       time.Duration
}

func (a *authState) init(opts Options) error {
	a.tokens = map[string]apiToken{}
	a.passwords = map[string]string{}
	a.realmPasswords = map[string]string{}
	a.lifetime = opts.TicketLifetime
	a.secret = make([]byte, 32)
	randomBytes(a.secret)
	for _, spec := range opts.Tokens {
		t, err := parseToken(spec)
		if err != nil {
			return err
		}
		a.tokens[t.id] = t
	}
	for _, spec := range opts.Passwords {
		user, pw, err := parsePassword(spec)
		if err != nil {
			return err
		}
		a.passwords[user] = pw
	}
	return nil
}

// identity is who a request runs as: a user, or a user's API token.
type identity struct {
	user    string // user@realm
	tokenID string // user@realm!name, empty for ticket auth
}

// String is the id PVE shows in task UPIDs and logs.
func (id identity) String() string {
	if id.tokenID != "" {
		return id.tokenID
	}
	return id.user
}

// credentials are what a request carries, extracted the way pveproxy does
// (PVE::APIServer::Formatter::extract_auth_value): a ticket from the
// PVEAuthCookie cookie, else from an "Authorization: PVEAuthCookie=..."
// header, else an API token from "Authorization: PVEAPIToken=...".
type credentials struct {
	ticket   string
	apiToken string
	csrf     string
}

func extractCredentials(r *http.Request) credentials {
	cookie := strings.Join(r.Header.Values("Cookie"), "; ")
	authz := r.Header.Get("Authorization")
	cr := credentials{csrf: r.Header.Get(csrfHeader)}
	cr.ticket = extractAuthValue(cookie, cookieName)
	if cr.ticket == "" {
		cr.ticket = extractAuthValue(authz, cookieName)
	}
	if cr.ticket == "" {
		cr.apiToken = extractAuthValue(authz, apiTokenName)
	}
	return cr
}

// extractAuthValue follows PVE's /(?:^|\s)KEY(?:=| )([^;]*)/ and then
// uri_unescape.
func extractAuthValue(header, key string) string {
	for i := 0; i+len(key) < len(header); i++ {
		if i > 0 && !isSpace(header[i-1]) {
			continue
		}
		if !strings.HasPrefix(header[i:], key) {
			continue
		}
		sep := header[i+len(key)]
		if sep != '=' && sep != ' ' {
			continue
		}
		rest := header[i+len(key)+1:]
		if j := strings.IndexByte(rest, ';'); j >= 0 {
			rest = rest[:j]
		}
		return uriUnescape(rest)
	}
	return ""
}

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f' || b == '\v'
}

// uriUnescape decodes %XX sequences and leaves anything else as it is, like
// Perl's URI::Escape::uri_unescape.
func uriUnescape(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// verifyToken checks an API token value "USER@REALM!TOKENID=SECRET": the
// user exists, is enabled and not expired, the token exists in user.cfg and
// has not expired, and the secret matches. Every failure answers the same
// text (PVE 9.2 unified it, W3). pve-access-control
// src/PVE/AccessControl.pm verify_token and check_user_enabled, worded by
// pve-manager PVE/HTTPServer.pm auth_handler ("Authentication failed!").
// The model lock must be held.
func (s *Sim) verifyToken(value string) (identity, error) {
	failed := statusError(http.StatusUnauthorized, msgAuthFailed)
	i := strings.LastIndexByte(value, '=')
	if i < 0 {
		return identity{}, failed
	}
	tokenID := value[:i]
	user, _, ok := strings.Cut(tokenID, "!")
	if !ok || !s.userEnabled(user) {
		return identity{}, failed
	}
	info := s.cluster.Access.token(tokenID)
	if info == nil || (info.Expire != 0 && info.Expire < s.now().Unix()) {
		return identity{}, failed
	}
	t, ok := s.auth.tokens[tokenID]
	if !ok || subtle.ConstantTimeCompare([]byte(t.secret), []byte(value[i+1:])) != 1 {
		return identity{}, failed
	}
	return identity{user: t.user, tokenID: t.id}, nil
}

// userEnabled is AccessControl.pm check_user_enabled without the error: the
// user exists, is enabled and its expiry, if any, has not passed. The model
// lock must be held.
func (s *Sim) userEnabled(user string) bool {
	u := s.cluster.Access.Users[user]
	return u != nil && u.Enable && (u.Expire == 0 || u.Expire >= s.now().Unix())
}

// checkPassword is the login check of POST /access/ticket.
func (a *authState) checkPassword(user, password string) bool {
	want, ok := a.passwords[user]
	return ok && subtle.ConstantTimeCompare([]byte(want), []byte(password)) == 1
}

var ticketPattern = regexp.MustCompile(`^PVE:([^:\s]+):([0-9A-F]{8})::(\S+)$`)

// makeTicket assembles "PVE:USER@REALM:HEXTIME::SIGNATURE" like
// PVE::Ticket::assemble_rsa_ticket; an HMAC stands in for the RSA
// signature.
func (a *authState) makeTicket(user string, now time.Time) string {
	plain := fmt.Sprintf("%s:%s:%08X", ticketPrefix, user, now.Unix())
	return plain + "::" + base64.StdEncoding.EncodeToString(a.sign(plain))
}

// verifyTicket returns the ticket's user if the signature holds and the
// ticket is within its lifetime.
func (a *authState) verifyTicket(ticket string, now time.Time) (string, bool) {
	m := ticketPattern.FindStringSubmatch(ticket)
	if m == nil {
		return "", false
	}
	plain := fmt.Sprintf("%s:%s:%s", ticketPrefix, m[1], m[2])
	sig, err := base64.StdEncoding.DecodeString(m[3])
	if err != nil || !hmac.Equal(sig, a.sign(plain)) {
		return "", false
	}
	if !a.fresh(m[2], now) {
		return "", false
	}
	return m[1], true
}

// makeCSRF is assemble_csrf_prevention_token: "HEXTIME:DIGEST".
func (a *authState) makeCSRF(user string, now time.Time) string {
	stamp := fmt.Sprintf("%08X", now.Unix())
	return stamp + ":" + base64.RawStdEncoding.EncodeToString(a.sign(stamp+":"+user))
}

func (a *authState) verifyCSRF(user, token string, now time.Time) bool {
	stamp, digest, ok := strings.Cut(token, ":")
	if !ok || len(stamp) != 8 || strings.ContainsAny(digest, " \t\r\n") {
		return false
	}
	want := base64.RawStdEncoding.EncodeToString(a.sign(stamp + ":" + user))
	if !hmac.Equal([]byte(digest), []byte(want)) {
		return false
	}
	return a.fresh(stamp, now)
}

// fresh applies PVE's age window: older than the lifetime or stamped more
// than the grace period in the future is invalid.
func (a *authState) fresh(hexStamp string, now time.Time) bool {
	ts, err := strconv.ParseInt(hexStamp, 16, 64)
	if err != nil {
		return false
	}
	age := now.Sub(time.Unix(ts, 0))
	return age > -authGracePeriod && age < a.lifetime
}

func (a *authState) sign(data string) []byte {
	mac := hmac.New(sha256.New, a.secret)
	mac.Write([]byte(data))
	return mac.Sum(nil)
}

// authenticate decides a request's identity before any handler runs, like
// pveproxy's auth_handler. Only routes marked public go without credentials;
// writes with ticket auth need the CSRF token of the ticket's user.
// pve-manager PVE/HTTPServer.pm auth_handler ("No ticket", "Authentication failed!")
// and pve-common src/PVE/Ticket.pm verify_csrf_prevention_token (CSRF text).
func (s *Sim) authenticate(cr credentials, method string, public bool) (identity, error) {
	if public {
		return identity{}, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if cr.apiToken != "" {
		return s.verifyToken(cr.apiToken)
	}
	if cr.ticket == "" {
		return identity{}, statusError(http.StatusUnauthorized, msgNoTicket)
	}
	now := s.now()
	// auth_handler: verify_ticket, then check_user_enabled.
	user, ok := s.auth.verifyTicket(cr.ticket, now)
	if !ok || !s.userEnabled(user) {
		return identity{}, statusError(http.StatusUnauthorized, msgAuthFailed)
	}
	if method != http.MethodGet && !s.auth.verifyCSRF(user, cr.csrf, now) {
		return identity{}, statusError(http.StatusUnauthorized, msgInvalidCSRF)
	}
	return identity{user: user}, nil
}
