package pvesim

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The simulator is a witness: every answer it refuses with names where PVE
// refuses the same way. These tests keep that true for the error answers
// (errorf, paramError, permError, statusError): each call must have a source
// comment above it inside its function (the function's doc comment counts)
// or on its own line, not too far away.

// sourceMarker is what a source comment names: a PVE repository, a real
// captured answer, PVE's API schema, an inferred rule, a refusal of
// something the simulator does not implement (the last two listed in
// INFERRED.md), or a guard only Go callers can reach.
var sourceMarker = regexp.MustCompile(`\b(qemu-server|pve-container|pve-manager|pve-common|pve-access-control|pve-http-server|pve-storage|pve-cluster|pve-guest-common|pve-firewall|pve-ha-manager|proxmox-backup|proxmox-perl-rs|pve-network|proxmox-ve-rs)\b|\bcaptured\b|\bAPI schema\b|\binferred:|\bnot simulated:|\bnot an API answer:`)

// errorHelpers are the calls that make a PVE error answer.
var errorHelpers = map[string]bool{
	"errorf": true, "paramError": true, "permError": true, "statusError": true,
}

// maxSourceDistance bounds how far (in lines) a source comment may sit above
// the refusal it covers, so one comment at the top of a long function does
// not vouch for everything below it.
const maxSourceDistance = 60

type refusalSite struct {
	pos  token.Position
	call string
}

// unsourcedRefusals parses the package's non-test files and returns the
// error-helper calls without a source comment in reach.
func unsourcedRefusals(t *testing.T, dir string) []refusalSite {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []refusalSite
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		name = filepath.Base(name)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		// Lines that carry a source comment.
		sourced := map[int]bool{}
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				if sourceMarker.MatchString(c.Text) {
					start := fset.Position(c.Pos()).Line
					end := fset.Position(c.End()).Line
					for l := start; l <= end; l++ {
						sourced[l] = true
					}
				}
			}
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			first := fset.Position(fn.Pos()).Line
			if fn.Doc != nil {
				first = fset.Position(fn.Doc.Pos()).Line
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				id, ok := call.Fun.(*ast.Ident)
				if !ok || !errorHelpers[id.Name] {
					return true
				}
				pos := fset.Position(call.Pos())
				end := fset.Position(call.End()).Line
				low := pos.Line - maxSourceDistance
				if low < first {
					low = first
				}
				found := false
				for l := end; l >= low; l-- {
					if sourced[l] {
						found = true
						break
					}
				}
				if !found {
					out = append(out, refusalSite{pos: pos, call: id.Name})
				}
				return true
			})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].pos.Filename != out[j].pos.Filename {
			return out[i].pos.Filename < out[j].pos.Filename
		}
		return out[i].pos.Line < out[j].pos.Line
	})
	return out
}

func TestEveryRefusalNamesItsSource(t *testing.T) {
	for _, s := range unsourcedRefusals(t, ".") {
		t.Errorf("%s:%d: %s without a source comment (PVE repository file function, captured answer, API schema, or inferred:) within its function and %d lines above",
			s.pos.Filename, s.pos.Line, s.call, maxSourceDistance)
	}
}

// The check itself: an unsourced refusal is found, a sourced one and one
// whose source sits too far above are told apart.
func TestRefusalSourceCheckFindsUnsourced(t *testing.T) {
	dir := t.TempDir()
	far := strings.Repeat("\t_ = 0\n", maxSourceDistance+5)
	src := "package p\n\n" +
		"func errorf(string, ...any) error { return nil }\n\n" +
		"// qemu-server src/PVE/API2/Qemu.pm vm_start\n" +
		"func sourced() error { return errorf(\"x\") }\n\n" +
		"func unsourced() error { return errorf(\"y\") }\n\n" +
		"// pve-container src/PVE/LXC.pm vm_start\n" +
		"func tooFar() error {\n" + far + "\treturn errorf(\"z\")\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, s := range unsourcedRefusals(t, dir) {
		got = append(got, s.pos.Line)
	}
	if len(got) != 2 || got[0] != 8 {
		t.Errorf("unsourced lines = %v, want line 8 and the far one", got)
	}
}
