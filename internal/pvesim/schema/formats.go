package schema

import (
	"regexp"
	"sort"
	"strings"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
)

// checkFormat mirrors PVE::JSONSchema::check_format. It returns "" when the
// value passes, else the die message ($@) that check_prop puts after
// "invalid format - "; like PVE's, it ends with a newline.
func checkFormat(s *schemaNode, val, path string) string {
	if s.FormatProps != nil {
		_, msg := checkPropertyString(s.FormatProps, nil, val, path)
		return msg
	}
	return checkNamedFormat(s.FormatName, val, path)
}

func checkNamedFormat(name, val, path string) string {
	if name == "regex" {
		return ""
	}
	t := load()
	base, suffix := splitFormatName(name)
	if hf, ok := t.HashFormats[base]; ok {
		if suffix != "" {
			return "'-" + suffix + "' format must have code ref, not hash\n"
		}
		_, msg := checkPropertyString(hf.Properties, hashValidators[base], val, path)
		return msg
	}
	if _, ok := t.Verifiers[base]; !ok {
		return "undefined format '" + name + "'\n"
	}
	verify := verifierFunc(base)
	if verify == nil {
		return "" // registered in PVE, checked by code not mirrored here
	}
	switch suffix {
	case "list":
		for _, item := range SplitList(val) {
			if msg := verify(item); msg != "" {
				return msg
			}
		}
		return ""
	case "opt":
		if !perlTruthy(val) {
			return ""
		}
	}
	return verify(val)
}

// SplitList is PVE::Tools::split_list, as pvegrammar.SplitList reads it.
func SplitList(s string) []string { return pvegrammar.SplitList(s) }

// isPerlSpace is Perl's \s on a decoded value (pvegrammar.IsPerlSpace):
// Unicode white space.
func isPerlSpace(r rune) bool { return pvegrammar.IsPerlSpace(r) }

// perlSplit is Perl's split on a fixed separator: trailing empty fields are
// dropped.
func perlSplit(s, sep string) []string {
	parts := strings.Split(s, sep)
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// verifyFunc checks one value of a code-checked format and returns PVE's die
// message (with its trailing newline) or "".
type verifyFunc func(string) string

// verifierFunc returns the check for a named code format: a hand-written
// port where PVE's code does more than one regex, else the regex and error
// text of the schema supplement, else nil.
func verifierFunc(name string) verifyFunc {
	if f, ok := handVerifiers[name]; ok {
		return f
	}
	v, ok := load().Verifiers[name]
	if !ok || v.Regex == "" || !simpleErrorText(v.Error) {
		return nil
	}
	re, errText := v.Regex, v.Error
	return func(val string) string {
		if cachedRegexp(re).MatchString(val) {
			return ""
		}
		return strings.ReplaceAll(errText, "{value}", val) + "\n"
	}
}

// simpleErrorText tells whether an error text of the supplement is one
// message whose only placeholder is {value}; alternatives joined by " | " or
// other placeholders need a hand-written check.
func simpleErrorText(text string) bool {
	if text == "" || strings.Contains(text, " | ") {
		return false
	}
	return !strings.Contains(strings.ReplaceAll(text, "{value}", ""), "{")
}

// namedRegexp returns the compiled regex of a format from the supplement.
func namedRegexp(name string) *regexp.Regexp {
	v, ok := load().Verifiers[name]
	if !ok || v.Regex == "" {
		panic("schema: tables lack the regex of format " + name)
	}
	return cachedRegexp(v.Regex)
}

func matchesFormat(name, val string) bool { return namedRegexp(name).MatchString(val) }

// checkPropertyString mirrors parse_property_string followed by its
// check_object and the format's validator, if any. It returns the parsed
// keys, or the die message.
func checkPropertyString(props map[string]*schemaNode, validate func(map[string]string) string, data, path string) (map[string]string, string) {
	res, msg := parsePropertyString(props, data)
	if msg != "" {
		return nil, msg
	}
	values := make(map[string]*value, len(res))
	for k, v := range res {
		values[k] = scalarValue(v)
	}
	errs := errorSet{}
	checkObject(path, objectSpec{props: props, closed: true}, values, errs)
	if len(errs) > 0 {
		// PVE raises "format error" with the errors attached; the exception
		// stringifies as the message plus one "path: text" line per error.
		var b strings.Builder
		b.WriteString("format error\n")
		keys := make([]string, 0, len(errs))
		for k := range errs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			b.WriteString(k + ": " + errs[k] + "\n")
		}
		return nil, b.String()
	}
	if validate != nil {
		if msg := validate(res); msg != "" {
			return nil, msg
		}
	}
	return res, ""
}

// keyValuePart is parse_property_string's /^([^=]+)=(.+)$/: Perl's "." does
// not match a newline and its "$" also matches before one final newline, so
// "k=v\n" is k=v while "k=v\n\n" is no key-value part.
var keyValuePart = regexp.MustCompile(`^([^=]+)=([^\n]+)\n?$`)

// parsePropertyString splits "k=v,..." the way parse_property_string does,
// before any per-key check.
func parsePropertyString(props map[string]*schemaNode, data string) (map[string]string, string) {
	res := map[string]string{}
	defaultKey := ""
	for _, part := range perlSplit(data, ",") {
		if strings.TrimFunc(part, isPerlSpace) == "" {
			continue
		}
		if m := keyValuePart.FindStringSubmatch(part); m != nil {
			k, v := m[1], m[2]
			if _, dup := res[k]; dup {
				return nil, "duplicate key in comma-separated list property: " + k + "\n"
			}
			s := props[k]
			if s != nil && s.Alias != "" {
				if s.KeyAlias != "" {
					if _, dup := res[s.KeyAlias]; dup {
						return nil, "key alias '" + s.KeyAlias + "' is already defined\n"
					}
					res[s.KeyAlias] = k
				}
				k = s.Alias
				s = props[k]
				if _, dup := res[k]; dup {
					return nil, "key '" + k + "' is already defined (via alias)\n"
				}
			}
			if s == nil {
				return nil, "invalid key in comma-separated list property: " + k + "\n"
			}
			if s.Type == "boolean" {
				v = normalizeBoolean(v)
			}
			res[k] = v
			continue
		}
		if strings.Contains(part, "=") {
			return nil, "missing key in comma-separated list property\n"
		}
		if defaultKey != "" {
			return nil, "duplicate key in comma-separated list property: " + defaultKey + "\n"
		}
		defaultKey = findDefaultKey(props)
		if defaultKey == "" {
			return nil, "value without key, but schema does not define a default key\n"
		}
		if perlTruthy(res[defaultKey]) {
			return nil, "duplicate key in comma-separated list property: " + defaultKey + "\n"
		}
		// The default key's value is stored as given: booleans are not
		// normalised on this path.
		res[defaultKey] = part
	}
	return res, ""
}

func findDefaultKey(props map[string]*schemaNode) string {
	for k, s := range props {
		if s.DefaultKey {
			return k // the generator guarantees at most one
		}
	}
	return ""
}

// normalizeBoolean is parse_boolean($v) // $v.
func normalizeBoolean(v string) string {
	switch strings.ToLower(v) {
	case "1", "on", "yes", "true":
		return "1"
	case "0", "off", "no", "false":
		return "0"
	}
	return v
}

// PropertyString parses and checks a property-string parameter of the
// method (for example net0 or scsi0) the way PVE does before storing it:
// aliases are resolved and booleans normalised to 1/0. The error is PVE's
// message without the "invalid format - " prefix.
func (m *Method) PropertyString(param, val string) (map[string]string, string) {
	t := load()
	s := m.def.param(param)
	if s == nil {
		return nil, "property is not defined in schema and the schema does not allow additional properties"
	}
	if s.FormatProps != nil {
		return checkPropertyString(s.FormatProps, nil, val, param)
	}
	if hf, ok := t.HashFormats[s.FormatName]; ok {
		return checkPropertyString(hf.Properties, hashValidators[s.FormatName], val, param)
	}
	return nil, "parameter " + param + " is not a property string"
}
