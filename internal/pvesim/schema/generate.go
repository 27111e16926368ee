package schema

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Generate turns PVE's schema dump (apidoc.json) and its supplement of named
// formats (formats.json) into the tables this package embeds. unchecked
// names formats the dump uses that the supplement lacks
// (TableSet.Unchecked); they are registered without a check. The result is
// deterministic JSON; write it with Compress.
func Generate(apidoc, formats []byte, unchecked ...string) ([]byte, error) {
	g := &generator{}
	t, err := g.build(apidoc, formats, unchecked)
	if err != nil {
		return nil, err
	}
	out, err := json.Marshal(t)
	if err != nil {
		return nil, fmt.Errorf("encode tables: %w", err)
	}
	return append(out, '\n'), nil
}

// Compress gzips generated tables. The header carries no name or time, so
// equal input gives equal output.
func Compress(raw []byte) ([]byte, error) {
	var buf bytes.Buffer
	w, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(raw); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Decompress is the inverse of Compress.
func Decompress(gz []byte) ([]byte, error) { return gunzip(gz) }

// indexRanges gives the highest index of every collapsed "name[n]" parameter.
// The dump writes net0..net31 as one entry and does not say where the range
// ends; these limits come from qemu-server 9.1.10, pve-container 6.1.6,
// pve-manager and pve-cluster.
var indexRanges = func() map[string]map[string]int {
	qemu := map[string]int{
		"net": 31, "ipconfig": 31, "scsi": 30, "virtio": 15, "sata": 5, "ide": 3,
		"unused": 255, "usb": 13, "hostpci": 15, "serial": 3, "parallel": 2,
		"numa": 7, "virtiofs": 9,
	}
	lxc := map[string]int{"net": 31, "mp": 255, "unused": 255, "dev": 255}
	link := map[string]int{"link": 7}
	return map[string]map[string]int{
		"/nodes/{node}/qemu":               qemu,
		"/nodes/{node}/qemu/{vmid}/config": qemu,
		"/nodes/{node}/lxc":                lxc,
		"/nodes/{node}/lxc/{vmid}/config":  lxc,
		"/nodes/{node}/config":             {"acmedomain": 5},
		"/cluster/config":                  link,
		"/cluster/config/nodes/{node}":     link,
		"/cluster/config/join":             link,
	}
}()

// docOnlyKeys are schema keys that PVE's validation never reads. "min" and
// "max" are misspellings of minimum/maximum in a few PVE schemas; PVE ignores
// them, so the tables do too.
var docOnlyKeys = map[string]bool{
	"description": true, "verbose_description": true, "typetext": true, "title": true,
	"format_description": true, "default": true, "renderer": true, "links": true,
	"print_width": true, "completion": true, "min": true, "max": true,
}

type generator struct {
	formatRefs map[string]string // format name -> where it is first used
}

type apiNode struct {
	Path     string                     `json:"path"`
	Children []*apiNode                 `json:"children"`
	Info     map[string]json.RawMessage `json:"info"`
}

type apiMethod struct {
	Name       string         `json:"name"`
	Method     string         `json:"method"`
	Protected  any            `json:"protected"`
	ProxyTo    string         `json:"proxyto"`
	AllowToken any            `json:"allowtoken"`
	Parameters map[string]any `json:"parameters"`
}

type formatsFile struct {
	HashFormats map[string]struct {
		Properties map[string]any `json:"properties"`
	} `json:"hash_formats"`
	VerifierFormats map[string]struct {
		Regex string `json:"regex"`
		Error string `json:"error"`
	} `json:"verifier_formats"`
	VMSafeCPUFlags []string `json:"vm_safe_cpu_flags"`
}

func decodeJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}

func (g *generator) build(apidoc, formats []byte, unchecked []string) (*tables, error) {
	g.formatRefs = map[string]string{}
	var roots []*apiNode
	if err := decodeJSON(apidoc, &roots); err != nil {
		return nil, fmt.Errorf("apidoc: %w", err)
	}
	var ff formatsFile
	if err := decodeJSON(formats, &ff); err != nil {
		return nil, fmt.Errorf("formats: %w", err)
	}
	t := &tables{
		HashFormats:    map[string]*hashFormat{},
		Verifiers:      map[string]*verifier{},
		VMSafeCPUFlags: append([]string(nil), ff.VMSafeCPUFlags...),
	}
	sort.Strings(t.VMSafeCPUFlags)

	var walk func(n *apiNode) error
	walk = func(n *apiNode) error {
		for httpMethod, raw := range n.Info {
			m, err := g.method(n.Path, httpMethod, raw)
			if err != nil {
				return err
			}
			t.Methods = append(t.Methods, m)
		}
		for _, c := range n.Children {
			if err := walk(c); err != nil {
				return err
			}
		}
		return nil
	}
	for _, r := range roots {
		if err := walk(r); err != nil {
			return nil, err
		}
	}
	sort.Slice(t.Methods, func(i, j int) bool {
		if t.Methods[i].Path != t.Methods[j].Path {
			return t.Methods[i].Path < t.Methods[j].Path
		}
		return t.Methods[i].HTTPMethod < t.Methods[j].HTTPMethod
	})

	for name, hf := range ff.HashFormats {
		props, err := g.formatProps(hf.Properties, "format "+name)
		if err != nil {
			return nil, err
		}
		t.HashFormats[name] = &hashFormat{Properties: props}
	}
	for name, vf := range ff.VerifierFormats {
		if vf.Regex != "" {
			if _, err := regexp.Compile(vf.Regex); err != nil {
				return nil, fmt.Errorf("format %s: regex does not compile in Go: %w", name, err)
			}
		}
		t.Verifiers[name] = &verifier{Regex: vf.Regex, Error: vf.Error}
	}
	for _, name := range unchecked {
		if _, ok := t.Verifiers[name]; !ok {
			t.Verifiers[name] = &verifier{}
		}
	}
	if err := g.checkFormatRefs(t); err != nil {
		return nil, err
	}
	return t, nil
}

func (g *generator) method(path, httpMethod string, raw json.RawMessage) (*methodDef, error) {
	var am apiMethod
	if err := decodeJSON(raw, &am); err != nil {
		return nil, fmt.Errorf("%s %s: %w", httpMethod, path, err)
	}
	where := httpMethod + " " + path
	if am.Method != "" && am.Method != httpMethod {
		return nil, fmt.Errorf("%s: method field says %q", where, am.Method)
	}
	params, err := g.node(am.Parameters, where)
	if err != nil {
		return nil, err
	}
	if params == nil {
		params = &schemaNode{}
	}
	_, hasProperties := am.Parameters["properties"]
	additional := am.Parameters["additionalProperties"]
	_, additionalSchema := additional.(map[string]any)
	m := &methodDef{
		Path:       path,
		HTTPMethod: httpMethod,
		Name:       am.Name,
		Protected:  perlTrue(am.Protected),
		ProxyTo:    am.ProxyTo,
		AllowToken: perlTrue(am.AllowToken),
		Params:     params,

		SkipObjectCheck: !hasProperties && !additionalSchema && !perlTrue(additional),
	}
	for key, p := range params.Properties {
		base, ok := strings.CutSuffix(key, "[n]")
		if !ok {
			continue
		}
		last, known := indexRanges[path][base]
		if !known {
			return nil, fmt.Errorf("%s: no index range known for %q; add it to indexRanges", where, key)
		}
		if !p.Optional {
			return nil, fmt.Errorf("%s: indexed parameter %q is required, which the checks do not support", where, key)
		}
		if m.Indexed == nil {
			m.Indexed = map[string]int{}
		}
		m.Indexed[base] = last
	}
	return m, nil
}

func (g *generator) formatProps(raw map[string]any, where string) (map[string]*schemaNode, error) {
	props := map[string]*schemaNode{}
	defaultKeys := 0
	for k, v := range raw {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s.%s: not an object", where, k)
		}
		n, err := g.node(m, where+"."+k)
		if err != nil {
			return nil, err
		}
		if n.DefaultKey {
			defaultKeys++
		}
		props[k] = n
	}
	if defaultKeys > 1 {
		return nil, fmt.Errorf("%s: more than one default_key", where)
	}
	return props, nil
}

// node converts one property schema of the dump.
func (g *generator) node(raw map[string]any, where string) (*schemaNode, error) {
	if raw == nil {
		return nil, nil
	}
	n := &schemaNode{}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := raw[k]
		var err error
		switch k {
		case "type":
			n.Type, err = str(v)
		case "optional":
			n.Optional = perlTrue(v)
		case "alias":
			n.Alias, err = str(v)
		case "keyAlias":
			n.KeyAlias, err = str(v)
		case "default_key":
			n.DefaultKey = perlTrue(v)
		case "requires":
			n.Requires, err = str(v)
		case "format":
			err = g.format(n, v, where)
		case "pattern":
			err = n.setPattern(v)
		case "enum":
			n.Enum, err = enumValues(v)
		case "minimum":
			n.Minimum, err = numberText(v)
		case "maximum":
			n.Maximum, err = numberText(v)
		case "minLength":
			n.MinLength, err = intPtr(v)
		case "maxLength":
			n.MaxLength, err = intPtr(v)
		case "items":
			n.Items, err = g.child(v, where+"[]")
		case "properties":
			err = g.properties(n, v, where)
		case "additionalProperties":
			err = g.additional(n, v, where)
		case "oneOf":
			err = g.oneOf(n, v, where)
		case "type-property":
			n.TypeProperty, err = str(v)
		case "instance-types":
			n.InstanceTypes, err = enumValues(v)
		default:
			if !docOnlyKeys[k] {
				err = fmt.Errorf("unknown schema key %q", k)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", where, k, err)
		}
	}
	if len(n.OneOf) > 0 && n.TypeProperty == "" {
		return nil, fmt.Errorf("%s: oneOf without type-property is not supported", where)
	}
	return n, nil
}

func (g *generator) child(v any, where string) (*schemaNode, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("not an object")
	}
	return g.node(m, where)
}

func (g *generator) format(n *schemaNode, v any, where string) error {
	switch f := v.(type) {
	case string:
		n.FormatName = f
		if _, seen := g.formatRefs[f]; !seen {
			g.formatRefs[f] = where
		}
		return nil
	case map[string]any:
		props, err := g.formatProps(f, where)
		n.FormatProps = props
		return err
	}
	return fmt.Errorf("unexpected %T", v)
}

func (g *generator) properties(n *schemaNode, v any, where string) error {
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("not an object")
	}
	n.Properties = map[string]*schemaNode{}
	for k, pv := range m {
		p, err := g.child(pv, where+"."+k)
		if err != nil {
			return err
		}
		n.Properties[k] = p
	}
	return nil
}

func (g *generator) additional(n *schemaNode, v any, where string) error {
	if m, ok := v.(map[string]any); ok {
		s, err := g.node(m, where+".*")
		n.AdditionalSchema = s
		return err
	}
	n.Closed = !perlTrue(v)
	return nil
}

func (g *generator) oneOf(n *schemaNode, v any, where string) error {
	list, ok := v.([]any)
	if !ok {
		return fmt.Errorf("not a list")
	}
	for i, alt := range list {
		s, err := g.child(alt, fmt.Sprintf("%s|%d", where, i))
		if err != nil {
			return err
		}
		n.OneOf = append(n.OneOf, s)
	}
	return nil
}

// checkFormatRefs makes sure every named format the dump uses is known, so a
// new PVE format shows up here instead of as a wrong runtime error.
func (g *generator) checkFormatRefs(t *tables) error {
	names := make([]string, 0, len(g.formatRefs))
	for name := range g.formatRefs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if name == "regex" {
			continue
		}
		if _, ok := t.HashFormats[name]; ok {
			continue
		}
		base, _ := splitFormatName(name)
		if _, ok := t.Verifiers[base]; ok {
			continue
		}
		return fmt.Errorf("%s: format %q is in neither hash_formats nor verifier_formats", g.formatRefs[name], name)
	}
	return nil
}

var (
	perlFlagGroup = regexp.MustCompile(`\(\?\^([a-z]*):`)
	bigRepeat     = regexp.MustCompile(`^(\[(?:[^\]\\]|\\.)+\])\{(\d+),(\d+)\}$`)
)

// setPattern converts a Perl pattern to Go syntax. Perl's qr// stringifies as
// (?^:...) or (?^i:...); RE2 knows neither, and since nothing in these
// patterns sets flags outside such groups, (?: and (?i: are equivalent.
func (n *schemaNode) setPattern(v any) error {
	p, err := str(v)
	if err != nil {
		return err
	}
	var bad error
	p = perlFlagGroup.ReplaceAllStringFunc(p, func(m string) string {
		flags := perlFlagGroup.FindStringSubmatch(m)[1]
		if flags != "" && flags != "i" {
			bad = fmt.Errorf("unsupported Perl flag group %q", m)
		}
		return "(?" + flags + ":"
	})
	if bad != nil {
		return bad
	}
	_, err = regexp.Compile(p)
	if err == nil {
		n.Pattern = p
		return nil
	}
	m := bigRepeat.FindStringSubmatch(p)
	if m == nil {
		return fmt.Errorf("pattern %q does not compile in Go: %w", p, err)
	}
	// RE2 caps repeat counts at 1000; a single character class with a larger
	// count becomes '*' plus a length check with the same result.
	lo, _ := strconv.Atoi(m[2])
	hi, _ := strconv.Atoi(m[3])
	n.Pattern = m[1] + "*"
	n.PatternLen = []int{lo, hi}
	return nil
}

func splitFormatName(name string) (base, suffix string) {
	if b, ok := strings.CutSuffix(name, "-list"); ok {
		return b, "list"
	}
	if b, ok := strings.CutSuffix(name, "-opt"); ok {
		return b, "opt"
	}
	return name, ""
}

// perlTrue applies Perl truthiness to a decoded JSON scalar.
func perlTrue(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case json.Number:
		f, err := x.Float64()
		return err != nil || f != 0
	case string:
		return x != "" && x != "0"
	}
	return true
}

func str(v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("want a string, got %T", v)
	}
	return s, nil
}

func enumValues(v any) ([]string, error) {
	if v == nil {
		return nil, nil // PVE skips a null enum
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("want a list, got %T", v)
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("empty list is not supported")
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		switch x := e.(type) {
		case string:
			out = append(out, x)
		case json.Number:
			out = append(out, x.String())
		default:
			return nil, fmt.Errorf("unexpected element %T", e)
		}
	}
	return out, nil
}

func numberText(v any) (string, error) {
	switch x := v.(type) {
	case json.Number:
		return x.String(), nil
	case string:
		if _, err := strconv.ParseFloat(x, 64); err != nil {
			return "", fmt.Errorf("not a number: %q", x)
		}
		return x, nil
	}
	return "", fmt.Errorf("want a number, got %T", v)
}

func intPtr(v any) (*int, error) {
	var n int64
	var err error
	switch x := v.(type) {
	case json.Number:
		n, err = x.Int64()
	case string:
		n, err = strconv.ParseInt(x, 10, 64)
	default:
		return nil, fmt.Errorf("want an integer, got %T", v)
	}
	if err != nil {
		return nil, err
	}
	i := int(n)
	return &i, nil
}
