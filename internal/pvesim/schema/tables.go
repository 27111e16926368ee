package schema

import (
	"bytes"
	"compress/gzip"
	_ "embed" // the generated tables are embedded
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// TablesFileName is the name of the generated, gzip-compressed tables file
// that lives next to this package's sources and is embedded at build time.
const TablesFileName = "tables.json.gz"

//go:embed tables.json.gz
var embeddedTables []byte

// tables is everything the checks need from PVE's schema dump. It holds
// structural facts only: no description or other prose from the dump.
type tables struct {
	Methods     []*methodDef           `json:"methods"`
	HashFormats map[string]*hashFormat `json:"hashFormats"`
	Verifiers   map[string]*verifier   `json:"verifiers"`
	// VMSafeCPUFlags are the CPU flags a VM config may set in cpu=flags=...
	VMSafeCPUFlags []string `json:"vmSafeCpuFlags"`
}

type methodDef struct {
	Path       string      `json:"path"`
	HTTPMethod string      `json:"method"`
	Name       string      `json:"name"`
	Protected  bool        `json:"protected,omitempty"`
	ProxyTo    string      `json:"proxyto,omitempty"`
	AllowToken bool        `json:"allowtoken,omitempty"`
	Params     *schemaNode `json:"params"`
	// SkipObjectCheck is set when the parameter schema has neither
	// properties nor a true additionalProperties.
	SkipObjectCheck bool `json:"skipObjectCheck,omitempty"`
	// Indexed maps the base of a collapsed parameter such as "net" (stored
	// as "net[n]" in Params) to its highest valid index.
	Indexed map[string]int `json:"indexed,omitempty"`
}

// hashFormat is a named property-string format.
type hashFormat struct {
	Properties map[string]*schemaNode `json:"properties"`
}

// verifier is a named format checked by code in PVE. Regex and Error are
// only set where the schema supplement gives them.
type verifier struct {
	Regex string `json:"regex,omitempty"`
	Error string `json:"error,omitempty"`
}

// schemaNode mirrors the subset of a PVE::JSONSchema property that
// validation looks at.
type schemaNode struct {
	Type       string `json:"type,omitempty"`
	Optional   bool   `json:"optional,omitempty"`
	Alias      string `json:"alias,omitempty"`
	KeyAlias   string `json:"keyAlias,omitempty"`
	DefaultKey bool   `json:"defaultKey,omitempty"`
	Requires   string `json:"requires,omitempty"`

	// FormatName names a registered format; FormatProps is an inline
	// property-string format. At most one of them is set.
	FormatName  string                 `json:"format,omitempty"`
	FormatProps map[string]*schemaNode `json:"formatProps,omitempty"`

	// Pattern is already in Go syntax and not yet anchored.
	Pattern string `json:"pattern,omitempty"`
	// PatternLen is set when a Perl repeat count too large for RE2 was
	// replaced by '*': the value's length must then lie in [min, max].
	PatternLen []int `json:"patternLen,omitempty"`

	Enum []string `json:"enum,omitempty"`
	// Minimum and Maximum keep PVE's own spelling, which error texts quote.
	Minimum   string `json:"minimum,omitempty"`
	Maximum   string `json:"maximum,omitempty"`
	MinLength *int   `json:"minLength,omitempty"`
	MaxLength *int   `json:"maxLength,omitempty"`

	Items *schemaNode `json:"items,omitempty"`

	Properties map[string]*schemaNode `json:"properties,omitempty"`
	// Closed is additionalProperties 0: unknown keys are errors.
	Closed bool `json:"closed,omitempty"`
	// AdditionalSchema is additionalProperties given as a schema.
	AdditionalSchema *schemaNode `json:"additionalSchema,omitempty"`

	OneOf         []*schemaNode `json:"oneOf,omitempty"`
	TypeProperty  string        `json:"typeProperty,omitempty"`
	InstanceTypes []string      `json:"instanceTypes,omitempty"`
}

var (
	loadOnce   sync.Once
	loaded     *tables
	routes     *routeNode
	allMethods []*Method
	errLoad    error
)

// load decodes the embedded tables once; every exported entry point calls it.
func load() *tables {
	loadOnce.Do(func() {
		t, err := decodeTables(embeddedTables)
		if err != nil {
			errLoad = err
			return
		}
		loaded = t
		routes, allMethods = buildRoutes(t)
	})
	if errLoad != nil {
		panic(fmt.Sprintf("schema: embedded tables are unusable: %v", errLoad))
	}
	return loaded
}

func decodeTables(gz []byte) (*tables, error) {
	raw, err := gunzip(gz)
	if err != nil {
		return nil, err
	}
	var t tables
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, fmt.Errorf("decode tables: %w", err)
	}
	return &t, nil
}

func gunzip(gz []byte) ([]byte, error) {
	r, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("open gzip: %w", err)
	}
	defer func() { _ = r.Close() }()
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read gzip: %w", err)
	}
	return raw, nil
}
