package acctest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The wrapper answers what it may without Terraform and passes the rest on.
func TestTerraformWrapperScript(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("sha256sum"); err != nil {
		t.Skip("no sha256sum")
	}
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o700); err != nil {
		t.Fatal(err)
	}
	calls := filepath.Join(dir, "calls")
	real := filepath.Join(dir, "real")
	fake := "#!/bin/sh\necho \"$*\" >>" + shellQuote(calls) + "\necho \"real $*\"\n"
	versionFile := filepath.Join(dir, "version.json")
	wrapper := filepath.Join(dir, "terraform")
	for path, content := range map[string]string{real: fake, versionFile: `{"terraform_version":"1.2.3"}`, wrapper: wrapperScript(real, versionFile)} {
		if err := os.WriteFile(path, []byte(content), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(wrapper, args...)
		cmd.Dir = work
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("terraform %v: %v", args, err)
		}
		return string(out)
	}
	ranReal := func() []string {
		t.Helper()
		b, err := os.ReadFile(calls)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		_ = os.Remove(calls)
		return strings.FieldsFunc(string(b), func(r rune) bool { return r == '\n' })
	}
	plan := filepath.Join(work, "tfplan")
	state := filepath.Join(work, "terraform.tfstate")

	if out := run("version", "-json"); !strings.Contains(out, "1.2.3") || len(ranReal()) != 0 {
		t.Errorf("version -json ran Terraform or answered %q", out)
	}

	run("plan", "-no-color", "-out=tfplan")
	if err := os.WriteFile(plan, []byte("plan"), 0o600); err != nil {
		t.Fatal(err)
	}
	ranReal()
	if out := run("show", "-no-color", plan); out != "" || len(ranReal()) != 0 {
		t.Errorf("the first show of a plan ran Terraform or answered %q", out)
	}
	if out := run("show", "-no-color", plan); !strings.HasPrefix(out, "real show") {
		t.Errorf("the second show of a plan answered %q, want Terraform's", out)
	}
	if out := run("show", "-json", "-no-color", plan); !strings.HasPrefix(out, "real show -json") {
		t.Errorf("the JSON show of a plan answered %q, want Terraform's", out)
	}
	run("plan", "-no-color", "-out=tfplan")
	ranReal()
	if out := run("show", "-no-color", plan); out != "" {
		t.Errorf("the first show of a new plan answered %q", out)
	}

	// State: one Terraform run per content of the state file.
	if out := run("show", "-json", "-no-color"); !strings.HasPrefix(out, "real") {
		t.Errorf("a show without a state file answered %q", out)
	}
	ranReal()
	for i, content := range []string{"one", "one", "two", "two", "one"} {
		if err := os.WriteFile(state, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		out := run("show", "-json", "-no-color")
		if out != "real show -json -no-color\n" {
			t.Errorf("state show %d answered %q", i, out)
		}
		// A new content runs Terraform, a content seen before does not.
		wantRuns := map[int]int{0: 1, 2: 1}[i]
		if got := len(ranReal()); got != wantRuns {
			t.Errorf("state show %d ran Terraform %d times, want %d", i, got, wantRuns)
		}
	}
	// Another backend keeps its state elsewhere: always ask Terraform.
	if err := os.MkdirAll(filepath.Join(work, ".terraform"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, ".terraform", "terraform.tfstate"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	run("show", "-json", "-no-color")
	if len(ranReal()) == 0 {
		t.Error("a state show with a configured backend did not run Terraform")
	}
}
