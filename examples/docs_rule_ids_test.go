package examples_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// ruleID is the project's own name for a PVE wire rule (W22): code comments
// and test names cite them, the pages users read never do.
var ruleID = regexp.MustCompile(`\bW[0-9]{1,2}\b`)

// The documentation pages, and the templates and examples they are made
// from, cite no rule ids.
func TestDocsCiteNoRuleIDs(t *testing.T) {
	for _, root := range []string{"../docs", "../templates", "."} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if !strings.HasSuffix(path, ".md") && !strings.HasSuffix(path, ".tmpl") && !strings.HasSuffix(path, ".tf") {
				return nil
			}
			text, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for i, line := range strings.Split(string(text), "\n") {
				if id := ruleID.FindString(line); id != "" {
					t.Errorf("%s:%d cites the internal rule id %s: %s", path, i+1, id, strings.TrimSpace(line))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
