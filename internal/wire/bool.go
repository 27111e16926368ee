package wire

import (
	"fmt"
	"strings"
)

// Bool prints a boolean the only way PVE accepts it as a top-level parameter
// (W6): "1" or "0".
func Bool(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// ParseBool reads a top-level boolean parameter value. PVE accepts exactly "1"
// and "0" there (W6); anything else fails with PVE's text
// "type check ('boolean') failed - got 'V'".
func ParseBool(s string) (bool, error) {
	switch s {
	case "1":
		return true, nil
	case "0":
		return false, nil
	}
	return false, fmt.Errorf("type check ('boolean') failed - got '%s'", s)
}

// ParsePropertyBool reads a boolean inside a property string, where PVE also
// accepts, case-insensitively, on/yes/true and off/no/false (W6).
func ParsePropertyBool(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "1", "on", "yes", "true":
		return true, nil
	case "0", "off", "no", "false":
		return false, nil
	}
	return false, fmt.Errorf("type check ('boolean') failed - got '%s'", s)
}
