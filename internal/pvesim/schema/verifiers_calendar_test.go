package schema

import (
	"reflect"
	"testing"
)

// TestCalendarEventFormat checks the schedule parameters (format
// pve-calendar-event) of the job endpoints at the schema level: PVE's
// message wraps the Rust parser's text, and perlmod's newline plus the
// verifier's own leave two newlines at the end.
func TestCalendarEventFormat(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name         string
		method, path string
		params       map[string][]string
		want         map[string]string
	}{
		{
			name:   "replication job with a valid schedule",
			method: "POST", path: "/cluster/replication",
			params: one("id", "100-0", "target", "pve2", "type", "local", "schedule", "mon..fri 02:30"),
		},
		{
			name:   "replication job with a weekday typo",
			method: "POST", path: "/cluster/replication",
			params: one("id", "100-0", "target", "pve2", "type", "local", "schedule", "mon..fry"),
			want: map[string]string{"schedule": "invalid format - invalid calendar event 'mon..fry' - " +
				"unable to parse calendar event at '..fry' - Nom(Eof)\n\n"},
		},
		{
			name:   "backup job with a word that is no weekday",
			method: "POST", path: "/cluster/backup",
			params: one("schedule", "Daily", "all", "1", "storage", "local"),
			want: map[string]string{"schedule": "invalid format - invalid calendar event 'Daily' - " +
				"unable to parse calendar event at 'Daily' - Context(\"weekday\")\n\n"},
		},
		{
			name:   "backup job with a blank schedule",
			method: "POST", path: "/cluster/backup",
			params: one("schedule", "  ", "all", "1", "storage", "local"),
			want: map[string]string{"schedule": "invalid format - invalid calendar event '  ' - " +
				"unable to parse calendar event - event is empty\n\n"},
		},
		{
			name:   "backup job with no time in a schedule",
			method: "POST", path: "/cluster/backup",
			params: one("schedule", "*/60", "all", "1", "storage", "local"),
			want: map[string]string{"schedule": "invalid format - invalid calendar event '*/60' - " +
				"unable to parse calendar event at '*/60' - Context(\"date or time specification\")\n\n"},
		},
		{
			name:   "backup job with a keyword and UTC",
			method: "POST", path: "/cluster/backup",
			params: one("schedule", " weekly UTC ", "all", "1", "storage", "local"),
		},
		{
			name:   "backup job keeping everything",
			method: "POST", path: "/cluster/backup",
			params: one("schedule", "daily", "all", "1", "storage", "local", "prune-backups", "keep-all=1,keep-last=0"),
		},
		{
			name:   "backup job with keep-all and a count",
			method: "POST", path: "/cluster/backup",
			params: one("schedule", "daily", "all", "1", "storage", "local", "prune-backups", "keep-all=1,keep-daily=7"),
			want:   map[string]string{"prune-backups": "invalid format - keep-all cannot be set together with other options.\n"},
		},
		{
			name:   "backup job with a negative count",
			method: "POST", path: "/cluster/backup",
			params: one("schedule", "daily", "all", "1", "storage", "local", "prune-backups", "keep-last=-1"),
			want: map[string]string{"prune-backups": "invalid format - format error\n" +
				"prune-backups.keep-last: value must have a minimum value of 0\n"},
		},
		{
			name:   "backup job with an unknown retention key",
			method: "POST", path: "/cluster/backup",
			params: one("schedule", "daily", "all", "1", "storage", "local", "prune-backups", "keep-forever=1"),
			want:   map[string]string{"prune-backups": "invalid format - invalid key in comma-separated list property: keep-forever\n"},
		},
		{
			name:   "storage retention with keep-all and a count",
			method: "PUT", path: "/storage/local",
			params: one("prune-backups", "keep-all=yes,keep-weekly=2"),
			want:   map[string]string{"prune-backups": "invalid format - keep-all cannot be set together with other options.\n"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := request(t, c.method, c.path, c.params)
			if len(got) == 0 && len(c.want) == 0 {
				return
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

// TestCalendarAndPruneOnPVE84 checks that the 8.4 tables reach the same
// checks: the format names are the same in both releases.
func TestCalendarAndPruneOnPVE84(t *testing.T) {
	t.Parallel()
	pve8, ok := ForRelease("8.4")
	if !ok {
		t.Fatal("no tables for PVE 8.4")
	}
	m, _, _ := pve8.Lookup("POST", "/cluster/backup")
	if m == nil {
		t.Fatal("no POST /cluster/backup in 8.4")
	}
	got := m.Validate(one("schedule", "mon..fry", "all", "1", "storage", "local", "prune-backups", "keep-all=1,keep-last=1"))
	want := map[string]string{
		"schedule":      "invalid format - invalid calendar event 'mon..fry' - unable to parse calendar event at '..fry' - Nom(Eof)\n\n",
		"prune-backups": "invalid format - keep-all cannot be set together with other options.\n",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}
