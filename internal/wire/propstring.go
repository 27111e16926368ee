package wire

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// Error texts of PVE's property-string parser (pve-common JSONSchema.pm,
// parse_property_string), reproduced verbatim.
const (
	msgDuplicateKey = "duplicate key in comma-separated list property: "
	msgInvalidKey   = "invalid key in comma-separated list property: "
	msgMissingKey   = "missing key in comma-separated list property"
	msgNoDefaultKey = "value without key, but schema does not define a default key"
)

// ErrNoDefaultKey is PVE's error for a bare value (a part without "=")
// where no default key is given.
var ErrNoDefaultKey = errors.New(msgNoDefaultKey)

// ErrUnrepresentable marks a key or value that no property string can carry:
// PVE would split it differently from what was meant.
var ErrUnrepresentable = errors.New("not representable in a property string")

// ParsePropertyString parses a PVE property string such as
// "virtio=BC:24:11:2A:3B:4C,bridge=vmbr0,firewall=1" the way PVE does:
// parts are separated by ",", blank parts are skipped, "k=v" sets k (split on
// the first "="), and a part without "=" is the value of defaultKey.
//
// Errors mirror PVE's texts: a repeated key (or a second bare value) is
// "duplicate key in comma-separated list property: K"; a bare value when
// defaultKey is "" is "value without key, but schema does not define a default
// key"; a part with "=" but an empty key or an empty value is "missing key in
// comma-separated list property" (PVE's regex needs one character on each
// side and does not read a value across a newline); a key holding a newline is
// "invalid key in comma-separated list property: K", as no PVE schema has one.
//
// Keys are not checked against any schema here; see CheckPropertyKeys.
func ParsePropertyString(s, defaultKey string) (map[string]string, error) {
	result := make(map[string]string)
	for _, part := range strings.Split(s, ",") {
		if isBlank(part) {
			continue
		}
		key, value, hasEquals := strings.Cut(part, "=")
		if !hasEquals {
			if defaultKey == "" {
				return nil, ErrNoDefaultKey
			}
			if _, taken := result[defaultKey]; taken {
				return nil, errors.New(msgDuplicateKey + defaultKey)
			}
			result[defaultKey] = part
			continue
		}
		// PVE matches /^([^=]+)=(.+)$/: both sides non-empty, and "." does
		// not cross a newline.
		if key == "" || value == "" || strings.Contains(value, "\n") {
			return nil, errors.New(msgMissingKey)
		}
		if strings.Contains(key, "\n") {
			return nil, errors.New(msgInvalidKey + key)
		}
		if _, taken := result[key]; taken {
			return nil, errors.New(msgDuplicateKey + key)
		}
		result[key] = value
	}
	return result, nil
}

// CheckPropertyKeys reports the first key of m (in sorted order) that is not
// among allowed, with PVE's text "invalid key in comma-separated list
// property: K".
func CheckPropertyKeys(m map[string]string, allowed ...string) error {
	known := make(map[string]bool, len(allowed))
	for _, k := range allowed {
		known[k] = true
	}
	for _, k := range sortedKeys(m) {
		if !known[k] {
			return errors.New(msgInvalidKey + k)
		}
	}
	return nil
}

// CheckPropertyKey reports whether key can be written as "key=value" and read
// back as the same key.
func CheckPropertyKey(key string) error {
	switch {
	case key == "":
		return fmt.Errorf("empty key: %w", ErrUnrepresentable)
	case strings.ContainsAny(key, ",=\n"):
		return fmt.Errorf("key %q contains ',', '=' or a newline: %w", key, ErrUnrepresentable)
	case isBlank(key):
		return fmt.Errorf("key %q is blank: %w", key, ErrUnrepresentable)
	}
	return nil
}

// CheckPropertyValue reports whether value can be carried in a property
// string. A comma would split it, PVE's parser does not accept an empty value,
// and it does not read a value across a newline.
func CheckPropertyValue(value string) error {
	switch {
	case value == "":
		return fmt.Errorf("empty value: %w", ErrUnrepresentable)
	case strings.ContainsAny(value, ",\n"):
		return fmt.Errorf("value %q contains ',' or a newline: %w", value, ErrUnrepresentable)
	}
	return nil
}

// ValidatePropertyMap checks every key and value of m with CheckPropertyKey
// and CheckPropertyValue, in sorted key order, naming the key at fault.
func ValidatePropertyMap(m map[string]string) error {
	for _, k := range sortedKeys(m) {
		if err := CheckPropertyKey(k); err != nil {
			return err
		}
		if err := CheckPropertyValue(m[k]); err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
	}
	return nil
}

// FormatPropertyString prints m deterministically: the value of defaultKey
// first as a bare value, then the other keys sorted, as "k=v". The default
// key's value is written as "defaultKey=value" instead when a bare value would
// be misread (it contains "=" or is blank).
//
// FormatPropertyString does not check its input: a value holding a "," would
// come back as two parts. Callers with values they do not control use
// EncodePropertyString, which refuses such maps. For every map that passes
// ValidatePropertyMap, ParsePropertyString(FormatPropertyString(m, k), k)
// returns m.
func FormatPropertyString(m map[string]string, defaultKey string) string {
	return FormatPropertyStringOrdered(m, defaultKey, nil)
}

// FormatPropertyStringOrdered is FormatPropertyString with a preferred key
// order: after the default key come the keys of order that are present in m,
// in that order, then the remaining keys sorted. It keeps PVE's own order
// where a reader expects it (for example "virtio=MAC,bridge=vmbr0").
func FormatPropertyStringOrdered(m map[string]string, defaultKey string, order []string) string {
	parts := make([]string, 0, len(m))
	written := make(map[string]bool, len(m))
	if v, ok := m[defaultKey]; ok && defaultKey != "" {
		if strings.Contains(v, "=") || isBlank(v) {
			parts = append(parts, defaultKey+"="+v)
		} else {
			parts = append(parts, v)
		}
		written[defaultKey] = true
	}
	for _, k := range order {
		if v, ok := m[k]; ok && !written[k] {
			parts = append(parts, k+"="+v)
			written[k] = true
		}
	}
	for _, k := range sortedKeys(m) {
		if !written[k] {
			parts = append(parts, k+"="+m[k])
		}
	}
	return strings.Join(parts, ",")
}

// EncodePropertyString validates m with ValidatePropertyMap and formats it
// with FormatPropertyString.
func EncodePropertyString(m map[string]string, defaultKey string) (string, error) {
	if err := ValidatePropertyMap(m); err != nil {
		return "", err
	}
	return FormatPropertyString(m, defaultKey), nil
}

// isBlank mirrors Perl's /^\s*$/ on the decoded value PVE works on: Unicode
// white space (NBSP included).
func isBlank(s string) bool {
	return strings.TrimFunc(s, unicode.IsSpace) == ""
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
