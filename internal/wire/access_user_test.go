package wire

import (
	"strings"
	"testing"
)

// PVE drops "" and "0" and trims the spaces around a field of user.cfg
// (pve-access-control src/PVE/AccessControl.pm parse_user_config,
// write_user_config).
func TestUserTextProblem(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"Alice", "00", "0.0", "a b", "tab\tinside", "line\nbreak", "Jörg", "x:y%z", " \t"[1:]} {
		if problem := UserTextProblem(ok); problem != "" {
			t.Errorf("UserTextProblem(%q) = %q, want none", ok, problem)
		}
	}
	for value, want := range map[string]string{"": "empty", "0": `"0"`, " Alice": "space", "Alice ": "space", " 0": "space"} {
		if problem := UserTextProblem(value); !strings.Contains(problem, want) {
			t.Errorf("UserTextProblem(%q) = %q, want it to mention %q", value, problem, want)
		}
	}
}

// The email format is pve-common's EMAIL_RE.
func TestEmailProblem(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"alice@example.com", "a.b+c~d-e@x", "a_b@sub.example-1.org"} {
		if problem := EmailProblem(ok); problem != "" {
			t.Errorf("EmailProblem(%q) = %q, want none", ok, problem)
		}
	}
	for _, bad := range []string{"", "0", "alice", "alice@", "@example.com", "a..b@x", "a b@x", "a@x_y", "a@x..y", strings.Repeat("a", 250) + "@x.de"} {
		if EmailProblem(bad) == "" {
			t.Errorf("EmailProblem(%q) accepted it", bad)
		}
	}
}

// keys follows the user-keys pattern; "x" and "x!..." are PVE's own marker
// for a user with two-factor entries (src/PVE/API2/TFA.pm
// set_user_tfa_enabled).
func TestUserKeysProblem(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"ccccccabcdef", "ccccccabcdef!ccccccghijkl", "JBSWY3DPEHPK3PXP=", "xy"} {
		if problem := UserKeysProblem(ok); problem != "" {
			t.Errorf("UserKeysProblem(%q) = %q, want none", ok, problem)
		}
	}
	for _, bad := range []string{"", "0", "x", "x!abc", "a b", "a,b", strings.Repeat("a", 4097)} {
		if UserKeysProblem(bad) == "" {
			t.Errorf("UserKeysProblem(%q) accepted it", bad)
		}
	}
	if !IsTFAMarker("x") || !IsTFAMarker("x!") || IsTFAMarker("xy") || IsTFAMarker("") {
		t.Error("IsTFAMarker recognises x and x!... only")
	}
}

func TestPasswordRealmProblem(t *testing.T) {
	t.Parallel()
	if problem := PasswordRealmProblem("pve"); problem != "" {
		t.Errorf("pve realm: %q", problem)
	}
	if problem := PasswordRealmProblem("pam"); !strings.Contains(problem, "one node") {
		t.Errorf("pam realm: %q", problem)
	}
	if problem := PasswordRealmProblem("corp-ldap"); !strings.Contains(problem, `"corp-ldap"`) {
		t.Errorf("other realm: %q", problem)
	}
}
