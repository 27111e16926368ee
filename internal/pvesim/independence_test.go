package pvesim

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The simulator is the witness the provider is tested against, so it must
// not share the provider's reading of PVE: no file of the simulator, tests
// included, may import the provider's grammar (internal/wire) or its client
// and Terraform glue. A rule copied from the provider would agree with the
// provider's bugs. The differential test in internal/crosscheck compares the
// two grammars from outside.
func TestSimulatorDoesNotImportProviderCode(t *testing.T) {
	const module = "github.com/proxops/terraform-provider-pve/internal/"
	forbidden := []string{"wire", "pveapi", "service", "provider", "fwutil"}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			for _, pkg := range forbidden {
				if p == module+pkg || strings.HasPrefix(p, module+pkg+"/") {
					t.Errorf("%s imports %s: the simulator must read PVE's grammar with its own code (internal/pvesim/pvegrammar)", path, p)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
