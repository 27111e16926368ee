package schema

import (
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// TablesFileName is the name of the generated, gzip-compressed tables file
// of the default release (PVE 9.1); it lives next to this package's sources
// and is embedded at build time, like the tables of the other releases.
const TablesFileName = "tables.json.gz"

// TableSet is one PVE release whose API schema the package holds tables
// for: which dump they are generated from and where they are stored.
type TableSet struct {
	// Release is PVE's major.minor release, "9.1" or "8.4".
	Release string
	// APIDoc is the file name of the release's schema dump in shared/pve-api.
	APIDoc string
	// File is the embedded tables file, next to this package's sources.
	File string
	// Unchecked names formats the dump uses that formats.json (a PVE 9.1
	// supplement) does not describe. They are registered by code of that
	// release which the checks do not mirror, so values pass unchecked.
	Unchecked []string
}

// TableSets lists the releases with tables; the first one is the default.
// PVE 8.4's dump uses a few formats that PVE 9.1 renamed or dropped:
// pve-ha-manager's pve-ha-group-node (HA groups became rules in 9.0) and
// pve-network's SDN ids.
var TableSets = []TableSet{
	{Release: "9.1", APIDoc: "apidoc.json", File: TablesFileName},
	{Release: "8.4", APIDoc: "apidoc-pve8.4.json", File: "tables-pve8.4.json.gz", Unchecked: []string{
		"pve-ha-group-node", "pve-sdn-vnet-id", "pve-sdn-zone-id", "pve-sdn-controller-id",
		"pve-sdn-ipam-id", "pve-sdn-dns-id",
	}},
}

//go:embed tables.json.gz tables-pve8.4.json.gz
var embeddedFiles embed.FS

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

// API is the schema of one PVE release: its methods and the checks of
// their parameters.
type API struct {
	release string
	t       *tables
	routes  *routeNode
	all     []*Method
}

// Release is the PVE release the schema describes, "9.1" or "8.4".
func (a *API) Release() string { return a.release }

var (
	loadOnce sync.Once
	apis     map[string]*API
	// formats are the named formats of every release: formats.json is one
	// supplement for all of them, plus the unchecked names of older dumps.
	formats *tables
	errLoad error
)

// loadAll decodes the embedded tables of every release once.
func loadAll() {
	loadOnce.Do(func() {
		apis = map[string]*API{}
		for i, set := range TableSets {
			gz, err := embeddedFiles.ReadFile(set.File)
			if err != nil {
				errLoad = err
				return
			}
			t, err := decodeTables(gz)
			if err != nil {
				errLoad = fmt.Errorf("%s: %w", set.File, err)
				return
			}
			a := &API{release: set.Release, t: t}
			a.routes, a.all = buildRoutes(a, t)
			apis[set.Release] = a
			if i == 0 {
				formats = &tables{HashFormats: t.HashFormats, Verifiers: map[string]*verifier{}, VMSafeCPUFlags: t.VMSafeCPUFlags}
				for name, v := range t.Verifiers {
					formats.Verifiers[name] = v
				}
				continue
			}
			for name, v := range t.Verifiers {
				if _, ok := formats.Verifiers[name]; !ok {
					formats.Verifiers[name] = v
				}
			}
		}
	})
	if errLoad != nil {
		panic(fmt.Sprintf("schema: embedded tables are unusable: %v", errLoad))
	}
}

// load returns the named formats; every check of a format value calls it.
func load() *tables {
	loadAll()
	return formats
}

// Default is the schema of the default release, PVE 9.1.
func Default() *API {
	loadAll()
	return apis[TableSets[0].Release]
}

// ForRelease returns the schema of a PVE release ("9.1", "8.4"); ok is
// false when the package holds no tables for it.
func ForRelease(release string) (api *API, ok bool) {
	loadAll()
	api, ok = apis[release]
	return api, ok
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
