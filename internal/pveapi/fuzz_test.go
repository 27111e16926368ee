package pveapi

import (
	"fmt"
	"strings"
	"testing"
)

// ParseUPID either refuses a string or returns fields that rebuild the
// UPID it was given (W8), whatever the input.
func FuzzParseUPIDW8(f *testing.F) {
	for _, seed := range []string{
		"UPID:pve1:0000A1B2:0001C3D4:6745E0F0:qmcreate:100:root@pam:",
		"UPID:pve1:0000A1B2:10001C3D4:6745E0F0:vzdump::root@pam!terraform:",
		"UPID:pve1:0000A1B2:0001C3D4:6745E0F0:qmcreate:100:root@pam",
		"UPID::::::::",
		"",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseUPID(s)
		if err != nil {
			return
		}
		rebuilt := fmt.Sprintf("UPID:%s:%08X:%s:%08X:%s:%s:%s:", u.Node, u.PID, strings.Split(u.Raw, ":")[3], u.StartTime.Unix(), u.Type, u.ID, u.User)
		if !strings.EqualFold(rebuilt, u.Raw) {
			t.Fatalf("ParseUPID(%q) = %+v, which rebuilds as %q", s, u, rebuilt)
		}
	})
}

// ParseEndpoint either refuses an endpoint or returns one that parses to
// itself again.
func FuzzParseEndpoint(f *testing.F) {
	for _, seed := range []string{
		"https://pve.example.com", "https://pve.example.com:8006/api2/json/", "http://127.0.0.1:8006",
		"https://[::1]:8006", "ftp://x", "https://user:pw@pve", "https://pve/some/where", "",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseEndpoint(s)
		if err != nil {
			return
		}
		again, err := ParseEndpoint(u.String())
		if err != nil || again.String() != u.String() {
			t.Fatalf("ParseEndpoint(%q) = %q, which parses as %v, %v", s, u.String(), again, err)
		}
	})
}

// The token parser never panics, and never echoes the secret in its error.
func FuzzParseAPIToken(f *testing.F) {
	for _, seed := range []string{
		"root@pam!terraform=5e3a1c1e-0000-4000-8000-000000000000", "root@pam!terraform", "root@pam=secret", "!=", "",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, err := parseAPIToken(s)
		if err == nil {
			return
		}
		if _, secret, ok := strings.Cut(s, "="); ok && len(secret) >= 8 && strings.Contains(err.Error(), secret) {
			t.Fatalf("error %q echoes the secret of %q", err, s)
		}
	})
}
