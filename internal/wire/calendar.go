package wire

import (
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// PVE's schedules (backup jobs, replication jobs, ...) are calendar events in
// the systemd-like grammar of proxmox-rs proxmox-time (calendar_event.rs
// parse_calendar_event_incomplete, parse_helpers.rs, week_days.rs,
// date_time_value.rs). PVE reaches it through pve-common
// src/PVE/CalendarEvent.pm pve_verify_calendar_event, the checker of the
// 'pve-calendar-event' format: the text is trimmed, an empty one is refused,
// the rest goes to the Rust parser.
//
// The grammar, as the Rust parser reads it:
//
//	event    = [weekdays] [date] [time] ["UTC"]   (at least one of the three)
//	         | keyword ["UTC"]
//	keyword  = minutely | hourly | daily | weekly | monthly | yearly | annually
//	         | quarterly | semiannually | semi-annually
//	weekdays = wdrange {"," wdrange}, then optional blanks
//	wdrange  = weekday [".." weekday]       (mon..fri; fri..mon wraps round)
//	date     = [list "-"] list "-" list      (year, month, day), then blanks
//	time     = [list ":"] list [":" list]    (hour, minute, second)
//	list     = "*" ["/" N] | value {"," value}
//	value    = N [".." N] ["/" N]
//
// Weekday names are mon..sun or their full English names, in any case. A
// time without hours fires every hour, one without seconds at second 0; an
// event without a time fires at 00:00:00.

// CalendarEvent is a parsed PVE calendar event (a job schedule).
type CalendarEvent struct {
	text string
	utc  bool
	// days holds one bit per weekday, Monday first (bit 0) to Sunday
	// (bit 6); no bit or all bits mean any day.
	days uint8
	// Each field list is empty for "any value".
	second, minute, hour []calValue
	day, month, year     []calValue
}

// calValue is one item of a field list: a single value, a range, or a start
// repeated every step (up to end when bounded). proxmox-time
// date_time_value.rs DateTimeValue.
type calValue struct {
	start, end, step uint32
	kind             calKind
}

type calKind uint8

const (
	calSingle calKind = iota
	calRange
	calRepeat        // start/step, no end
	calRepeatBounded // start..end/step
)

// String returns the event as it was given (trimmed).
func (e CalendarEvent) String() string { return e.text }

// UTC tells whether the event is computed in UTC ("... UTC") rather than in
// the node's local time zone.
func (e CalendarEvent) UTC() bool { return e.utc }

// CalendarEventError is PVE's refusal of a calendar event. Error gives PVE's
// own text (pve_verify_calendar_event around the Rust parser's message,
// without the trailing newlines); Problem says the same in plain words.
type CalendarEventError struct {
	// Event is the value as given.
	Event string
	// At is the part of the event where parsing stopped.
	At string
	// Kind is the Rust parser's error kind as PVE prints it: `Nom(Eof)`,
	// `Context("weekday")` or `Context("date or time specification")`;
	// empty when the event is empty.
	Kind string
}

const (
	calKindEOF     = "Nom(Eof)"
	calKindWeekday = `Context("weekday")`
	calKindNoSpec  = `Context("date or time specification")`
)

func (e *CalendarEventError) Error() string {
	inner := "unable to parse calendar event - event is empty"
	if e.Kind != "" {
		inner = "unable to parse calendar event at '" + e.At + "' - " + e.Kind
	}
	return "invalid calendar event '" + e.Event + "' - " + inner
}

// Problem is the refusal in plain words, for users.
func (e *CalendarEventError) Problem() string {
	prefix := "invalid calendar event '" + e.Event + "': "
	switch e.Kind {
	case "":
		return prefix + "the event is empty"
	case calKindWeekday:
		lower := strings.ToLower(e.At)
		if _, ok := calendarKeywords[lower]; ok {
			if lower != e.At {
				return prefix + "keywords are written in lowercase ('" + lower + "')"
			}
			return prefix + "the keyword '" + e.At + "' stands alone, optionally followed by ' UTC'"
		}
		return prefix + "'" + e.At + "' is neither a weekday (mon..sun) nor one of " + calendarKeywordList
	case calKindNoSpec:
		if e.At == "" {
			return prefix + "a weekday, a date or a time is missing"
		}
		return prefix + "'" + e.At + "' is no weekday, date (such as 2024-01-31 or *-*-1) or time (such as 02:30 or *:0/15); " + calendarRanges
	default:
		msg := prefix + "cannot read the part starting at '" + e.At + "'"
		rest := strings.TrimLeft(e.At, " \t")
		switch {
		case strings.HasPrefix(rest, "-") && len(rest) > 1 && isASCIIAlpha(rest[1]):
			return msg + "; a range of weekdays is written mon..fri"
		case strings.HasPrefix(strings.ToUpper(rest), "UTC"):
			return msg + "; only a final 'UTC', in capitals, may follow (no offsets)"
		case rest != "" && isASCIIAlpha(rest[0]):
			return msg + "; the weekdays come first, then the date, then the time (such as mon..fri 02:30)"
		}
		return msg + "; " + calendarRanges
	}
}

const (
	calendarKeywordList = "minutely, hourly, daily, weekly, monthly, quarterly, semiannually, yearly"
	calendarRanges      = "values must be within hours 0-23, minutes and seconds 0-59, months 1-12, days 1-31, years 0-2199"
)

// ParseCalendarEvent parses a calendar event the way PVE checks the
// 'pve-calendar-event' format. Errors are *CalendarEventError, whose text is
// PVE's.
func ParseCalendarEvent(s string) (CalendarEvent, error) {
	// pve-common CalendarEvent.pm parse_calendar_event: PVE::Tools::trim,
	// Perl's \s on the decoded value.
	text := strings.TrimFunc(s, unicode.IsSpace)
	if text == "" {
		return CalendarEvent{}, &CalendarEventError{Event: s}
	}
	ev, rest, fail := parseCalendarText(text)
	if fail != nil {
		fail.Event = s
		return CalendarEvent{}, fail
	}
	if rest != "" {
		// nom's all_consuming: input left over.
		return CalendarEvent{}, &CalendarEventError{Event: s, At: rest, Kind: calKindEOF}
	}
	ev.text = text
	return ev, nil
}

// CalendarEventProblem returns "" when s is a calendar event PVE accepts,
// else a message for users saying what is wrong.
func CalendarEventProblem(s string) string {
	_, err := ParseCalendarEvent(s)
	if err == nil {
		return ""
	}
	var ce *CalendarEventError
	if errors.As(err, &ce) {
		return ce.Problem()
	}
	return err.Error()
}

// calendarKeywords are the shortcuts of parse_calendar_event_incomplete:
// each fixes some fields to single values; weekly also sets Monday.
var calendarKeywords = map[string]func(*CalendarEvent){
	"minutely": func(e *CalendarEvent) { e.second = calSingles(0) },
	"hourly":   func(e *CalendarEvent) { e.minute, e.second = calSingles(0), calSingles(0) },
	"daily":    calMidnight,
	"weekly": func(e *CalendarEvent) {
		calMidnight(e)
		e.days = 1 // Monday
	},
	"monthly": func(e *CalendarEvent) {
		calMidnight(e)
		e.day = calSingles(1)
	},
	"yearly":   calYearly,
	"annually": calYearly,
	"quarterly": func(e *CalendarEvent) {
		calMidnight(e)
		e.day, e.month = calSingles(1), calSingles(1, 4, 7, 10)
	},
	"semiannually":  calSemiannually,
	"semi-annually": calSemiannually,
}

func calMidnight(e *CalendarEvent) {
	e.hour, e.minute, e.second = calSingles(0), calSingles(0), calSingles(0)
}

func calYearly(e *CalendarEvent) {
	calMidnight(e)
	e.day, e.month = calSingles(1), calSingles(1)
}

func calSemiannually(e *CalendarEvent) {
	calMidnight(e)
	e.day, e.month = calSingles(1), calSingles(1, 7)
}

func calSingles(vs ...uint32) []calValue {
	out := make([]calValue, len(vs))
	for i, v := range vs {
		out[i] = calValue{kind: calSingle, start: v}
	}
	return out
}

// parseCalendarText is parse_calendar_event_incomplete on a trimmed,
// non-empty text. It returns the event and the unread rest, or the parser's
// error (Event left for the caller to fill).
func parseCalendarText(i string) (CalendarEvent, string, *CalendarEventError) {
	var ev CalendarEvent
	if n, ok := strings.CutSuffix(i, "UTC"); ok {
		ev.utc = true
		i = strings.TrimRight(n, " ")
	}
	hasDays := false
	if i != "" && isASCIIAlpha(i[0]) {
		if set, ok := calendarKeywords[i]; ok {
			set(&ev)
			return ev, "", nil
		}
		days, rest, bad := calWeekdayList(i)
		if bad != "" {
			return ev, "", &CalendarEventError{At: bad, Kind: calKindWeekday}
		}
		ev.days = days
		hasDays = true
		i = skipBlanks(rest)
	}
	hasDate := false
	if y, m, d, rest, ok := calDateSpec(i); ok {
		ev.year, ev.month, ev.day = y, m, d
		hasDate = true
		i = skipBlanks(rest)
	}
	if h, m, s, rest, ok := calTimeSpec(i); ok {
		ev.hour, ev.minute, ev.second = h, m, s
		i = rest
	} else {
		if !hasDays && !hasDate {
			return ev, "", &CalendarEventError{At: i, Kind: calKindNoSpec}
		}
		calMidnight(&ev)
	}
	return ev, i, nil
}

func isASCIIAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isASCIIDigit(c byte) bool { return c >= '0' && c <= '9' }

// skipBlanks is nom's space0: spaces and tabs.
func skipBlanks(s string) string { return strings.TrimLeft(s, " \t") }

var weekdayNames = map[string]uint{
	"mon": 0, "monday": 0,
	"tue": 1, "tuesday": 1,
	"wed": 2, "wednesday": 2,
	"thu": 3, "thursday": 3,
	"fri": 4, "friday": 4,
	"sat": 5, "saturday": 5,
	"sun": 6, "sunday": 6,
}

// calWeekday reads one weekday name (week_days.rs parse_weekday). bad is
// the word when it is not a weekday; ok is false when no letter starts s.
func calWeekday(s string) (day uint, rest, bad string, ok bool) {
	n := 0
	for n < len(s) && isASCIIAlpha(s[n]) {
		n++
	}
	if n == 0 {
		return 0, s, "", false
	}
	word := s[:n]
	d, known := weekdayNames[strings.ToLower(word)]
	if !known {
		return 0, s, word, false
	}
	return d, s[n:], "", true
}

// calWeekdayRange is parse_weekdays_range: a day, or day..day where a start
// after the end wraps round through Sunday.
func calWeekdayRange(s string) (days uint8, rest, bad string, ok bool) {
	start, rest, bad, ok := calWeekday(s)
	if !ok {
		return 0, s, bad, false
	}
	if after, found := strings.CutPrefix(rest, ".."); found {
		if end, rest2, _, ok2 := calWeekday(after); ok2 {
			if start <= end {
				return daySpan(start, end), rest2, "", true
			}
			return daySpan(start, 6) | daySpan(0, end), rest2, "", true
		}
	}
	return 1 << start, rest, "", true
}

func daySpan(from, to uint) uint8 {
	var b uint8
	for d := from; d <= to; d++ {
		b |= 1 << d
	}
	return b
}

// calWeekdayList is separated_list1(",", weekday range): the first range
// must parse (else bad is the offending word); a comma not followed by a
// range ends the list before the comma.
func calWeekdayList(s string) (days uint8, rest, bad string) {
	d, rest, bad, ok := calWeekdayRange(s)
	if !ok {
		if bad == "" {
			// Unreachable: the caller saw a letter. Name the text anyway.
			bad = s
		}
		return 0, s, bad
	}
	days = d
	for {
		after, found := strings.CutPrefix(rest, ",")
		if !found {
			return days, rest, ""
		}
		d, rest2, _, ok := calWeekdayRange(after)
		if !ok {
			return days, rest, ""
		}
		days |= d
		rest = rest2
	}
}

// calNumber is parse_time_comp: decimal digits that fit a u32 and are below
// max.
func calNumber(s string, limit uint32) (uint32, string, bool) {
	n := 0
	for n < len(s) && isASCIIDigit(s[n]) {
		n++
	}
	if n == 0 {
		return 0, s, false
	}
	v, err := strconv.ParseUint(s[:n], 10, 32)
	if err != nil || uint32(v) >= limit {
		return 0, s, false
	}
	return uint32(v), s[n:], true
}

// calItem is parse_date_time_comp: N, N..M, N/R or N..M/R.
func calItem(s string, limit uint32) (calValue, string, bool) {
	v, rest, ok := calNumber(s, limit)
	if !ok {
		return calValue{}, s, false
	}
	if after, found := strings.CutPrefix(rest, ".."); found {
		if end, rest2, ok2 := calNumber(after, limit); ok2 {
			if v > end {
				return calValue{}, s, false
			}
			if r, found := strings.CutPrefix(rest2, "/"); found {
				step, rest3, ok3 := calNumber(r, limit)
				if !ok3 {
					return calValue{}, s, false
				}
				return calValue{kind: calRepeatBounded, start: v, end: end, step: step}, rest3, true
			}
			return calValue{kind: calRange, start: v, end: end}, rest2, true
		}
	}
	if r, found := strings.CutPrefix(rest, "/"); found {
		step, rest2, ok2 := calNumber(r, limit)
		if !ok2 {
			return calValue{}, s, false
		}
		return calValue{kind: calRepeat, start: v, step: step}, rest2, true
	}
	return calValue{kind: calSingle, start: v}, rest, true
}

// calList is parse_date_time_comp_list: "*" (any), "*/R" (from the field's
// first value every R; "*/0" reads as "*" and leaves "/0" unread), or
// items separated by commas.
func calList(s string, first, limit uint32) ([]calValue, string, bool) {
	if rest, found := strings.CutPrefix(s, "*"); found {
		if r, slash := strings.CutPrefix(rest, "/"); slash {
			step, rest2, ok := calNumber(r, limit)
			if !ok {
				return nil, s, false
			}
			if step > 0 {
				return []calValue{{kind: calRepeat, start: first, step: step}}, rest2, true
			}
		}
		return []calValue{}, rest, true
	}
	item, rest, ok := calItem(s, limit)
	if !ok {
		return nil, s, false
	}
	list := []calValue{item}
	for {
		after, found := strings.CutPrefix(rest, ",")
		if !found {
			return list, rest, true
		}
		item, rest2, ok := calItem(after, limit)
		if !ok {
			return list, rest, true
		}
		list = append(list, item)
		rest = rest2
	}
}

// calTimeSpec is parse_time_spec: [hours ":"] minutes [":" seconds].
func calTimeSpec(s string) (h, m, sec []calValue, rest string, ok bool) {
	i := s
	if hours, r, ok := calList(i, 0, 24); ok {
		if after, colon := strings.CutPrefix(r, ":"); colon {
			h, i = hours, after
		}
	}
	m, i, ok = calList(i, 0, 60)
	if !ok {
		return nil, nil, nil, s, false
	}
	sec = calSingles(0)
	if after, colon := strings.CutPrefix(i, ":"); colon {
		if secs, r, ok := calList(after, 0, 60); ok {
			sec, i = secs, r
		}
	}
	if h == nil {
		h = []calValue{}
	}
	return h, m, sec, i, true
}

// calDateSpec is parse_date_spec: year-month-day (years below 2200, as
// systemd), else month-day.
func calDateSpec(s string) (y, m, d []calValue, rest string, ok bool) {
	if years, r, ok := calList(s, 0, 2200); ok {
		if months, r2, ok := calDashList(r, 1, 13); ok {
			if days, r3, ok := calDashList(r2, 1, 32); ok {
				return years, months, days, r3, true
			}
		}
	}
	if months, r, ok := calList(s, 1, 13); ok {
		if days, r2, ok := calDashList(r, 1, 32); ok {
			return []calValue{}, months, days, r2, true
		}
	}
	return nil, nil, nil, s, false
}

func calDashList(s string, first, limit uint32) ([]calValue, string, bool) {
	after, found := strings.CutPrefix(s, "-")
	if !found {
		return nil, s, false
	}
	return calList(after, first, limit)
}

// contains is DateTimeValue::contains.
func (v calValue) contains(x uint32) bool {
	switch v.kind {
	case calSingle:
		return x == v.start
	case calRange:
		return x >= v.start && x <= v.end
	}
	if x < v.start {
		return false
	}
	if v.step == 0 {
		return x == v.start
	}
	if (x-v.start)%v.step != 0 {
		return false
	}
	return v.kind == calRepeat || x <= v.end
}

func calListContains(list []calValue, x uint32) bool {
	for _, v := range list {
		if v.contains(x) {
			return true
		}
	}
	return false
}

// calFindNext is DateTimeValue::find_next: the smallest value of the list
// above x.
func calFindNext(list []calValue, x uint32) (uint32, bool) {
	var best uint32
	found := false
	offer := func(n uint32) {
		if !found || n < best {
			best, found = n, true
		}
	}
	for _, v := range list {
		switch v.kind {
		case calSingle:
			if v.start > x {
				offer(v.start)
			}
		case calRange:
			if x < v.start {
				offer(v.start)
			} else if x+1 <= v.end {
				offer(x + 1)
			}
		default:
			if x < v.start {
				offer(v.start)
			} else if v.step > 0 {
				n := v.start + (x-v.start+v.step)/v.step*v.step
				if v.kind == calRepeat || n <= v.end {
					offer(n)
				}
			}
		}
	}
	return best, found
}

// Next returns the first time the event fires strictly after after (whole
// seconds), computed in UTC for a "... UTC" event and in after's location
// otherwise (PVE uses the node's local time zone). false when it never fires
// again (a past year, February 30th, ...).
func (e CalendarEvent) Next(after time.Time) (time.Time, bool) {
	return e.NextIn(after, after.Location())
}

// NextIn is Next with the local time zone given: loc is used unless the
// event is a UTC one.
//
// It follows proxmox-time calendar_event.rs compute_next_event: starting one
// second after after, fields are matched from the year down to the second;
// a field that does not match moves the time to the field's next allowed
// value (or rolls the field above) and resets the smaller fields. Like PVE
// it gives up after 1000 steps. Each move is normalised the way PVE's libc
// does it (see localMktime), daylight-saving changes included.
func (e CalendarEvent) NextIn(after time.Time, loc *time.Location) (time.Time, bool) {
	if e.utc || loc == nil {
		loc = time.UTC
	}
	c := newCalClock(after.Unix()+1, loc)
	anyDay := e.days == 0 || e.days == 0x7f
	for count := 0; count <= 1000; count++ {
		y, mo, d, h, mi, s := c.y, c.mo, c.d, c.h, c.mi, c.s
		switch {
		case len(e.year) > 0 && !calListContains(e.year, uint32(max(y, 0))):
			n, ok := calFindNext(e.year, uint32(max(y, 0)))
			if !ok {
				return time.Time{}, false
			}
			c.set(int(n), 1, 1, 0, 0, 0)
		case len(e.month) > 0 && !calListContains(e.month, uint32(mo)):
			if n, ok := calFindNext(e.month, uint32(mo)); ok {
				c.set(y, int(n), 1, 0, 0, 0)
			} else {
				c.set(y+1, 1, 1, 0, 0, 0)
			}
		case len(e.day) > 0 && !calListContains(e.day, uint32(d)):
			if n, ok := calFindNext(e.day, uint32(d)); ok {
				c.set(y, mo, int(n), 0, 0, 0)
			} else {
				c.set(y, mo+1, 1, 0, 0, 0)
			}
		case !anyDay && e.days&(1<<c.wd) == 0:
			next := 7
			for w := c.wd + 1; w < 7; w++ {
				if e.days&(1<<w) != 0 {
					next = w
					break
				}
			}
			c.set(y, mo, d+next-c.wd, 0, 0, 0)
		case len(e.hour) > 0 && !calListContains(e.hour, uint32(h)):
			if n, ok := calFindNext(e.hour, uint32(h)); ok {
				c.set(y, mo, d, int(n), 0, 0)
			} else {
				c.set(y, mo, d+1, 0, 0, 0)
			}
		case len(e.minute) > 0 && !calListContains(e.minute, uint32(mi)):
			if n, ok := calFindNext(e.minute, uint32(mi)); ok {
				c.set(y, mo, d, h, int(n), 0)
			} else {
				c.set(y, mo, d, h+1, 0, 0)
			}
		case len(e.second) > 0 && !calListContains(e.second, uint32(s)):
			if n, ok := calFindNext(e.second, uint32(s)); ok {
				c.set(y, mo, d, h, mi, int(n))
			} else {
				c.set(y, mo, d, h, mi+1, 0)
			}
		default:
			// TmEditor::into_epoch: one more mktime on the fields.
			return time.Unix(c.mktime(y, mo, d, h, mi, s), 0).In(loc), true
		}
	}
	return time.Time{}, false
}

// calClock is the broken-down time compute_next_event edits (proxmox-time
// tm_editor.rs TmEditor), with the offset guess of the libc that
// normalises it.
type calClock struct {
	loc                    *time.Location
	y, mo, d, h, mi, s, wd int // wd: Monday = 0
	guess                  int // UTC offset in seconds
}

func newCalClock(epoch int64, loc *time.Location) *calClock {
	c := &calClock{loc: loc}
	c.show(epoch)
	// PVE's result in the hour a daylight-saving change repeats depends on
	// the mktime calls its process made earlier; we take a process whose
	// last call was about the starting time.
	c.guess = c.offset(epoch)
	return c
}

func (c *calClock) offset(epoch int64) int {
	_, off := time.Unix(epoch, 0).In(c.loc).Zone()
	return off
}

func (c *calClock) show(epoch int64) {
	t := time.Unix(epoch, 0).In(c.loc)
	var mo time.Month
	c.y, mo, c.d = t.Date()
	c.mo = int(mo)
	c.h, c.mi, c.s = t.Clock()
	c.wd = (int(t.Weekday()) + 6) % 7
}

func (c *calClock) set(y, mo, d, h, mi, s int) { c.show(c.mktime(y, mo, d, h, mi, s)) }

// mktime is localMktime on the clock's zone and guess.
func (c *calClock) mktime(y, mo, d, h, mi, s int) int64 {
	epoch, off := localMktime(c.loc, y, mo, d, h, mi, s, c.guess)
	c.guess = off
	return epoch
}

// localMktime converts local calendar fields (out-of-range values carry
// over) to seconds since the epoch as glibc's mktime with tm_isdst = -1
// does (time/mktime.c): the search starts from the offset guess (the
// offset of glibc's previous result) and applies the offset it finds until
// the time stands still. A local time that exists twice is the one this
// meets first; one that does not exist (skipped when daylight saving time
// starts) makes the search swing between two times, and glibc returns the
// one in daylight saving time. It returns the time and its offset.
func localMktime(loc *time.Location, y, mo, d, h, mi, s, guess int) (int64, int) {
	wall := time.Date(y, time.Month(mo), d, h, mi, s, 0, time.UTC).Unix()
	zoneAt := func(epoch int64) (int, bool) {
		t := time.Unix(epoch, 0).In(loc)
		_, off := t.Zone()
		return off, t.IsDST()
	}
	seen := []int64{wall - int64(guess)}
	for range 8 {
		cur := seen[len(seen)-1]
		off, _ := zoneAt(cur)
		next := wall - int64(off)
		if next == cur {
			return cur, off
		}
		if len(seen) >= 2 && next == seen[len(seen)-2] {
			// Swinging: prefer the side in daylight saving time.
			if _, dst := zoneAt(cur); !dst {
				if _, nextDST := zoneAt(next); nextDST {
					cur = next
				}
			}
			off, _ = zoneAt(cur)
			return cur, off
		}
		seen = append(seen, next)
	}
	last := seen[len(seen)-1]
	off, _ := zoneAt(last)
	return last, off
}
