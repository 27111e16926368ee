package pveapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// PVE serialises Perl scalars, so the same key may arrive as a JSON number
// on one call and as a string on the next, and booleans arrive as 0/1 (W5).
// The types below accept every shape PVE has been seen to use, so the
// typed structs never fail on a representation change.

var jsonNull = []byte("null")

// IntOrString is an integer that PVE may send as a JSON number or a string.
// null and "" decode to 0.
type IntOrString int64

// UnmarshalJSON implements json.Unmarshaler.
func (v *IntOrString) UnmarshalJSON(data []byte) error {
	raw, isString, err := scalarText(data)
	if err != nil {
		return fmt.Errorf("integer: %w", err)
	}
	if raw == "" {
		*v = 0
		return nil
	}
	if n, err := strconv.ParseInt(raw, 10, 64); err == nil {
		*v = IntOrString(n)
		return nil
	}
	// Perl occasionally prints integral values in float form ("2.0", 1e3).
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil || f != math.Trunc(f) || math.IsInf(f, 0) || math.Abs(f) > math.MaxInt64 {
		return fmt.Errorf("integer: cannot decode %s (string=%t)", truncateForError(raw), isString)
	}
	*v = IntOrString(int64(f))
	return nil
}

// Int returns the value as an int.
func (v IntOrString) Int() int { return int(v) }

// FloatOrString is a number that PVE may send as a JSON number or a string.
// null and "" decode to 0.
type FloatOrString float64

// UnmarshalJSON implements json.Unmarshaler.
func (v *FloatOrString) UnmarshalJSON(data []byte) error {
	raw, _, err := scalarText(data)
	if err != nil {
		return fmt.Errorf("number: %w", err)
	}
	if raw == "" {
		*v = 0
		return nil
	}
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil {
		return fmt.Errorf("number: cannot decode %s", truncateForError(raw))
	}
	*v = FloatOrString(f)
	return nil
}

// Bool01 is a boolean that PVE sends as 0/1, "0"/"1" or, rarely, a JSON
// boolean (W5, W6). Property-string spellings (on/off, yes/no, true/false)
// are accepted too. null and "" decode to false.
type Bool01 bool

// UnmarshalJSON implements json.Unmarshaler.
func (v *Bool01) UnmarshalJSON(data []byte) error {
	trimmed := bytes.TrimSpace(data)
	switch string(trimmed) {
	case "true":
		*v = true
		return nil
	case "false":
		*v = false
		return nil
	}
	raw, _, err := scalarText(data)
	if err != nil {
		return fmt.Errorf("boolean: %w", err)
	}
	b, ok := ParseBool(raw)
	if !ok && raw != "" {
		return fmt.Errorf("boolean: cannot decode %s", truncateForError(raw))
	}
	*v = Bool01(b)
	return nil
}

// ParseBool reads a PVE boolean in any of the spellings PVE accepts inside
// property strings. The empty string is false and not ok.
func ParseBool(s string) (value, ok bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "on", "yes", "true":
		return true, true
	case "0", "off", "no", "false":
		return false, true
	}
	if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
		return f != 0, true
	}
	return false, false
}

// StringOrNumber is a string that PVE may send as a JSON number when the
// text looks numeric (a guest named "1234", a tag "2024"). Numbers keep
// their JSON spelling; booleans become "1"/"0"; null becomes "".
type StringOrNumber string

// UnmarshalJSON implements json.Unmarshaler.
func (v *StringOrNumber) UnmarshalJSON(data []byte) error {
	trimmed := bytes.TrimSpace(data)
	switch string(trimmed) {
	case "true":
		*v = "1"
		return nil
	case "false":
		*v = "0"
		return nil
	}
	raw, _, err := scalarText(data)
	if err != nil {
		return fmt.Errorf("string: %w", err)
	}
	*v = StringOrNumber(raw)
	return nil
}

// String returns the value.
func (v StringOrNumber) String() string { return string(v) }

// scalarText returns the text of a JSON string or number; null gives "".
func scalarText(data []byte) (text string, isString bool, err error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || bytes.Equal(trimmed, jsonNull) {
		return "", false, nil
	}
	switch trimmed[0] {
	case '"':
		var s string
		if err := json.Unmarshal(trimmed, &s); err != nil {
			return "", true, err
		}
		return strings.TrimSpace(s), true, nil
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		var n json.Number
		if err := json.Unmarshal(trimmed, &n); err != nil {
			return "", false, err
		}
		return n.String(), false, nil
	}
	return "", false, fmt.Errorf("unexpected JSON value %s", truncateForError(string(trimmed)))
}

func truncateForError(s string) string {
	const limit = 40
	if len(s) > limit {
		s = s[:limit] + "..."
	}
	return strconv.Quote(s)
}
