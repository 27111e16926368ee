package wire

import (
	"errors"
	"strings"
	"testing"
)

func TestParsePruneBackups(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in, printed string
	}{
		// validate_prune_backups: no positive count means keep everything
		{"keep-all=1", "keep-all=1"},
		{"keep-all=0", "keep-all=1"},
		{"", "keep-all=1"},
		{"keep-last=0", "keep-all=1"},
		{"keep-all=1,keep-last=0", "keep-all=1"},
		{"keep-all=yes", "keep-all=1"},
		// keep-all=0 is dropped once a count is positive; zeros stay
		{"keep-all=0,keep-last=3", "keep-last=3"},
		{"keep-weekly=4,keep-last=0,keep-daily=7", "keep-daily=7,keep-last=0,keep-weekly=4"},
		// print_property_string sorts the keys
		{"keep-yearly=1,keep-monthly=2,keep-weekly=3,keep-daily=4,keep-hourly=5,keep-last=6",
			"keep-daily=4,keep-hourly=5,keep-last=6,keep-monthly=2,keep-weekly=3,keep-yearly=1"},
		{"keep-last=3,,", "keep-last=3"},
	}
	for _, c := range cases {
		p, err := ParsePruneBackups(c.in)
		if err != nil {
			t.Errorf("ParsePruneBackups(%q): %v", c.in, err)
			continue
		}
		if got := p.String(); got != c.printed {
			t.Errorf("ParsePruneBackups(%q).String() = %q, want %q", c.in, got, c.printed)
		}
		if PruneBackupsProblem(c.in) != "" {
			t.Errorf("PruneBackupsProblem(%q) = %q", c.in, PruneBackupsProblem(c.in))
		}
	}
}

func TestParsePruneBackupsKeepsGivenKeys(t *testing.T) {
	t.Parallel()
	p, err := ParsePruneBackups("keep-all=0,keep-last=3,keep-daily=0")
	if err != nil {
		t.Fatal(err)
	}
	if p.KeepAll == nil || *p.KeepAll || p.Keep["keep-last"] != 3 || p.Keep["keep-daily"] != 0 || len(p.Keep) != 2 {
		t.Fatalf("parsed %+v", p)
	}
	n, err := p.Normalize()
	if err != nil || n.KeepAll != nil || len(n.Keep) != 2 {
		t.Fatalf("Normalize: %+v, %v", n, err)
	}
}

func TestParsePruneBackupsRefuses(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"keep-all=1,keep-last=3", "keep-all cannot be set together with other options."},
		{"keep-all=1,keep-daily=1,keep-weekly=0", "keep-all cannot be set together with other options."},
		{"keep-last=-1", "format error: keep-last: value must have a minimum value of 0"},
		{"keep-last=x", "format error: keep-last: type check ('integer') failed - got 'x'"},
		{"keep-last=1.5", "format error: keep-last: type check ('integer') failed - got '1.5'"},
		{"keep-all=maybe", "format error: keep-all: type check ('boolean') failed - got 'maybe'"},
		{"keep-forever=1", "invalid key in comma-separated list property: keep-forever"},
		{"keep-last=1,keep-last=2", "duplicate key in comma-separated list property: keep-last"},
		{"keep-last=", "missing key in comma-separated list property"},
		{" keep-last=3", "invalid key in comma-separated list property:  keep-last"},
		{"3", "value without key, but schema does not define a default key"},
	}
	for _, c := range cases {
		_, err := ParsePruneBackups(c.in)
		if err == nil || err.Error() != c.want {
			t.Errorf("ParsePruneBackups(%q) = %v, want %q", c.in, err, c.want)
		}
		if PruneBackupsProblem(c.in) == "" {
			t.Errorf("PruneBackupsProblem(%q) is empty", c.in)
		}
	}
	_, err := ParsePruneBackups("keep-all=1,keep-last=3")
	if !errors.Is(err, ErrPruneKeepAllConflict) {
		t.Fatalf("conflict error %v is not ErrPruneKeepAllConflict", err)
	}
	if p := PruneBackupsProblem("keep-all=1,keep-last=3"); !strings.Contains(p, "keep-all") {
		t.Fatalf("PruneBackupsProblem = %q", p)
	}
}

func TestPruneBackupsStringRoundTrip(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"keep-all=1", "keep-last=3", "keep-daily=7,keep-monthly=6,keep-weekly=4"} {
		p, err := ParsePruneBackups(s)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParsePruneBackups(p.String())
		if err != nil || again.String() != s {
			t.Fatalf("%q: round trip %q, %v", s, again.String(), err)
		}
	}
}

func TestPruneBackupsFromMap(t *testing.T) {
	t.Parallel()
	// GET /cluster/backup/{id} answers the normalised object.
	p, err := PruneBackupsFromMap(map[string]string{"keep-daily": "7", "keep-last": "0"})
	if err != nil || p.String() != "keep-daily=7,keep-last=0" {
		t.Fatalf("got %q, %v", p.String(), err)
	}
	p, err = PruneBackupsFromMap(map[string]string{"keep-all": "1"})
	if err != nil || p.KeepAll == nil || !*p.KeepAll || p.String() != "keep-all=1" {
		t.Fatalf("got %+v, %v", p, err)
	}
	if _, err := PruneBackupsFromMap(map[string]string{"keep-all": "1", "keep-weekly": "2"}); !errors.Is(err, ErrPruneKeepAllConflict) {
		t.Fatalf("conflict: %v", err)
	}
	if _, err := PruneBackupsFromMap(map[string]string{"keep-hourly": "x"}); err == nil {
		t.Fatal("non-integer count accepted")
	}
}
