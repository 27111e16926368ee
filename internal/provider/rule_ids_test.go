package provider_test

import (
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/proxops/terraform-provider-pve/internal/provider"
)

// ruleID is the project's own name for a PVE wire rule (W22, listed in
// internal/wire/RULES.md). Code comments and test names cite them; nothing a
// user reads does: not a diagnostic, an error text, a log line, a schema
// description nor a page. The pages, templates and examples are checked by
// examples/docs_rule_ids_test.go.
var ruleID = regexp.MustCompile(`\bW[0-9]{1,2}\b`)

// repoRoot is the repository's top directory, seen from this package.
const repoRoot = "../.."

// Every description, deprecation message and summary the provider serves
// in its schemas (what Terraform shows and the docs are generated from) is
// free of rule ids, including those composed at run time.
func TestSchemasCiteNoRuleIDs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	server := providerserver.NewProtocol6(provider.New("test")())()
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(schemas.Diagnostics) > 0 {
		t.Fatalf("provider schema diagnostics: %v", schemas.Diagnostics)
	}
	if len(schemas.ResourceSchemas) == 0 || len(schemas.DataSourceSchemas) == 0 {
		t.Fatal("the provider served no resource or data source schemas")
	}
	identities, err := server.GetResourceIdentitySchemas(ctx, &tfprotov6.GetResourceIdentitySchemasRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for what, value := range map[string]any{"schema": schemas, "identity schema": identities} {
		for _, hit := range ruleIDsIn(t, value) {
			t.Errorf("the provider's %s cites the internal rule id %s", what, hit)
		}
	}
}

// ruleIDsIn lists the strings of v (as its JSON form holds them) that carry
// a rule id, each with the path to it.
func ruleIDsIn(t *testing.T, v any) []string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var tree any
	if err := json.Unmarshal(raw, &tree); err != nil {
		t.Fatal(err)
	}
	var hits []string
	var walk func(at string, node any)
	walk = func(at string, node any) {
		switch n := node.(type) {
		case string:
			if id := ruleID.FindString(n); id != "" {
				hits = append(hits, fmt.Sprintf("%s at %s: %q", id, at, n))
			}
		case []any:
			for i, child := range n {
				walk(at+"["+strconv.Itoa(i)+"]", child)
			}
		case map[string]any:
			keys := make([]string, 0, len(n))
			for key := range n {
				keys = append(keys, key)
			}
			sort.Strings(keys)
			for _, key := range keys {
				name := key
				if child, ok := n[key].(map[string]any); ok {
					if childName, ok := child["Name"].(string); ok {
						name += "(" + childName + ")"
					}
				}
				walk(at+"."+name, n[key])
			}
		}
	}
	walk("", tree)
	return hits
}

// The code's string literals carry no rule id: outside tests, every one of
// them may reach a user, as a diagnostic (resp.Diagnostics.AddError and its
// kin, diag.NewErrorDiagnostic), an error text wrapped into one, a log line
// or a schema description. Comments are not literals: ids stay allowed
// there, and in tests.
func TestCodeTextsCiteNoRuleIDs(t *testing.T) {
	t.Parallel()
	files := 0
	for _, root := range []string{"internal", "tools", "main.go"} {
		err := filepath.WalkDir(filepath.Join(repoRoot, root), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == "testdata" {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			files++
			for _, hit := range ruleIDLiterals(t, path) {
				t.Errorf("%s cites the internal rule id in a text users may read: %s", hit.pos, hit.text)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 100 {
		t.Fatalf("only %d Go files found under %s: the walk looks in the wrong place", files, repoRoot)
	}
}

type literalHit struct {
	pos  token.Position
	text string
}

// ruleIDLiterals parses one Go file and returns its string literals that
// carry a rule id.
func ruleIDLiterals(t *testing.T, path string) []literalHit {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var hits []literalHit
	ast.Inspect(file, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		text, err := strconv.Unquote(lit.Value)
		if err != nil {
			text = lit.Value
		}
		if ruleID.MatchString(text) {
			hits = append(hits, literalHit{pos: fset.Position(lit.Pos()), text: lit.Value})
		}
		return true
	})
	return hits
}

// The project's own pages beside the generated docs are read by users too.
func TestProjectPagesCiteNoRuleIDs(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"README.md", "CHANGELOG.md"} {
		text, err := os.ReadFile(filepath.Join(repoRoot, name))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(text), "\n") {
			if id := ruleID.FindString(line); id != "" {
				t.Errorf("%s:%d cites the internal rule id %s: %s", name, i+1, id, strings.TrimSpace(line))
			}
		}
	}
}
