package schema

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// sharedAPIDir finds PVE's schema dump, which sits in shared/pve-api beside
// the repository clone.
func sharedAPIDir(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the package directory")
		}
		dir = parent
	}
	shared := filepath.Join(dir, "..", "shared", "pve-api")
	if _, err := os.Stat(filepath.Join(shared, "apidoc.json")); err != nil {
		t.Fatalf("PVE schema dump not found: %v\nThe shared folder with pve-api/apidoc.json and pve-api/formats.json must sit beside the repository clone (%s).", err, shared)
	}
	return shared
}

// TestTablesUpToDate regenerates the tables of every release and compares
// them with the committed files. The decompressed JSON is compared, not the
// gzip bytes, which a different Go release may compress differently.
func TestTablesUpToDate(t *testing.T) {
	t.Parallel()
	shared := sharedAPIDir(t)
	formats, err := os.ReadFile(filepath.Join(shared, "formats.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, set := range TableSets {
		apidoc, err := os.ReadFile(filepath.Join(shared, set.APIDoc))
		if err != nil {
			t.Fatal(err)
		}
		raw, err := Generate(apidoc, formats, set.Unchecked...)
		if err != nil {
			t.Fatalf("Generate PVE %s: %v", set.Release, err)
		}
		gz, err := Compress(raw)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), set.File)
		if err := os.WriteFile(out, gz, 0o600); err != nil {
			t.Fatal(err)
		}
		written, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := Decompress(written)
		if err != nil {
			t.Fatal(err)
		}
		embedded, err := embeddedFiles.ReadFile(set.File)
		if err != nil {
			t.Fatal(err)
		}
		committed, err := Decompress(embedded)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(fresh, committed) {
			t.Fatalf("%s is stale (%d bytes committed, %d generated): run 'make schema'", set.File, len(committed), len(fresh))
		}
	}
}

func TestGenerateIsDeterministic(t *testing.T) {
	t.Parallel()
	shared := sharedAPIDir(t)
	apidoc, err := os.ReadFile(filepath.Join(shared, "apidoc.json"))
	if err != nil {
		t.Fatal(err)
	}
	formats, err := os.ReadFile(filepath.Join(shared, "formats.json"))
	if err != nil {
		t.Fatal(err)
	}
	first, err := Generate(apidoc, formats)
	if err != nil {
		t.Fatal(err)
	}
	second, err := Generate(apidoc, formats)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, second) {
		t.Fatal("two runs over the same input differ")
	}
	gz1, _ := Compress(first)
	gz2, _ := Compress(second)
	if !bytes.Equal(gz1, gz2) {
		t.Fatal("compressed output differs between runs")
	}
}

// TestTablesHoldNoProse guards the rule that only structural facts from the
// schema dump are kept.
func TestTablesHoldNoProse(t *testing.T) {
	t.Parallel()
	embedded, err := embeddedFiles.ReadFile(TablesFileName)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := Decompress(embedded)
	if err != nil {
		t.Fatal(err)
	}
	// Parameters and sub-keys may be named like documentation keys
	// ("description", "default", "source"); their schemas are objects. A
	// documentation value would be a string, number or list.
	docValue := regexp.MustCompile(`"(description|verbose_description|typetext|format_description|title|default|check|source|note|renderer)":[^{]`)
	if m := docValue.Find(raw); m != nil {
		t.Errorf("tables contain documentation: %s", m)
	}
	for _, prose := range []string{"The (unique) ID of the VM", "Specify network devices"} {
		if strings.Contains(string(raw), prose) {
			t.Errorf("tables contain the text %q", prose)
		}
	}
}

func TestGenerateRejectsUnknownIndexedKey(t *testing.T) {
	t.Parallel()
	apidoc := []byte(`[{"path":"/x","text":"x","leaf":1,"info":{"GET":{"name":"x","method":"GET",
		"parameters":{"additionalProperties":0,"properties":{"foo[n]":{"type":"string","optional":1}}}}}}]`)
	_, err := Generate(apidoc, []byte(`{}`))
	if err == nil || !strings.Contains(err.Error(), "no index range known") {
		t.Fatalf("want an index range error, got %v", err)
	}
}

func TestGenerateRejectsUnknownFormat(t *testing.T) {
	t.Parallel()
	apidoc := []byte(`[{"path":"/x","text":"x","leaf":1,"info":{"GET":{"name":"x","method":"GET",
		"parameters":{"additionalProperties":0,"properties":{"a":{"type":"string","format":"brand-new"}}}}}}]`)
	_, err := Generate(apidoc, []byte(`{}`))
	if err == nil || !strings.Contains(err.Error(), `format "brand-new"`) {
		t.Fatalf("want an unknown format error, got %v", err)
	}
}

func TestGeneratePatternConversion(t *testing.T) {
	t.Parallel()
	cases := []struct {
		perl    string
		goSrc   string
		lenSpan []int
	}{
		{`(?^:\d+(?:-\d+)?)`, `(?:\d+(?:-\d+)?)`, nil},
		{`(?^:(?^i:[a-z]+):(?^:\d))`, `(?:(?i:[a-z]+):(?:\d))`, nil},
		{`[0-9a-zA-Z!=]{0,4096}`, `[0-9a-zA-Z!=]*`, []int{0, 4096}},
	}
	for _, tc := range cases {
		n := &schemaNode{}
		if err := n.setPattern(tc.perl); err != nil {
			t.Fatalf("%s: %v", tc.perl, err)
		}
		if n.Pattern != tc.goSrc || len(n.PatternLen) != len(tc.lenSpan) {
			t.Errorf("%s: got %q %v, want %q %v", tc.perl, n.Pattern, n.PatternLen, tc.goSrc, tc.lenSpan)
		}
	}
	if err := (&schemaNode{}).setPattern(`(?^x: a )`); err == nil {
		t.Error("unsupported flags must be refused")
	}
	if err := (&schemaNode{}).setPattern(`(?>a)`); err == nil {
		t.Error("an atomic group must be refused")
	}
}
