package crosscheck

import (
	"bufio"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// extraCorpus holds values whose reading by PVE was checked against perl
// 5.36 on decoded strings, as pve-http-server hands them to the handlers.
var extraCorpus = []string{
	"", " ", "0", "0T", "1", "1.5", "32G", "32G\n", "32GB", "32g", "1.5T", "0.3K",
	"0.99999999999999999999K", "9007199254740993", "9007199254740993K", "8191T", "8192T",
	"٣G", "1.٣G", "-1", ".5G", "1.G", "1KiB", "1KB",
	"prod;web", "Prod,web;prod", "a\x00b", "a\x00\x00b", "a\n\x00b", "\u212aelvin", "\u017fx", "é",
	"a\u00a0b", "a\u2028b", "a\vb", "tag\n",
	"k=v\n", "k=v\n\n", "a\nb=c", "k=v\r\n", "=v", "k=", "k==v", ",,", "current=0,5",
	"abc%2", "%zz", "%%41", "a+b", "%0d%0a%2bk%20", "%A0", "%85", " k1\r\nk2 \r\n",
	"unused0", "unused255", "unused256", "unused01", "scsi30", "scsi31", "virtio15", "sata6",
	"efidisk0", "tpmstate0", "ide4", "mp255", "net31", "scsi+1",
}

// corpus is every value the comparisons are fed: the provider's fuzz seed
// corpora (testdata/fuzz), every string literal of its grammar tests
// (f.Add seeds and table cases alike), the string values of the captured
// Terraform states in the repository's testdata, and extraCorpus.
func corpus(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	add := func(s string) { seen[s] = true }
	for _, s := range extraCorpus {
		add(s)
	}
	wireDir := filepath.Join("..", "wire")
	seeds, err := filepath.Glob(filepath.Join(wireDir, "testdata", "fuzz", "*", "*"))
	if err != nil || len(seeds) == 0 {
		t.Fatalf("no fuzz seeds under %s: %v", wireDir, err)
	}
	for _, path := range seeds {
		for _, s := range readFuzzSeed(t, path) {
			add(s)
		}
	}
	tests, _ := filepath.Glob(filepath.Join(wireDir, "*_test.go"))
	fset := token.NewFileSet()
	for _, path := range tests {
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil {
					add(s)
				}
			}
			return true
		})
	}
	states, _ := filepath.Glob(filepath.Join("..", "service", "*", "testdata", "*", "*.json"))
	for _, path := range states {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		collectStrings(v, add)
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// readFuzzSeed reads the string and []byte values of a "go test fuzz v1"
// file.
func readFuzzSeed(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		for _, prefix := range []string{"string(", "[]byte("} {
			if strings.HasPrefix(line, prefix) && strings.HasSuffix(line, ")") {
				if s, err := strconv.Unquote(line[len(prefix) : len(line)-1]); err == nil {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

func collectStrings(v any, add func(string)) {
	switch v := v.(type) {
	case string:
		add(v)
		for _, part := range strings.Split(v, ",") {
			add(part)
			if _, val, ok := strings.Cut(part, "="); ok {
				add(val)
			}
		}
	case []any:
		for _, e := range v {
			collectStrings(e, add)
		}
	case map[string]any:
		for k, e := range v {
			add(k)
			collectStrings(e, add)
		}
	}
}
