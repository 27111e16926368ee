package pvegrammar

import (
	"strings"
	"time"
)

// Calendar events: the schedule grammar of backup and replication jobs.
//
// PVE checks the 'pve-calendar-event' format with pve-common
// src/PVE/CalendarEvent.pm pve_verify_calendar_event: parse_calendar_event
// trims the text (PVE::Tools::trim), dies "unable to parse calendar event -
// event is empty" for an empty one and hands the rest to
// Proxmox::RS::CalendarEvent->new, the Rust parser of proxmox-rs
// proxmox-time src/calendar_event.rs (parse_calendar_event_incomplete, with
// parse_helpers.rs, week_days.rs and date_time_value.rs). The Rust error
// reaches Perl through perlmod, which appends a newline to the message; the
// verifier then dies "invalid calendar event '$text' - $err\n" with the text
// as given, so the message ends in two newlines.
//
// The Rust parser is built from nom combinators. What matters for its
// answers: optional parts (opt) fall back silently when they do not parse,
// a list (separated_list1) stops before a separator whose item does not
// parse, and the whole event must be consumed (all_consuming). The error
// names the unread input and nom's error kind with Rust's Debug format.
// Only three errors can come out: a first word that is not a weekday, no
// weekday, date or time specification at all, and unread input.

// CalendarEvent is a parsed calendar event (proxmox-time CalendarEvent).
type CalendarEvent struct {
	UTC bool
	// Weekdays has bit 0 for Monday up to bit 6 for Sunday; 0 or 0x7f is
	// every day.
	Weekdays uint8
	// Fields in proxmox-time's order; a nil or empty list matches any value.
	Year, Month, Day, Hour, Minute, Second []CalendarItem
}

// CalendarItem is proxmox-time's DateTimeValue in one shape: a single value
// is Start with Step 0 and no end, a range a..b is Step 1 up to End, and a
// repetition a/r or a..b/r is Step r with or without End. Both the match
// and the next-value rules of DateTimeValue come out the same for each.
type CalendarItem struct {
	Start, Step, End uint32
	HasEnd           bool
}

// matches is DateTimeValue::contains.
func (c CalendarItem) matches(v uint32) bool {
	if v < c.Start || (c.HasEnd && v > c.End) {
		return false
	}
	if c.Step == 0 {
		return v == c.Start
	}
	return (v-c.Start)%c.Step == 0
}

// after is the smallest value of the item above v (DateTimeValue::find_next
// for one item). Unbounded repetitions run past the field's range; PVE's
// computation then rolls into the next larger unit, and so does ours.
func (c CalendarItem) after(v uint32) (uint32, bool) {
	if v < c.Start {
		return c.Start, true
	}
	if c.Step == 0 {
		return 0, false
	}
	n := c.Start + ((v-c.Start)/c.Step+1)*c.Step
	if c.HasEnd && n > c.End {
		return 0, false
	}
	return n, true
}

func itemsMatch(items []CalendarItem, v uint32) bool {
	if len(items) == 0 {
		return true
	}
	for _, it := range items {
		if it.matches(v) {
			return true
		}
	}
	return false
}

func itemsAfter(items []CalendarItem, v uint32) (uint32, bool) {
	var best uint32
	found := false
	for _, it := range items {
		if n, ok := it.after(v); ok && (!found || n < best) {
			best, found = n, true
		}
	}
	return best, found
}

// VerifyCalendarEvent is pve_verify_calendar_event: "" when PVE accepts the
// text, else the message PVE dies with (ending in two newlines).
func VerifyCalendarEvent(text string) string {
	trimmed := strings.TrimFunc(text, IsPerlSpace)
	var msg string
	if trimmed == "" {
		msg = "unable to parse calendar event - event is empty\n"
	} else if _, err := ParseCalendarEvent(trimmed); err != "" {
		msg = err + "\n" // perlmod's newline
	} else {
		return ""
	}
	return "invalid calendar event '" + text + "' - " + msg + "\n"
}

// ParseCalendarEvent is Proxmox::RS::CalendarEvent->new: the Rust parser on
// the text as given (no trimming). The error is the Rust message, such as
// `unable to parse calendar event at 'fry' - Context("weekday")`.
func ParseCalendarEvent(text string) (*CalendarEvent, string) {
	p := &calParser{in: text}
	ev, errAt, errKind := p.event()
	if errKind == "" && p.pos < len(p.in) {
		errAt, errKind = p.in[p.pos:], "Nom(Eof)" // all_consuming
	}
	if errKind != "" {
		return nil, "unable to parse calendar event at '" + errAt + "' - " + errKind
	}
	return ev, ""
}

// calParser walks the input with a position; every optional part saves
// the position and restores it when it does not parse.
type calParser struct {
	in  string
	pos int
}

func (p *calParser) rest() string { return p.in[p.pos:] }

func (p *calParser) eat(prefix string) bool {
	if strings.HasPrefix(p.rest(), prefix) {
		p.pos += len(prefix)
		return true
	}
	return false
}

func (p *calParser) blanks() {
	for p.pos < len(p.in) && (p.in[p.pos] == ' ' || p.in[p.pos] == '\t') {
		p.pos++
	}
}

// shortcut fields: minute-only events and keywords set single values.
func single(vs ...uint32) []CalendarItem {
	items := make([]CalendarItem, 0, len(vs))
	for _, v := range vs {
		items = append(items, CalendarItem{Start: v})
	}
	return items
}

// keywordEvent is the keyword match of parse_calendar_event_incomplete on
// the whole (UTC-stripped) input.
func keywordEvent(word string) (CalendarEvent, bool) {
	midnight := CalendarEvent{Hour: single(0), Minute: single(0), Second: single(0)}
	switch word {
	case "minutely":
		return CalendarEvent{Second: single(0)}, true
	case "hourly":
		return CalendarEvent{Minute: single(0), Second: single(0)}, true
	case "daily":
		return midnight, true
	case "weekly":
		midnight.Weekdays = 1
		return midnight, true
	case "monthly":
		midnight.Day = single(1)
		return midnight, true
	case "yearly", "annually":
		midnight.Day, midnight.Month = single(1), single(1)
		return midnight, true
	case "quarterly":
		midnight.Day, midnight.Month = single(1), single(1, 4, 7, 10)
		return midnight, true
	case "semiannually", "semi-annually":
		midnight.Day, midnight.Month = single(1), single(1, 7)
		return midnight, true
	}
	return CalendarEvent{}, false
}

// event is parse_calendar_event_incomplete. It returns the event, or where
// it failed and nom's error kind.
func (p *calParser) event() (*CalendarEvent, string, string) {
	utc := false
	if strings.HasSuffix(p.in, "UTC") {
		utc = true
		p.in = strings.TrimRight(strings.TrimSuffix(p.in, "UTC"), " ")
	}
	if p.in != "" && asciiLetter(p.in[0]) {
		if ev, ok := keywordEvent(p.in); ok {
			ev.UTC = utc
			p.pos = len(p.in)
			return &ev, "", ""
		}
	}
	ev := &CalendarEvent{UTC: utc}
	specs := 0
	if p.pos < len(p.in) && asciiLetter(p.in[p.pos]) {
		days, bad := p.weekdayList()
		if bad != "" {
			return nil, bad, `Context("weekday")`
		}
		ev.Weekdays = days
		specs++
		p.blanks()
	}
	if p.dateSpec(ev) {
		specs++
		p.blanks()
	}
	if !p.timeSpec(ev) {
		if specs == 0 {
			return nil, p.rest(), `Context("date or time specification")`
		}
		ev.Hour, ev.Minute, ev.Second = single(0), single(0), single(0)
	}
	return ev, "", ""
}

func asciiLetter(c byte) bool { return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') }

// weekday is week_days.rs parse_weekday: a run of letters naming a day.
// It returns the day (0 = Monday) or -1, and the word read.
func (p *calParser) weekday() (int, string) {
	start := p.pos
	end := start
	for end < len(p.in) && asciiLetter(p.in[end]) {
		end++
	}
	word := p.in[start:end]
	names := [7][2]string{
		{"mon", "monday"}, {"tue", "tuesday"}, {"wed", "wednesday"}, {"thu", "thursday"},
		{"fri", "friday"}, {"sat", "saturday"}, {"sun", "sunday"},
	}
	lower := strings.ToLower(word)
	for d, n := range names {
		if word != "" && (lower == n[0] || lower == n[1]) {
			p.pos = end
			return d, word
		}
	}
	return -1, word
}

// weekdayRange is parse_weekdays_range: DAY or DAY..DAY, wrapping round the
// week when the first day comes later.
func (p *calParser) weekdayRange() (uint8, string, bool) {
	first, word := p.weekday()
	if first < 0 {
		return 0, word, false
	}
	last := first
	save := p.pos
	if p.eat("..") {
		if d, _ := p.weekday(); d >= 0 {
			last = d
		} else {
			p.pos = save
		}
	}
	var days uint8
	for d := first; ; d = (d + 1) % 7 {
		days |= 1 << d
		if d == last {
			return days, "", true
		}
	}
}

// weekdayList is separated_list1(tag(","), parse_weekdays_range) under the
// "weekday range list" context: a bad first item is an error naming the
// word, a bad item after a comma ends the list before the comma.
func (p *calParser) weekdayList() (uint8, string) {
	days, word, ok := p.weekdayRange()
	if !ok {
		return 0, word
	}
	for {
		save := p.pos
		if !p.eat(",") {
			return days, ""
		}
		more, _, ok := p.weekdayRange()
		if !ok {
			p.pos = save
			return days, ""
		}
		days |= more
	}
}

// number is parse_time_comp: digits that fit a u32, below limit.
func (p *calParser) number(limit uint32) (uint32, bool) {
	i := p.pos
	var v uint64
	for i < len(p.in) && '0' <= p.in[i] && p.in[i] <= '9' {
		v = v*10 + uint64(p.in[i]-'0')
		if v > 0xffffffff {
			return 0, false
		}
		i++
	}
	if i == p.pos || v >= uint64(limit) {
		return 0, false
	}
	p.pos = i
	return uint32(v), true
}

// item is parse_date_time_comp. On failure the position is back where it
// was.
func (p *calParser) item(limit uint32) (CalendarItem, bool) {
	save := p.pos
	fail := func() (CalendarItem, bool) { p.pos = save; return CalendarItem{}, false }
	start, ok := p.number(limit)
	if !ok {
		return fail()
	}
	it := CalendarItem{Start: start}
	beforeRange := p.pos
	if p.eat("..") {
		if end, ok := p.number(limit); ok {
			if start > end {
				return fail() // "range start is bigger than end"
			}
			it = CalendarItem{Start: start, Step: 1, End: end, HasEnd: true}
		} else {
			p.pos = beforeRange
		}
	}
	if p.eat("/") {
		step, ok := p.number(limit)
		if !ok {
			return fail()
		}
		it.Step = step
	}
	return it, true
}

// list is parse_date_time_comp_list: "*", "*/N" (from first, every N; a
// zero N leaves "/0" unread and means "*") or items joined by commas. A
// nil result with true means any value.
func (p *calParser) list(first, limit uint32) ([]CalendarItem, bool) {
	save := p.pos
	if p.eat("*") {
		afterStar := p.pos
		if p.eat("/") {
			step, ok := p.number(limit)
			if !ok {
				p.pos = save
				return nil, false
			}
			if step > 0 {
				return []CalendarItem{{Start: first, Step: step}}, true
			}
			p.pos = afterStar
		}
		return nil, true
	}
	it, ok := p.item(limit)
	if !ok {
		return nil, false
	}
	items := []CalendarItem{it}
	for {
		beforeComma := p.pos
		if !p.eat(",") {
			return items, true
		}
		it, ok := p.item(limit)
		if !ok {
			p.pos = beforeComma
			return items, true
		}
		items = append(items, it)
	}
}

// timeSpec is parse_time_spec: [HOURS ":"] MINUTES [":" SECONDS]. Without
// hours every hour matches; without seconds second 0.
func (p *calParser) timeSpec(ev *CalendarEvent) bool {
	save := p.pos
	var hours []CalendarItem
	if h, ok := p.list(0, 24); ok && p.eat(":") {
		hours = h
	} else {
		p.pos = save
	}
	minutes, ok := p.list(0, 60)
	if !ok {
		p.pos = save
		return false
	}
	seconds := single(0)
	beforeColon := p.pos
	if p.eat(":") {
		if s, ok := p.list(0, 60); ok {
			seconds = s
		} else {
			p.pos = beforeColon
		}
	}
	ev.Hour, ev.Minute, ev.Second = hours, minutes, seconds
	return true
}

// dateSpec is parse_date_spec: YEARS-MONTHS-DAYS (years below 2200), or
// MONTHS-DAYS.
func (p *calParser) dateSpec(ev *CalendarEvent) bool {
	save := p.pos
	if y, ok := p.list(0, 2200); ok && p.eat("-") {
		if m, ok := p.list(1, 13); ok && p.eat("-") {
			if d, ok := p.list(1, 32); ok {
				ev.Year, ev.Month, ev.Day = y, m, d
				return true
			}
		}
	}
	p.pos = save
	if m, ok := p.list(1, 13); ok && p.eat("-") {
		if d, ok := p.list(1, 32); ok {
			ev.Year, ev.Month, ev.Day = nil, m, d
			return true
		}
	}
	p.pos = save
	return false
}

// brokenDown is proxmox-time's TmEditor: calendar fields that are
// normalised after every change by libc's mktime (timelocal, with tm_isdst
// -1) or timegm.
type brokenDown struct {
	loc                       *time.Location
	year, month, day          int
	hour, minute, second, dow int // dow: 0 = Monday
	// guess is glibc's mktime offset guess (mktime.c localtime_offset):
	// the UTC offset of its previous result.
	guess int
}

func (b *brokenDown) set(y, mo, d, h, mi, s int) {
	b.load(time.Unix(b.mktime(y, mo, d, h, mi, s), 0).In(b.loc))
}

func (b *brokenDown) load(t time.Time) {
	b.year, b.month, b.day = t.Year(), int(t.Month()), t.Day()
	b.hour, b.minute, b.second = t.Clock()
	b.dow = (int(t.Weekday()) + 6) % 7
}

// mktime follows glibc's mktime (time/mktime.c __mktime_internal) with
// tm_isdst -1: out-of-range fields carry over, then the local time is
// looked for starting from the previous call's UTC offset. A time that
// exists twice (the hour repeated when daylight saving time ends) is the
// one the search meets first, which depends on that offset; a time in the
// gap when daylight saving time starts makes the search swing between two
// answers, and glibc then takes the one in daylight saving time (the wall
// clock moved forward by the gap).
//
// inferred: PVE's answer in the repeated hour depends on the mktime calls
// its process made before; we start from the offset of the starting time
// (see NextEvent), which is what a process gets whose last call was about
// now (listed in INFERRED.md).
func (b *brokenDown) mktime(y, mo, d, h, mi, s int) int64 {
	wall := time.Date(y, time.Month(mo), d, h, mi, s, 0, time.UTC).Unix()
	offsetAt := func(t int64) int {
		_, off := time.Unix(t, 0).In(b.loc).Zone()
		return off
	}
	t := wall - int64(b.guess)
	var prev int64
	for probe := 0; probe < 6; probe++ {
		off := offsetAt(t)
		next := wall - int64(off)
		if next == t {
			b.guess = off
			return t
		}
		if probe > 0 && next == prev {
			// Swinging between t and next: a time in a spring-forward gap.
			if !time.Unix(t, 0).In(b.loc).IsDST() && time.Unix(next, 0).In(b.loc).IsDST() {
				t = next
			}
			b.guess = offsetAt(t)
			return t
		}
		prev, t = t, next
	}
	b.guess = offsetAt(t)
	return t
}

// NextEvent is compute_next_event: the first time in seconds since the
// epoch strictly after last at which the event fires, computed in UTC for a
// UTC event and in loc (the node's time zone) otherwise; false when there is
// none (PVE also gives up after 1000 steps).
func (ev *CalendarEvent) NextEvent(last int64, loc *time.Location) (int64, bool) {
	if ev.UTC || loc == nil {
		loc = time.UTC
	}
	b := &brokenDown{loc: loc}
	start := time.Unix(last+1, 0).In(loc)
	_, b.guess = start.Zone()
	b.load(start)
	everyDay := ev.Weekdays == 0 || ev.Weekdays == 0x7f
	for step := 0; step <= 1000; step++ {
		switch {
		case !itemsMatch(ev.Year, uint32(max(b.year, 0))):
			n, ok := itemsAfter(ev.Year, uint32(max(b.year, 0)))
			if !ok {
				return 0, false
			}
			b.set(int(n), 1, 1, 0, 0, 0)
		case !itemsMatch(ev.Month, uint32(b.month)):
			if n, ok := itemsAfter(ev.Month, uint32(b.month)); ok {
				b.set(b.year, int(n), 1, 0, 0, 0)
			} else {
				b.set(b.year+1, 1, 1, 0, 0, 0)
			}
		case !itemsMatch(ev.Day, uint32(b.day)):
			if n, ok := itemsAfter(ev.Day, uint32(b.day)); ok {
				b.set(b.year, b.month, int(n), 0, 0, 0)
			} else {
				b.set(b.year, b.month+1, 1, 0, 0, 0)
			}
		case !everyDay && ev.Weekdays&(1<<b.dow) == 0:
			skip := 7 - b.dow // to next Monday unless a later day this week fits
			for d := b.dow + 1; d < 7; d++ {
				if ev.Weekdays&(1<<d) != 0 {
					skip = d - b.dow
					break
				}
			}
			b.set(b.year, b.month, b.day+skip, 0, 0, 0)
		case !itemsMatch(ev.Hour, uint32(b.hour)):
			if n, ok := itemsAfter(ev.Hour, uint32(b.hour)); ok {
				b.set(b.year, b.month, b.day, int(n), 0, 0)
			} else {
				b.set(b.year, b.month, b.day+1, 0, 0, 0)
			}
		case !itemsMatch(ev.Minute, uint32(b.minute)):
			if n, ok := itemsAfter(ev.Minute, uint32(b.minute)); ok {
				b.set(b.year, b.month, b.day, b.hour, int(n), 0)
			} else {
				b.set(b.year, b.month, b.day, b.hour+1, 0, 0)
			}
		case !itemsMatch(ev.Second, uint32(b.second)):
			if n, ok := itemsAfter(ev.Second, uint32(b.second)); ok {
				b.set(b.year, b.month, b.day, b.hour, b.minute, int(n))
			} else {
				b.set(b.year, b.month, b.day, b.hour, b.minute+1, 0)
			}
		default:
			return b.mktime(b.year, b.month, b.day, b.hour, b.minute, b.second), true
		}
	}
	return 0, false
}
