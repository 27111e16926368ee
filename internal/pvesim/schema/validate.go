package schema

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// errorSet collects messages per parameter path like PVE's add_error: a
// second message for the same path is appended after a literal backslash-n
// (Perl's join('\n', ...) in single quotes).
type errorSet map[string]string

func (e errorSet) add(path, msg string) {
	if path == "" {
		path = "_root"
	}
	if old, ok := e[path]; ok && old != "" {
		e[path] = old + `\n` + msg
		return
	}
	e[path] = msg
}

// requiredByPVE9 is PVE 9's text for a property another one requires.
var requiredByPVE9 = regexp.MustCompile(`missing property required by '([^']*)'`)

// inPVE8Wording rewrites the messages into PVE 8's pve-common wording of the
// same check, "missing property - 'X' requires this property" (pve-common
// src/PVE/JSONSchema.pm check_object before 0f0e791, "schema: clarify error
// on missing property dependency", pve-common 9.0.8).
func (e errorSet) inPVE8Wording() {
	for k, msg := range e {
		e[k] = requiredByPVE9.ReplaceAllString(msg, "missing property - '$1' requires this property")
	}
}

// value is one parameter value: a scalar, or a list (PVE's ARRAY reference:
// a JSON array, or the wrapped value of an array parameter).
type value struct {
	scalar string
	list   []string
	isList bool
}

func scalarValue(s string) *value { return &value{scalar: s} }

// normalizeParams turns the request into PVE's parameter hash.
//
// A key with several values is an array reference, for form data as for a
// JSON body: pve-http-server src/PVE/APIServer/AnyEvent.pm
// decode_urlencoded pushes the values of a repeated key onto an array
// (its comment still speaks of CGI.pm's NUL-separated strings, which the
// code no longer builds), and decode_json gives JSON arrays.
//
// Then RESTHandler's legacy normalisation runs on the top-level values
// (pve-common src/PVE/RESTHandler.pm normalize_legacy_param_formats): an
// array for a string parameter with a "-list" format is joined with
// commas, and a Perl-true scalar for an array parameter becomes a
// one-element list. An array for any other parameter stays an array, which
// check_type refuses ("type check ('string') failed - got ARRAY",
// pve-common src/PVE/JSONSchema.pm check_type).
//
// "_dc" (a cache buster) is dropped: PVE's HTTP server removes it.
func normalizeParams(d *methodDef, params map[string][]string) map[string]*value {
	out := make(map[string]*value, len(params))
	for k, vals := range params {
		if len(vals) == 0 || k == "_dc" {
			continue
		}
		s := d.param(k)
		if len(vals) > 1 {
			if isListFormat(s) {
				out[k] = scalarValue(strings.Join(vals, ","))
			} else {
				out[k] = &value{list: append([]string(nil), vals...), isList: true}
			}
			continue
		}
		if s != nil && s.Type == "array" && perlTruthy(vals[0]) {
			out[k] = &value{list: []string{vals[0]}, isList: true}
			continue
		}
		out[k] = scalarValue(vals[0])
	}
	return out
}

// isListFormat tells whether a parameter is a string with a "-list" format,
// whose array value normalize_legacy_param_formats joins with commas.
func isListFormat(s *schemaNode) bool {
	return s != nil && s.Type == "string" && strings.HasSuffix(s.FormatName, "-list")
}

// JoinedValue is the value a handler sees for a parameter given several
// times: joined with commas for a string parameter with a "-list" format
// (normalize_legacy_param_formats), else NUL-joined, the simulator's
// spelling of the array its handlers split (an array parameter's items).
// pve-common src/PVE/RESTHandler.pm normalize_legacy_param_formats
func (m *Method) JoinedValue(name string, vals []string) string {
	if isListFormat(m.def.param(name)) {
		return strings.Join(vals, ",")
	}
	return strings.Join(vals, "\x00")
}

// perlTruthy is Perl's truth for a string: everything but "" and "0".
func perlTruthy(s string) bool { return s != "" && s != "0" }

// objectSpec is what check_object needs: the property schemas, whether
// unknown keys are errors, and an optional schema for unknown keys. method is
// set for a method's top-level parameters, whose indexed names it resolves.
type objectSpec struct {
	props  map[string]*schemaNode
	method *methodDef
	closed bool
	extra  *schemaNode
}

func (o objectSpec) property(key string) *schemaNode {
	if o.method != nil {
		return o.method.param(key)
	}
	return o.props[key]
}

// checkObject mirrors PVE::JSONSchema::check_object. In the first pass
// every key writes to its own path, so map order does not matter; the second
// pass can add several messages to one path and runs in sorted key order so
// that joined messages come out the same every time (PVE's own order is
// Perl's hash order).
func checkObject(path string, o objectSpec, values map[string]*value, errs errorSet) {
	for k, s := range o.props {
		if o.method != nil && strings.HasSuffix(k, "[n]") {
			continue // indexed entries are all optional: only present ones matter
		}
		instanceType, hasType := instanceTypeOf(s, values)
		checkProp(values[k], s, joinPath(path, k), errs, instanceType, hasType)
	}
	valueKeys := sortedKeys(values)
	if o.method != nil {
		for _, k := range valueKeys {
			if _, direct := o.props[k]; direct {
				continue
			}
			if s := o.method.param(k); s != nil {
				instanceType, hasType := instanceTypeOf(s, values)
				checkProp(values[k], s, joinPath(path, k), errs, instanceType, hasType)
			}
		}
	}

	for _, k := range valueKeys {
		newPath := joinPath(path, k)
		if s := o.property(k); s != nil {
			if s.Requires != "" {
				if _, ok := values[s.Requires]; !ok {
					// pve-common src/PVE/JSONSchema.pm check_object, worded
					// as since pve-common 9.0.8 (0f0e791, PVE 9.0);
					// inPVE8Wording gives PVE 8's text.
					errs.add(joinPath(path, s.Requires), "missing property required by '"+newPath+"'")
				}
			}
			if !oneOfMismatch(s, values) {
				continue // already checked above
			}
		}
		if o.closed {
			errs.add(newPath, "property is not defined in schema and the schema does not allow additional properties")
			continue
		}
		if o.extra != nil {
			checkProp(values[k], o.extra, newPath, errs, "", false)
		}
	}
}

// instanceTypeOf reads the value of the property a schema's type-property
// names (SDN fabrics select per-protocol variants this way).
func instanceTypeOf(s *schemaNode, values map[string]*value) (string, bool) {
	if s == nil || s.TypeProperty == "" {
		return "", false
	}
	v, ok := values[s.TypeProperty]
	if !ok {
		return "", false
	}
	if v.isList {
		return "ARRAY", true // a Perl list reference never equals a type name
	}
	return v.scalar, true
}

// oneOfMismatch reports a oneOf property whose variants all exclude the
// request's instance type; PVE then treats the key as not in the schema.
func oneOfMismatch(s *schemaNode, values map[string]*value) bool {
	if len(s.OneOf) == 0 {
		return false
	}
	instanceType, hasType := instanceTypeOf(s, values)
	for _, alt := range s.OneOf {
		if alt.InstanceTypes == nil {
			return false
		}
		if hasType && contains(alt.InstanceTypes, instanceType) {
			return false
		}
	}
	return true
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// checkProp mirrors PVE::JSONSchema::check_prop. v is nil when the property
// is absent.
func checkProp(v *value, s *schemaNode, path string, errs errorSet, instanceType string, hasType bool) {
	optionalForType := false
	if len(s.OneOf) > 0 {
		optionalForType = true
		for _, alt := range s.OneOf {
			if !hasType || !perlTruthy(instanceType) {
				break // without a type PVE treats the property as optional
			}
			if alt.InstanceTypes == nil {
				errs.add(path, "missing 'instance-types' in oneOf alternative")
				return
			}
			if !contains(alt.InstanceTypes, instanceType) {
				continue
			}
			optionalForType = alt.Optional
			checkProp(v, alt, path, errs, "", false)
		}
	} else if hasType && perlTruthy(instanceType) && s.InstanceTypes == nil {
		errs.add(path, "missing 'instance-types'")
		return
	}

	if v == nil {
		if s.Type == "null" {
			return
		}
		if !s.Optional && s.Alias == "" && !optionalForType {
			errs.add(path, "property is missing and it is not optional")
		}
		return
	}

	if !checkType(path, s.Type, v, errs) {
		return
	}

	if v.isList {
		if s.Items != nil {
			for i, el := range v.list {
				checkProp(scalarValue(el), s.Items, path+"["+strconv.Itoa(i)+"]", errs, "", false)
			}
		}
		return
	}
	checkScalar(v.scalar, s, path, errs)
}

// checkType mirrors check_type for the values a form request can carry.
func checkType(path, typ string, v *value, errs errorSet) bool {
	switch typ {
	case "", "any":
		return true
	case "null":
		errs.add(path, "type check ('null') failed - value is not null")
		return false
	case "array":
		if !v.isList {
			errs.add(path, "type check ('array') failed")
			return false
		}
		return true
	case "object", "coderef":
		errs.add(path, "type check ('"+typ+"') failed")
		return false
	}
	if v.isList {
		errs.add(path, "type check ('"+typ+"') failed - got ARRAY")
		return false
	}
	ok := true
	switch typ {
	case "boolean":
		ok = v.scalar == "1" || v.scalar == "0"
	case "integer":
		ok = integerRE.MatchString(v.scalar)
	case "number":
		ok = isNumber(v.scalar)
	}
	if !ok {
		errs.add(path, "type check ('"+typ+"') failed - got '"+v.scalar+"'")
	}
	return ok
}

var (
	integerRE = regexp.MustCompile(`^[+-]?\d+$`)
	numberRE  = regexp.MustCompile(`^[+-]?(\d+\.\d+|\d+\.|\.\d+|\d+)([eE][+-]?\d+)?$`)
)

func isNumber(s string) bool { return numberRE.MatchString(s) }

// checkScalar runs the value checks in PVE's order; the first failure ends
// them.
func checkScalar(val string, s *schemaNode, path string, errs errorSet) {
	if s.FormatName != "" || s.FormatProps != nil {
		if msg := checkFormat(s, val, path); msg != "" {
			errs.add(path, "invalid format - "+msg)
			return
		}
	}
	if s.Pattern != "" && !s.patternMatches(val) {
		errs.add(path, "value does not match the regex pattern")
		return
	}
	length := utf8.RuneCountInString(val)
	if s.MaxLength != nil && length > *s.MaxLength {
		errs.add(path, "value may only be "+strconv.Itoa(*s.MaxLength)+" characters long")
		return
	}
	if s.MinLength != nil && length < *s.MinLength {
		errs.add(path, "value must be at least "+strconv.Itoa(*s.MinLength)+" characters long")
		return
	}
	if isNumber(val) {
		n, _ := strconv.ParseFloat(val, 64)
		if s.Maximum != "" {
			if limit, _ := strconv.ParseFloat(s.Maximum, 64); n > limit {
				errs.add(path, "value must have a maximum value of "+s.Maximum)
				return
			}
		}
		if s.Minimum != "" {
			if limit, _ := strconv.ParseFloat(s.Minimum, 64); n < limit {
				errs.add(path, "value must have a minimum value of "+s.Minimum)
				return
			}
		}
	}
	if s.Enum != nil && !contains(s.Enum, val) {
		errs.add(path, "value '"+val+"' does not have a value in the enumeration '"+strings.Join(s.Enum, ", ")+"'")
	}
}

// patternMatches applies PVE's m/^PATTERN$/. The pattern is wrapped in a
// group (PVE does not, which lets a top-level '|' escape the anchors) and
// '$' is Go's end of text (Perl's also allows a final newline): both only
// reject more, never less.
func (s *schemaNode) patternMatches(val string) bool {
	if !anchoredRegexp(s.Pattern).MatchString(val) {
		return false
	}
	if len(s.PatternLen) == 2 {
		n := utf8.RuneCountInString(val)
		return n >= s.PatternLen[0] && n <= s.PatternLen[1]
	}
	return true
}

var regexCache sync.Map // pattern source -> *regexp.Regexp

// cachedRegexp compiles a regular expression once. Sources come from the
// generated tables, which the generator has already compiled, so a failure
// here means corrupt tables.
func cachedRegexp(src string) *regexp.Regexp {
	if re, ok := regexCache.Load(src); ok {
		return re.(*regexp.Regexp)
	}
	re := regexp.MustCompile(src)
	regexCache.Store(src, re)
	return re
}

func anchoredRegexp(pattern string) *regexp.Regexp {
	return cachedRegexp(`^(?:` + pattern + `)$`)
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
