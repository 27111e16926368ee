package pveapi

import (
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// redactedMark replaces every secret in error texts and log lines.
const redactedMark = "REDACTED"

// Secrets leave this package only as redactedMark. Two defences apply to
// every error text and log line: the literal values this client knows
// (token secret, password, each ticket and CSRF token it was given) and the
// shapes those values travel in (PVEAPIToken=..., PVEAuthCookie=..., a PVE
// ticket), which also catches secrets a server echoes back.
var secretShapes = []*regexp.Regexp{
	regexp.MustCompile(`(?i)(PVEAPIToken[= ]\s*)[^\s"',;]+`),
	regexp.MustCompile(`(?i)(PVEAuthCookie\s*=\s*)[^\s"',;]+`),
	regexp.MustCompile(`(?i)(CSRFPreventionToken"?\s*[:=]\s*"?)[^\s"',;]+`),
	// A PVE ticket: PVE:USER@REALM:HEXTIME::SIGNATURE (also PVE2/PVEVNC).
	regexp.MustCompile(`PVE[A-Z0-9]*:[^\s:]+:[0-9A-Fa-f]{8}::[A-Za-z0-9+/=]+`),
}

// minSecretLenAnywhere is the length from which a literal secret is
// replaced wherever it occurs. Shorter secrets (a short password) are
// replaced only where they stand alone, so that a password like "pve" does
// not mangle every message mentioning the product.
const minSecretLenAnywhere = 8

// sensitiveFormKeys are form and query keys whose values never reach a log:
// passwords (a login's, a guest's cloud-init one, a user's, the current one
// PUT /access/password asks to confirm with, a realm's bind password), a
// ticket, an OpenID realm's client secret (client-key), and a storage's
// secrets (pve-storage's sensitive properties: keyring, encryption-key,
// master-pubkey, password), and the credentials of SDN IPAMs (token) and DNS
// servers (key).
var sensitiveFormKeys = map[string]bool{
	"keyring":               true,
	"encryption-key":        true,
	"master-pubkey":         true,
	"password":              true,
	"cipassword":            true,
	"ticket":                true,
	"new-password":          true,
	"new_password":          true,
	"confirmation-password": true,
	"client-key":            true,
	"token":                 true,
	"key":                   true,
}

// redactor removes known secrets from text. It is safe for concurrent use;
// secrets are added as the client learns them (each new ticket).
type redactor struct {
	mu      sync.RWMutex
	secrets []string // longest first, so a secret containing another is replaced whole
}

func (r *redactor) add(secrets ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range secrets {
		if s == "" || containsString(r.secrets, s) {
			continue
		}
		r.secrets = append(r.secrets, s)
		// Also the percent-encoded spelling, as a secret may be echoed
		// from a form body or cookie.
		if esc := url.QueryEscape(s); esc != s && !containsString(r.secrets, esc) {
			r.secrets = append(r.secrets, esc)
		}
	}
	sort.SliceStable(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
}

func (r *redactor) redact(text string) string {
	if text == "" {
		return text
	}
	for _, shape := range secretShapes {
		if shape.NumSubexp() > 0 {
			text = shape.ReplaceAllString(text, "${1}"+redactedMark)
		} else {
			text = shape.ReplaceAllString(text, redactedMark)
		}
	}
	if r == nil {
		return text
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, s := range r.secrets {
		if len(s) >= minSecretLenAnywhere {
			text = strings.ReplaceAll(text, s, redactedMark)
		} else {
			text = replaceStandalone(text, s, redactedMark)
		}
	}
	return text
}

// redactForm returns the form encoded for a log line, with sensitive keys
// masked and the rest passed through the redactor.
func (r *redactor) redactForm(form url.Values) string {
	if len(form) == 0 {
		return ""
	}
	masked := make(url.Values, len(form))
	for key, values := range form {
		if sensitiveFormKeys[strings.ToLower(key)] {
			masked[key] = []string{redactedMark}
			continue
		}
		masked[key] = values
	}
	// Decoded form reads better in a log than the wire encoding.
	keys := make([]string, 0, len(masked))
	for k := range masked {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		for _, v := range masked[k] {
			if b.Len() > 0 {
				b.WriteByte('&')
			}
			b.WriteString(k)
			b.WriteByte('=')
			b.WriteString(v)
		}
	}
	return r.redact(b.String())
}

// replaceStandalone replaces occurrences of secret that are not glued to a
// letter or digit on either side.
func replaceStandalone(text, secret, mark string) string {
	var b strings.Builder
	pos := 0
	for {
		i := strings.Index(text[pos:], secret)
		if i < 0 {
			b.WriteString(text[pos:])
			return b.String()
		}
		start := pos + i
		end := start + len(secret)
		standalone := (start == 0 || !isAlnum(text[start-1])) && (end == len(text) || !isAlnum(text[end]))
		b.WriteString(text[pos:start])
		if standalone {
			b.WriteString(mark)
		} else {
			b.WriteString(secret)
		}
		pos = end
	}
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
