package wire

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// highestRuleID is the last id RULES.md explains.
const highestRuleID = 57

var (
	// ruleEntry is the start of one entry in RULES.md: "- **W22 Disks ...".
	ruleEntry = regexp.MustCompile(`(?m)^- \*\*W([0-9]+) `)
	// citedRule is a rule id where code cites one.
	citedRule = regexp.MustCompile(`\bW([0-9]{1,3})\b`)
)

// RULES.md explains every rule id once, in order, so a reader of the code
// can look up any id a comment or test name cites.
func TestRulesCatalogueExplainsEveryID(t *testing.T) {
	t.Parallel()
	text, err := os.ReadFile("RULES.md")
	if err != nil {
		t.Fatal(err)
	}
	var ids []int
	for _, m := range ruleEntry.FindAllStringSubmatch(string(text), -1) {
		id, _ := strconv.Atoi(m[1])
		ids = append(ids, id)
	}
	if len(ids) != highestRuleID {
		t.Errorf("RULES.md has %d entries, want one for each of W1-W%d", len(ids), highestRuleID)
	}
	for i, id := range ids {
		if id != i+1 {
			t.Fatalf("entry %d of RULES.md is W%d, want W%d (one entry per id, in order)", i+1, id, i+1)
		}
	}
}

// Every id the Go code cites is one RULES.md explains.
func TestCitedRuleIDsAreCatalogued(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	for _, dir := range []string{"internal", "tools", "examples"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
				return err
			}
			text, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range citedRule.FindAllStringSubmatch(string(text), -1) {
				if id, _ := strconv.Atoi(m[1]); id < 1 || id > highestRuleID {
					t.Errorf("%s cites %s, which RULES.md does not explain", path, m[0])
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
