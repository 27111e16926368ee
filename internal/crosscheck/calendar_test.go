package crosscheck

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the golden file's time zones on a machine without zoneinfo

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
	"github.com/proxops/terraform-provider-pve/internal/pvesim/schema"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// calendarCase is one line of testdata/calendar_events.tsv: PVE's own parser
// (proxmox-time) and compute_next_event run on an event from a start time in
// a time zone.
type calendarCase struct {
	zone, event string
	last        int64
	want        string // "OK\t<next>", "OK\tNONE" or "ERR\t<message>"
}

func readCalendarCases(t *testing.T) []calendarCase {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "calendar_events.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []calendarCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.SplitN(line, "\t", 4)
		if len(cols) != 4 {
			t.Fatalf("bad line %q", line)
		}
		last, err := strconv.ParseInt(cols[2], 10, 64)
		if err != nil {
			t.Fatalf("bad start in %q", line)
		}
		cases = append(cases, calendarCase{
			zone: cols[0], event: strings.ReplaceAll(cols[1], `\t`, "\t"), last: last,
			want: strings.ReplaceAll(cols[3], `\t`, "\t"),
		})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 500 {
		t.Fatalf("only %d calendar cases", len(cases))
	}
	return cases
}

// wireCalendarAnswer is the provider's answer in the golden file's form. The
// provider trims the event as PVE's verifier does; the golden events are
// trimmed already.
func wireCalendarAnswer(event string, last int64, loc *time.Location) string {
	ev, err := wire.ParseCalendarEvent(event)
	if err != nil {
		return "ERR\t" + strings.TrimPrefix(err.Error(), "invalid calendar event '"+event+"' - ")
	}
	next, ok := ev.NextIn(time.Unix(last, 0), loc)
	if !ok {
		return "OK\tNONE"
	}
	return "OK\t" + strconv.FormatInt(next.Unix(), 10)
}

func simCalendarAnswer(event string, last int64, loc *time.Location) string {
	ev, msg := pvegrammar.ParseCalendarEvent(event)
	if msg != "" {
		return "ERR\t" + msg
	}
	next, ok := ev.NextEvent(last, loc)
	if !ok {
		return "OK\tNONE"
	}
	return "OK\t" + strconv.FormatInt(next, 10)
}

// TestCalendarEventsAsPVE holds both readings of calendar events to PVE's
// own answers: refusal texts, and next runs in several time zones, across
// daylight-saving changes (a skipped or repeated hour) included.
func TestCalendarEventsAsPVE(t *testing.T) {
	zones := map[string]*time.Location{}
	for _, c := range readCalendarCases(t) {
		loc, ok := zones[c.zone]
		if !ok {
			var err error
			if loc, err = time.LoadLocation(c.zone); err != nil {
				t.Fatal(err)
			}
			zones[c.zone] = loc
		}
		if got := wireCalendarAnswer(c.event, c.last, loc); got != c.want {
			t.Errorf("wire: %q from %d in %s: got %q, PVE %q", c.event, c.last, c.zone, got, c.want)
		}
		if got := simCalendarAnswer(c.event, c.last, loc); got != c.want {
			t.Errorf("simulator: %q from %d in %s: got %q, PVE %q", c.event, c.last, c.zone, got, c.want)
		}
	}
}

// TestCalendarAndPruneAgree feeds the shared corpus and the golden events
// to both readings of the pve-calendar-event format and of prune-backups.
func TestCalendarAndPruneAgree(t *testing.T) {
	inputs := corpus(t)
	for _, c := range readCalendarCases(t) {
		inputs = append(inputs, c.event, " "+c.event+"\u00a0")
	}
	inputs = append(inputs, "keep-all=1", "keep-all=0", "keep-all=1,keep-last=0", "keep-all=1,keep-last=2",
		"keep-last=3,keep-daily=7", "keep-last=-1", "keep-last=x", "keep-hourly=0,keep-daily=0",
		"keep-all=yes,keep-weekly=2", "keep-all=maybe", "keep-monthly=1,keep-monthly=2", "keep-yearly=",
		"keep-forever=1", "keep-last=+3", "keep-all=on,keep-yearly=0", ",keep-last=1,",
		"keep-last=99999999999999999999", "keep-daily=٣")

	// pve-common CalendarEvent.pm pve_verify_calendar_event: the provider
	// gives PVE's text without the two trailing newlines.
	check(t, "calendar_event", func(d *disagreements) {
		for _, s := range inputs {
			_, err := wire.ParseCalendarEvent(s)
			pve := pvegrammar.VerifyCalendarEvent(s)
			switch {
			case (err == nil) != (pve == ""):
				d.addf("%q: wire error %v, PVE %q", s, err, pve)
			case err != nil && err.Error()+"\n\n" != pve:
				d.addf("%q: wire says %q, PVE %q", s, err.Error(), pve)
			case (wire.CalendarEventProblem(s) == "") != (pve == ""):
				d.addf("%q: CalendarEventProblem %q, PVE %q", s, wire.CalendarEventProblem(s), pve)
			}
		}
	})

	// The prune-backups format of pve-storage Plugin.pm as the simulator's
	// schema checks it (parse_property_string, the key checks,
	// validate_prune_backups) against the provider's parser.
	m, _, _ := schema.Lookup("PUT", "/storage/local")
	if m == nil {
		t.Fatal("no PUT /storage/{storage} in the schema")
	}
	check(t, "prune_backups", func(d *disagreements) {
		for _, s := range inputs {
			errs := m.Validate(map[string][]string{"storage": {"local"}, "prune-backups": {s}})
			pveOK := errs["prune-backups"] == ""
			if s == "" || strings.TrimFunc(s, pvegrammar.IsPerlSpace) == "" {
				continue // an empty parameter is a delete on PVE's side
			}
			_, err := wire.ParsePruneBackups(s)
			switch {
			case d.known(s):
			case (err == nil) != pveOK:
				d.addf("%q: wire error %v, PVE %q", s, err, errs["prune-backups"])
			case (wire.PruneBackupsProblem(s) == "") != pveOK:
				d.addf("%q: PruneBackupsProblem %q, PVE %q", s, wire.PruneBackupsProblem(s), errs["prune-backups"])
			}
		}
	})
}

// FuzzCalendarEventsAgree compares the provider's and the simulator's
// calendar events on any input: the same refusal text, or the same next
// run in UTC and in a zone with daylight saving time.
func FuzzCalendarEventsAgree(f *testing.F) {
	for _, s := range []string{
		"daily", "mon..fri 02:30", "*/15", "2020-7..9-2/2 UTC", "fri..mon", "*:*:*/0",
		"1965/5-01-01", "4..10/2:0", "sat,sun 0/3:00", "", "UTC", "mon,", "02-30", "2:30",
		"*-*-31 1..3:*/20", "Daily", "sun 2:30", "mon..fry",
	} {
		f.Add(s, int64(1711846800))
	}
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string, last int64) {
		last %= 1 << 34 // up to year 2514
		trimmed := strings.TrimFunc(s, pvegrammar.IsPerlSpace)
		if trimmed == "" {
			if _, err := wire.ParseCalendarEvent(s); err == nil || err.Error()+"\n\n" != pvegrammar.VerifyCalendarEvent(s) {
				t.Fatalf("%q: wire %v, simulator %q", s, err, pvegrammar.VerifyCalendarEvent(s))
			}
			return
		}
		for _, loc := range []*time.Location{time.UTC, berlin} {
			w, p := wireCalendarAnswer(s, last, loc), simCalendarAnswer(trimmed, last, loc)
			if strings.HasPrefix(w, "ERR") && strings.HasPrefix(p, "ERR") {
				// The provider quotes the event as given, the Rust parser
				// the trimmed one; compare the verifier's whole message.
				if _, err := wire.ParseCalendarEvent(s); err.Error()+"\n\n" != pvegrammar.VerifyCalendarEvent(s) {
					t.Fatalf("%q: wire %q, simulator %q", s, err, pvegrammar.VerifyCalendarEvent(s))
				}
				continue
			}
			if w != p {
				t.Fatalf("%q from %d in %s: wire %q, simulator %q", s, last, loc, w, p)
			}
		}
	})
}
