package pvegrammar

import (
	"testing"
	"time"
)

// utcAt parses "2006-01-02 15:04:05" in UTC.
func utcAt(t *testing.T, s string) int64 {
	t.Helper()
	tm, err := time.Parse(time.DateTime, s)
	if err != nil {
		t.Fatal(err)
	}
	return tm.Unix()
}

// The examples of proxmox-rs proxmox-time src/test.rs
// (test_compute_next_event), written with calendar dates: each event is
// computed as "EVENT UTC" from the start time.
func TestCalendarNextEvent(t *testing.T) {
	const epoch = "1970-01-01 00:00:00" // a Thursday
	cases := []struct{ event, from, want string }{
		{"0", epoch, "1970-01-01 01:00:00"},
		{"*", epoch, "1970-01-01 00:01:00"},
		{"*:0", epoch, "1970-01-01 01:00:00"},
		{"*:*", epoch, "1970-01-01 00:01:00"},
		{"*:*:*", epoch, "1970-01-01 00:00:01"},
		{"*:3:5", epoch, "1970-01-01 00:03:05"},
		{"mon *:*", epoch, "1970-01-05 00:00:00"},
		{"mon 2:*", epoch, "1970-01-05 02:00:00"},
		{"mon 2:50", epoch, "1970-01-05 02:50:00"},
		{"tue", epoch, "1970-01-06 00:00:00"},
		{"wed", epoch, "1970-01-07 00:00:00"},
		{"thu", epoch, "1970-01-08 00:00:00"},
		{"fri", epoch, "1970-01-02 00:00:00"},
		{"sat", epoch, "1970-01-03 00:00:00"},
		{"sun", epoch, "1970-01-04 00:00:00"},
		{"4..10/2:0", epoch, "1970-01-01 04:00:00"},
		{"4..10/2:0", "1970-01-01 05:00:00", "1970-01-01 06:00:00"},
		{"4..10/2:0", "1970-01-01 11:00:00", "1970-01-02 04:00:00"},
		{"5,10:4,8", epoch, "1970-01-01 05:04:00"},
		{"10,5:8,4", epoch, "1970-01-01 05:04:00"},
		{"6,4..10:23,5/5", epoch, "1970-01-01 04:05:00"},
		{"4..10,6:5/5,23", epoch, "1970-01-01 04:05:00"},
		{"sat", "2020-07-31 00:00:00", "2020-08-01 00:00:00"},
		{"thu", "2020-07-31 00:00:00", "2020-08-06 00:00:00"},
		{"fri", "2020-07-31 00:00:00", "2020-08-07 00:00:00"},
		{"fri", "2020-12-31 00:00:00", "2021-01-01 00:00:00"},
		{"wed", "2020-12-31 00:00:00", "2021-01-06 00:00:00"},
		{"thu", "2020-12-31 00:00:00", "2021-01-07 00:00:00"},
		{"daily", epoch, "1970-01-02 00:00:00"},
		{"daily", "1970-01-01 00:00:01", "1970-01-02 00:00:00"},
		{"2020-07-31", epoch, "2020-07-31 00:00:00"},
		{"02-28", epoch, "1970-02-28 00:00:00"},
		{"02-29", epoch, "1972-02-29 00:00:00"},
		{"1965/5-01-01", "1969-12-31 23:59:59", "1970-01-01 00:00:00"},
		{"2020-7..9-2/2", "2020-07-31 00:00:00", "2020-08-02 00:00:00"},
		{"2020,2021-12-31", "2020-07-31 00:00:00", "2020-12-31 00:00:00"},
		{"minutely", epoch, "1970-01-01 00:01:00"},
		{"hourly", epoch, "1970-01-01 01:00:00"},
		{"weekly", epoch, "1970-01-05 00:00:00"},
		{"monthly", epoch, "1970-02-01 00:00:00"},
		{"quarterly", epoch, "1970-04-01 00:00:00"},
		{"semiannually", epoch, "1970-07-01 00:00:00"},
		{"semi-annually", epoch, "1970-07-01 00:00:00"},
		{"yearly", epoch, "1971-01-01 00:00:00"},
		{"annually", epoch, "1971-01-01 00:00:00"},
		// an unbounded repetition runs past 23 and rolls into the next day
		// (01:00) before it finds 05:00, as PVE's computation does
		{"*/5:00", "2024-05-01 22:00:00", "2024-05-02 05:00:00"},
		// PVE's default replication schedule
		{"*/15", "2024-05-01 10:07:30", "2024-05-01 10:15:00"},
		{"fri..mon 23:30", "2024-05-01 12:00:00", "2024-05-03 23:30:00"},
		{"*-*-31", "2024-04-01 00:00:00", "2024-05-31 00:00:00"},
	}
	for _, c := range cases {
		ev, msg := ParseCalendarEvent(c.event + " UTC")
		if msg != "" {
			t.Fatalf("%q: %s", c.event, msg)
		}
		got, ok := ev.NextEvent(utcAt(t, c.from), time.Local)
		want := utcAt(t, c.want)
		if !ok || got != want {
			t.Errorf("%q from %s: got %s (%v), want %s", c.event, c.from,
				time.Unix(got, 0).UTC().Format(time.DateTime), ok, c.want)
		}
	}
}

func TestCalendarNextEventNever(t *testing.T) {
	for _, event := range []string{"2021-02-29", "02-30", "1969-*-*"} {
		ev, msg := ParseCalendarEvent(event + " UTC")
		if msg != "" {
			t.Fatal(msg)
		}
		if got, ok := ev.NextEvent(0, nil); ok {
			t.Errorf("%q fires at %d", event, got)
		}
	}
}

func TestCalendarNextEventLocalZone(t *testing.T) {
	zone := time.FixedZone("UTC+2", 2*3600)
	ev, msg := ParseCalendarEvent("02:00")
	if msg != "" {
		t.Fatal(msg)
	}
	// 2024-05-01 00:30 UTC is 02:30 at UTC+2: the next 02:00 there is
	// 2024-05-02 00:00 UTC.
	got, ok := ev.NextEvent(utcAt(t, "2024-05-01 00:30:00"), zone)
	if want := utcAt(t, "2024-05-02 00:00:00"); !ok || got != want {
		t.Fatalf("got %d, want %d", got, want)
	}
}

// pve_verify_calendar_event's messages (pve-common CalendarEvent.pm) around
// the Rust parser's (proxmox-time parse_helpers.rs parse_complete_line).
func TestVerifyCalendarEvent(t *testing.T) {
	ok := []string{
		"mon,wed..fri", "fri..mon", "MON", "monDay", "Tuesday", "wednesday",
		"thursday", "friday", "saturday", "sunday", "mon,tue..wednesday,fri..sat",
		"sat 02:30", "*/15", "\tdaily\n", "daily UTC", "hourlyUTC", "mon2:00",
		"2020-01-01 0:0:0", "*-*-* *:*:*", "12-31", "25:00", "0/0", "mon ",
	}
	for _, s := range ok {
		if msg := VerifyCalendarEvent(s); msg != "" {
			t.Errorf("VerifyCalendarEvent(%q) = %q", s, msg)
		}
	}
	bad := map[string]string{
		"":            "invalid calendar event '' - unable to parse calendar event - event is empty\n\n",
		"\u00a0":      "invalid calendar event '\u00a0' - unable to parse calendar event - event is empty\n\n",
		"Daily":       "invalid calendar event 'Daily' - unable to parse calendar event at 'Daily' - Context(\"weekday\")\n\n",
		"xmas 10:00":  "invalid calendar event 'xmas 10:00' - unable to parse calendar event at 'xmas' - Context(\"weekday\")\n\n",
		"mon..fry":    "invalid calendar event 'mon..fry' - unable to parse calendar event at '..fry' - Nom(Eof)\n\n",
		"mon,":        "invalid calendar event 'mon,' - unable to parse calendar event at ',' - Nom(Eof)\n\n",
		"mon,5":       "invalid calendar event 'mon,5' - unable to parse calendar event at ',5' - Nom(Eof)\n\n",
		"UTC":         "invalid calendar event 'UTC' - unable to parse calendar event at '' - Context(\"date or time specification\")\n\n",
		" UTC ":       "invalid calendar event ' UTC ' - unable to parse calendar event at '' - Context(\"date or time specification\")\n\n",
		"24:00:00":    "invalid calendar event '24:00:00' - unable to parse calendar event at ':00' - Nom(Eof)\n\n",
		"*/0":         "invalid calendar event '*/0' - unable to parse calendar event at '/0' - Nom(Eof)\n\n",
		"5..1":        "invalid calendar event '5..1' - unable to parse calendar event at '5..1' - Context(\"date or time specification\")\n\n",
		"1,5..1":      "invalid calendar event '1,5..1' - unable to parse calendar event at ',5..1' - Nom(Eof)\n\n",
		"4294967296":  "invalid calendar event '4294967296' - unable to parse calendar event at '4294967296' - Context(\"date or time specification\")\n\n",
		"2200-01-01":  "invalid calendar event '2200-01-01' - unable to parse calendar event at '2200-01-01' - Context(\"date or time specification\")\n\n",
		"13-01":       "invalid calendar event '13-01' - unable to parse calendar event at '-01' - Nom(Eof)\n\n",
		"daily utc":   "invalid calendar event 'daily utc' - unable to parse calendar event at 'daily' - Context(\"weekday\")\n\n",
		"10:00 UTC+1": "invalid calendar event '10:00 UTC+1' - unable to parse calendar event at ' UTC+1' - Nom(Eof)\n\n",
	}
	for in, want := range bad {
		if got := VerifyCalendarEvent(in); got != want {
			t.Errorf("VerifyCalendarEvent(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}

// Next runs around daylight-saving changes, as proxmox-time computes them
// with glibc's mktime: 02:30 does not run on the night that skips it, and
// the repeated autumn hour runs by the clock.
func TestCalendarNextEventDaylightSaving(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip(err)
	}
	newYork, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip(err)
	}
	for _, c := range []struct {
		loc        *time.Location
		event      string
		from, want string // local wall clock with the zone's abbreviation
	}{
		{berlin, "2:30", "2024-03-31 00:00:00 CET", "2024-04-01 02:30:00 CEST"},
		{berlin, "*:30", "2024-03-31 01:59:59 CET", "2024-03-31 03:30:00 CEST"},
		{berlin, "2:30", "2024-10-27 00:00:00 CEST", "2024-10-27 02:30:00 CEST"},
		{newYork, "2:30", "2024-03-10 00:53:20 EST", "2024-03-11 02:30:00 EDT"},
		{newYork, "1:30", "2024-11-03 00:00:00 EDT", "2024-11-03 01:30:00 EDT"},
	} {
		from, err := time.ParseInLocation("2006-01-02 15:04:05 MST", c.from, c.loc)
		if err != nil {
			t.Fatal(err)
		}
		ev, msg := ParseCalendarEvent(c.event)
		if msg != "" {
			t.Fatal(msg)
		}
		got, ok := ev.NextEvent(from.Unix(), c.loc)
		if s := time.Unix(got, 0).In(c.loc).Format("2006-01-02 15:04:05 MST"); !ok || s != c.want {
			t.Errorf("%q from %s: got %s, want %s", c.event, c.from, s, c.want)
		}
	}
}
