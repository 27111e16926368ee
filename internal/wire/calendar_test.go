package wire

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// The cases below restate the examples of proxmox-rs proxmox-time test.rs
// (test_compute_next_event, test_calendar_event_weekday) in Go: each event
// gets " UTC" appended and is computed from a start time in seconds since
// the epoch (Thursday 1970-01-01 00:00 UTC).

const (
	calMin  = int64(60)
	calHour = int64(3600)
	calDay  = int64(86400)

	calThu0000 = int64(0)
	calThu1500 = 15 * calHour
	calJul31   = int64(1596153600) // Friday 2020-07-31 00:00 UTC
	calDec31   = int64(1609372800) // Thursday 2020-12-31 00:00 UTC
)

func mustCalendarEvent(t *testing.T, s string) CalendarEvent {
	t.Helper()
	ev, err := ParseCalendarEvent(s)
	if err != nil {
		t.Fatalf("ParseCalendarEvent(%q): %v", s, err)
	}
	return ev
}

func nextUTC(t *testing.T, ev CalendarEvent, last int64) (int64, bool) {
	t.Helper()
	next, ok := ev.Next(time.Unix(last, 0).UTC())
	if !ok {
		return 0, false
	}
	return next.Unix(), true
}

func TestCalendarEventNext(t *testing.T) {
	t.Parallel()
	cases := []struct {
		event      string
		last, want int64
	}{
		// a bare number is the minute
		{"0", calThu0000, calThu0000 + calHour},
		{"*", calThu0000, calThu0000 + calMin},
		{"*:0", calThu0000, calThu0000 + calHour},
		{"*:*", calThu0000, calThu0000 + calMin},
		{"*:*:*", calThu0000, calThu0000 + 1},
		{"*:3:5", calThu0000, calThu0000 + 3*calMin + 5},
		{"mon *:*", calThu0000, calThu0000 + 4*calDay},
		{"mon 2:*", calThu0000, calThu0000 + 4*calDay + 2*calHour},
		{"mon 2:50", calThu0000, calThu0000 + 4*calDay + 2*calHour + 50*calMin},
		{"tue", calThu0000, calThu0000 + 5*calDay},
		{"wed", calThu0000, calThu0000 + 6*calDay},
		{"thu", calThu0000, calThu0000 + 7*calDay},
		{"fri", calThu0000, calThu0000 + 1*calDay},
		{"sat", calThu0000, calThu0000 + 2*calDay},
		{"sun", calThu0000, calThu0000 + 3*calDay},
		// repeated ranges
		{"4..10/2:0", calThu0000, calThu0000 + 4*calHour},
		{"4..10/2:0", calThu0000 + 5*calHour, calThu0000 + 6*calHour},
		{"4..10/2:0", calThu0000 + 11*calHour, calThu0000 + calDay + 4*calHour},
		// several values in one field, in any order
		{"5,10:4,8", calThu0000, calThu0000 + 5*calHour + 4*calMin},
		{"10,5:8,4", calThu0000, calThu0000 + 5*calHour + 4*calMin},
		{"6,4..10:23,5/5", calThu0000, calThu0000 + 4*calHour + 5*calMin},
		{"4..10,6:5/5,23", calThu0000, calThu0000 + 4*calHour + 5*calMin},
		// month wrapping
		{"sat", calJul31, calJul31 + 1*calDay},
		{"sun", calJul31, calJul31 + 2*calDay},
		{"mon", calJul31, calJul31 + 3*calDay},
		{"tue", calJul31, calJul31 + 4*calDay},
		{"wed", calJul31, calJul31 + 5*calDay},
		{"thu", calJul31, calJul31 + 6*calDay},
		{"fri", calJul31, calJul31 + 7*calDay},
		// year wrapping
		{"fri", calDec31, calDec31 + 1*calDay},
		{"sat", calDec31, calDec31 + 2*calDay},
		{"sun", calDec31, calDec31 + 3*calDay},
		{"mon", calDec31, calDec31 + 4*calDay},
		{"tue", calDec31, calDec31 + 5*calDay},
		{"wed", calDec31, calDec31 + 6*calDay},
		{"thu", calDec31, calDec31 + 7*calDay},
		{"daily", calThu0000, calThu0000 + calDay},
		{"daily", calThu0000 + 1, calThu0000 + calDay},
		// dates
		{"2020-07-31", 0, calJul31},
		{"02-28", 0, (31 + 27) * calDay},
		{"02-29", 0, 2*365*calDay + (31+28)*calDay}, // 1972-02-29
		{"1965/5-01-01", -1, calThu0000},
		{"2020-7..9-2/2", calJul31, calJul31 + 2*calDay},
		{"2020,2021-12-31", calJul31, calDec31},
		// keywords
		{"minutely", calThu0000, calThu0000 + calMin},
		{"hourly", calThu0000, calThu0000 + calHour},
		{"weekly", calThu0000, calThu0000 + 4*calDay}, // the next Monday
		{"monthly", 0, 31 * calDay},
		{"quarterly", 0, (31 + 28 + 31) * calDay},
		{"semiannually", 0, (31 + 28 + 31 + 30 + 31 + 30) * calDay},
		{"semi-annually", 0, (31 + 28 + 31 + 30 + 31 + 30) * calDay},
		{"yearly", 0, 365 * calDay},
		{"annually", 0, 365 * calDay},
		// PVE's own defaults and examples
		{"*/15", calThu0000, calThu0000 + 15*calMin},
		{"sat 02:30", calThu0000, calThu0000 + 2*calDay + 2*calHour + 30*calMin},
		{"mon..fri 21:00", calThu0000, calThu0000 + 21*calHour},
		{"fri..mon 00:00", calThu0000, calThu0000 + calDay},
		{"*-*-1 03:00", calThu0000, calThu0000 + 3*calHour},
		{"*-*-1 03:00", calThu0000 + 4*calHour, calThu0000 + 31*calDay + 3*calHour},
		{"*:*:*/10", calThu0000 + 5, calThu0000 + 10},
		// an unbounded repetition runs past 23 and rolls over into the next
		// day (01:00) before it meets 05:00
		{"*/5:00", calThu0000 + 22*calHour, calThu0000 + calDay + 5*calHour},
		// a single value 25 does not fit the hours, so "25:00" is minute 25
		// and second 0, every hour
		{"25:00", calThu0000, calThu0000 + 25*calMin},
	}
	for _, c := range cases {
		ev := mustCalendarEvent(t, c.event+" UTC")
		got, ok := nextUTC(t, ev, c.last)
		if !ok || got != c.want {
			t.Errorf("%q after %d: got %v (%s), %v; want %v (%s)", c.event, c.last,
				got, time.Unix(got, 0).UTC(), ok, c.want, time.Unix(c.want, 0).UTC())
		}
	}
}

func TestCalendarEventNextChains(t *testing.T) {
	t.Parallel()
	chain := func(event string, first int64, step func(i int64) int64, n int64) {
		ev := mustCalendarEvent(t, event+" UTC")
		last := first
		for i := int64(1); i < n; i++ {
			got, ok := nextUTC(t, ev, last)
			if want := step(i); !ok || got != want {
				t.Fatalf("%q step %d: got %d, %v; want %d", event, i, got, ok, want)
			}
			last = got
		}
	}
	chain("5/2:0", calThu0000, func(i int64) int64 { return calThu0000 + (3+2*i)*calHour }, 5)
	chain("*:*", calThu0000, func(i int64) int64 { return calThu0000 + i*calMin }, 100)
	chain("*:0", calThu0000, func(i int64) int64 { return calThu0000 + i*calHour }, 100)
	chain("1:0", calThu1500, func(i int64) int64 { return calThu0000 + i*calDay + calHour }, 100)
}

func TestCalendarEventNever(t *testing.T) {
	t.Parallel()
	for _, event := range []string{"2021-02-29", "02-30", "1969-01-01"} {
		ev := mustCalendarEvent(t, event+" UTC")
		if got, ok := nextUTC(t, ev, 0); ok {
			t.Errorf("%q: fires at %d, want never", event, got)
		}
	}
}

func TestCalendarEventLocal(t *testing.T) {
	t.Parallel()
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no time zone data:", err)
	}
	ev := mustCalendarEvent(t, "daily")
	if ev.UTC() {
		t.Fatal("daily without UTC is local")
	}
	after := time.Date(2024, 3, 5, 12, 0, 0, 0, time.UTC)
	next, ok := ev.Next(after.In(berlin))
	if want := time.Date(2024, 3, 6, 0, 0, 0, 0, berlin); !ok || !next.Equal(want) {
		t.Fatalf("local daily: got %v, want %v", next, want)
	}
	next, ok = ev.NextIn(after, berlin)
	if want := time.Date(2024, 3, 6, 0, 0, 0, 0, berlin); !ok || !next.Equal(want) {
		t.Fatalf("NextIn daily: got %v, want %v", next, want)
	}
	utc := mustCalendarEvent(t, "daily UTC")
	next, ok = utc.NextIn(after, berlin)
	if want := time.Date(2024, 3, 6, 0, 0, 0, 0, time.UTC); !ok || !next.Equal(want) {
		t.Fatalf("UTC daily: got %v, want %v", next, want)
	}
}

func TestParseCalendarEventAccepts(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		// test_calendar_event_weekday
		"mon,wed..fri", "fri..mon", "mon", "MON", "monDay", "tue", "Tuesday",
		"wed", "wednesday", "thu", "thursday", "fri", "friday", "sat",
		"saturday", "sun", "sunday", "mon..fri", "mon,tue,fri",
		"mon,tue..wednesday,fri..sat",
		// more of the grammar
		"  daily  ", "daily UTC", "dailyUTC", "daily   UTC",
		"mon2:00", "sat 2020-01-01 0:0:0", "*-*-* *:*:*", "*/2-*/3-*/4",
		"2020..2030/2-1..12/3-1,15 4..22/6:*/5:0..59/30", "0/0", "12-31",
		"00005:00007", "mon ", // trailing blank after a weekday (space0)
	} {
		if _, err := ParseCalendarEvent(s); err != nil {
			t.Errorf("ParseCalendarEvent(%q): %v", s, err)
		}
		if p := CalendarEventProblem(s); p != "" {
			t.Errorf("CalendarEventProblem(%q) = %q", s, p)
		}
	}
}

// TestParseCalendarEventRefuses checks PVE's texts: pve_verify_calendar_event
// wraps the Rust parser's message, which names where parsing stopped and
// nom's error kind.
func TestParseCalendarEventRefuses(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"", "invalid calendar event '' - unable to parse calendar event - event is empty"},
		{" \t", "invalid calendar event ' \t' - unable to parse calendar event - event is empty"},
		{"Daily", `invalid calendar event 'Daily' - unable to parse calendar event at 'Daily' - Context("weekday")`},
		{"mon..fry", `invalid calendar event 'mon..fry' - unable to parse calendar event at '..fry' - Nom(Eof)`},
		{"fry", `invalid calendar event 'fry' - unable to parse calendar event at 'fry' - Context("weekday")`},
		{"foo bar", `invalid calendar event 'foo bar' - unable to parse calendar event at 'foo' - Context("weekday")`},
		{"UTC", `invalid calendar event 'UTC' - unable to parse calendar event at '' - Context("date or time specification")`},
		{":30", `invalid calendar event ':30' - unable to parse calendar event at ':30' - Context("date or time specification")`},
		{"10..5:00", `invalid calendar event '10..5:00' - unable to parse calendar event at '10..5:00' - Context("date or time specification")`},
		{"60", `invalid calendar event '60' - unable to parse calendar event at '60' - Context("date or time specification")`},
		{"mon,5", `invalid calendar event 'mon,5' - unable to parse calendar event at ',5' - Nom(Eof)`},
		{"*/0", `invalid calendar event '*/0' - unable to parse calendar event at '/0' - Nom(Eof)`},
		{"*/60", `invalid calendar event '*/60' - unable to parse calendar event at '*/60' - Context("date or time specification")`},
		{"12:00 utc", `invalid calendar event '12:00 utc' - unable to parse calendar event at ' utc' - Nom(Eof)`},
		{"daily\tUTC", `invalid calendar event 'daily	UTC' - unable to parse calendar event at 'daily' - Context("weekday")`},
		{"2020-01-0112:00", `invalid calendar event '2020-01-0112:00' - unable to parse calendar event at '2020-01-0112:00' - Context("date or time specification")`},
		{"1:2:3:4", `invalid calendar event '1:2:3:4' - unable to parse calendar event at ':4' - Nom(Eof)`},
		{"99999999999", `invalid calendar event '99999999999' - unable to parse calendar event at '99999999999' - Context("date or time specification")`},
		{"01-01 10:00 extra", `invalid calendar event '01-01 10:00 extra' - unable to parse calendar event at ' extra' - Nom(Eof)`},
		{"mon-fri", `invalid calendar event 'mon-fri' - unable to parse calendar event at '-fri' - Nom(Eof)`},
	}
	for _, c := range cases {
		_, err := ParseCalendarEvent(c.in)
		if err == nil {
			t.Errorf("ParseCalendarEvent(%q) accepted", c.in)
			continue
		}
		var ce *CalendarEventError
		if !errors.As(err, &ce) {
			t.Errorf("ParseCalendarEvent(%q) error %T", c.in, err)
		}
		if err.Error() != c.want {
			t.Errorf("ParseCalendarEvent(%q):\n got %s\nwant %s", c.in, err, c.want)
		}
		p := CalendarEventProblem(c.in)
		if p == "" || strings.Contains(p, "Context(") || strings.Contains(p, "Nom(") {
			t.Errorf("CalendarEventProblem(%q) = %q, want plain words", c.in, p)
		}
	}
}

func TestCalendarEventProblem(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		" ":           "invalid calendar event ' ': the event is empty",
		"Daily":       "invalid calendar event 'Daily': keywords are written in lowercase ('daily')",
		"daily utc":   "invalid calendar event 'daily utc': the keyword 'daily' stands alone, optionally followed by ' UTC'",
		"xmas":        "invalid calendar event 'xmas': 'xmas' is neither a weekday (mon..sun) nor one of minutely, hourly, daily, weekly, monthly, quarterly, semiannually, yearly",
		"10:00 UTC+1": "invalid calendar event '10:00 UTC+1': cannot read the part starting at ' UTC+1'; only a final 'UTC', in capitals, may follow (no offsets)",
		"UTC":         "invalid calendar event 'UTC': a weekday, a date or a time is missing",
		"24:00:00":    "invalid calendar event '24:00:00': cannot read the part starting at ':00'; values must be within hours 0-23, minutes and seconds 0-59, months 1-12, days 1-31, years 0-2199",
		"*/60":        "invalid calendar event '*/60': '*/60' is no weekday, date (such as 2024-01-31 or *-*-1) or time (such as 02:30 or *:0/15); values must be within hours 0-23, minutes and seconds 0-59, months 1-12, days 1-31, years 0-2199",
		"sat 2:30":    "",
		"02:30 mon":   "invalid calendar event '02:30 mon': cannot read the part starting at ' mon'; the weekdays come first, then the date, then the time (such as mon..fri 02:30)",
		"mon-fri":     "invalid calendar event 'mon-fri': cannot read the part starting at '-fri'; a range of weekdays is written mon..fri",
	}
	for in, want := range cases {
		if got := CalendarEventProblem(in); got != want {
			t.Errorf("CalendarEventProblem(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}

func TestCalendarEventString(t *testing.T) {
	t.Parallel()
	ev := mustCalendarEvent(t, "  mon..fri 02:00 ")
	if ev.String() != "mon..fri 02:00" {
		t.Fatalf("String() = %q", ev.String())
	}
}

// FuzzParseCalendarEvent checks that the parser never panics, that every
// refusal is a *CalendarEventError quoting the input, that an accepted
// event keeps accepting once trimmed, and that Next moves forward.
func FuzzParseCalendarEvent(f *testing.F) {
	for _, s := range []string{
		"daily", "mon..fri 02:30", "*/15", "2020-7..9-2/2 UTC", "fri..mon",
		"*:*:*/0", "1965/5-01-01", "4..10/2:0", "sat,sun 0/3:00", "", "UTC",
		"99999999999", "mon,", "semi-annually UTC", "02-30",
	} {
		f.Add(s, int64(0))
	}
	f.Add("*-*-1 03:00", int64(1596153600))
	f.Fuzz(func(t *testing.T, s string, last int64) {
		ev, err := ParseCalendarEvent(s)
		if err != nil {
			var ce *CalendarEventError
			if !errors.As(err, &ce) || ce.Event != s {
				t.Fatalf("ParseCalendarEvent(%q): error %#v", s, err)
			}
			if CalendarEventProblem(s) == "" {
				t.Fatalf("CalendarEventProblem(%q) empty for a refused event", s)
			}
			return
		}
		again, err := ParseCalendarEvent(ev.String())
		if err != nil || again.String() != ev.String() {
			t.Fatalf("ParseCalendarEvent(%q) again: %v", ev.String(), err)
		}
		// Keep the start within years time.Time handles comfortably.
		last %= 1 << 36
		after := time.Unix(last, 0).UTC()
		if next, ok := ev.Next(after); ok && !next.After(after) {
			t.Fatalf("%q: next %v is not after %v", s, next, after)
		}
	})
}

// TestCalendarEventDaylightSaving pins PVE's next runs around daylight-saving
// changes (answers of proxmox-time's compute_next_event with glibc): a time
// the spring-forward night skips does not run that night, and in the
// repeated autumn hour the run follows the clock.
func TestCalendarEventDaylightSaving(t *testing.T) {
	t.Parallel()
	cases := []struct {
		zone, event string
		last, want  int64
	}{
		{"Europe/Berlin", "2:30", 1711839600, 1711931400},    // 2024-03-31 00:00 CET -> 04-01 02:30 CEST
		{"Europe/Berlin", "*:30", 1711846799, 1711848600},    // 01:59:59 CET -> 03:30 CEST
		{"Europe/Berlin", "*:*", 1729990799, 1729990800},     // 2024-10-27 02:59:59 CEST -> 02:00 CET
		{"Europe/Berlin", "*:*", 1729994279, 1729994280},     // 02:57:59 CET -> 02:58 CET
		{"Europe/Berlin", "2:30", 1729980000, 1729989000},    // 00:00 CEST -> 02:30 CEST
		{"America/New_York", "2:30", 1710050000, 1710138600}, // 2024-03-10 00:53 EST -> 03-11 02:30 EDT
		{"America/New_York", "1:30", 1730606400, 1730611800}, // 2024-11-03 00:00 EDT -> 01:30 EDT
	}
	for _, c := range cases {
		loc, err := time.LoadLocation(c.zone)
		if err != nil {
			t.Skip("no time zone data:", err)
		}
		ev := mustCalendarEvent(t, c.event)
		next, ok := ev.NextIn(time.Unix(c.last, 0), loc)
		if !ok || next.Unix() != c.want {
			t.Errorf("%q from %v in %s: got %v, want %v", c.event, time.Unix(c.last, 0).In(loc),
				c.zone, next, time.Unix(c.want, 0).In(loc))
		}
	}
}
