// Package examples_test checks that every example under examples/ is
// formatted, valid against the provider built from this repository, and that
// every resource, data source, function and action the provider serves
// has an example (the documentation pages are generated from them).
package examples_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/go-version"
)

// providerSource is the address the examples use, and the one the test's
// CLI configuration overrides with the freshly built binary.
const providerSource = "proxops/pve"

// devOverridesWarning is the warning every command prints while a
// dev_overrides block is in effect; any other diagnostic fails the test.
const devOverridesWarning = "Provider development overrides are in effect"

// A resource's import examples: by id (Terraform 1.5 and later) and by
// identity (1.12 and later), each importing the resource of resource.tf.
const (
	idImportExample       = "import-by-string-id.tf"
	identityImportExample = "import-by-identity.tf"
)

// identityImportVersion is the first Terraform that knows an import
// block's identity.
var identityImportVersion = version.Must(version.NewVersion("1.12.0"))

// actionVersion is the first Terraform that knows action blocks, which
// the examples under actions/ are.
var actionVersion = version.Must(version.NewVersion("1.14.0"))

// queryVersion is the first Terraform that reads .tfquery.hcl files (list
// blocks, terraform query); older ones ignore them.
var queryVersion = version.Must(version.NewVersion("1.14.0"))

// queryFileSuffix ends the name of a file of list blocks.
const queryFileSuffix = ".tfquery.hcl"

// cliVersion is the version of the terraform binary, and whether it is
// OpenTofu: `version -json` reports OpenTofu's own version as
// terraform_version, and only `version` names the product.
type cliVersion struct {
	version  *version.Version
	openTofu bool
}

func (v cliVersion) String() string {
	if v.openTofu {
		return "OpenTofu " + v.version.String()
	}
	return "Terraform " + v.version.String()
}

// terraformVersion is the version of the terraform binary.
func terraformVersion(t *testing.T, terraform string, env []string) cliVersion {
	t.Helper()
	var out struct {
		Version string `json:"terraform_version"`
	}
	if err := json.Unmarshal(run(t, terraform, t.TempDir(), env, "version", "-json"), &out); err != nil {
		t.Fatalf("parse terraform version -json: %v", err)
	}
	v, err := version.NewVersion(out.Version)
	if err != nil {
		t.Fatalf("terraform version %q: %v", out.Version, err)
	}
	text := string(run(t, terraform, t.TempDir(), env, "version"))
	return cliVersion{version: v, openTofu: strings.Contains("\n"+text, "\nOpenTofu v")}
}

// lacks is why the CLI cannot check an example that needs Terraform
// minimum for what, or "" when it can: OpenTofu (up to 1.12) has no
// action blocks and no list blocks, whatever its version number.
func (v cliVersion) lacks(minimum *version.Version, what string, openTofuHasIt bool) string {
	if v.openTofu && !openTofuHasIt {
		return fmt.Sprintf("%s needs Terraform %s or later; %s does not support it", what, minimum, v)
	}
	if v.version.Core().LessThan(minimum) {
		return fmt.Sprintf("%s needs %s %s or later, and this is %s", what, strings.Fields(v.String())[0], minimum, v)
	}
	return ""
}

// requiredProvidersFile is added to a copied example that has no
// required_providers block of its own: the documentation examples leave it
// out, and without it Terraform would look for hashicorp/pve.
const requiredProvidersFile = `terraform {
  required_providers {
    pve = {
      source = "` + providerSource + `"
    }
  }
}
`

func TestExamples(t *testing.T) {
	// TF_ACC_TERRAFORM_PATH, as for the Terraform-level tests: make
	// test-modern validates the examples with the newer CLI too.
	name := "terraform"
	if path := os.Getenv("TF_ACC_TERRAFORM_PATH"); path != "" {
		name = path
	}
	terraform, err := exec.LookPath(name)
	if err != nil {
		t.Fatal("terraform is not on PATH: validating the examples needs Terraform >= 1.5 (or OpenTofu installed as terraform)")
	}
	work := t.TempDir()
	env := terraformEnv(t, work)

	dirs := exampleDirs(t)
	if len(dirs) == 0 {
		t.Fatal("found no example directories")
	}
	for _, dir := range dirs {
		t.Run("validate/"+filepath.ToSlash(dir), func(t *testing.T) {
			t.Parallel()
			copyDir := filepath.Join(t.TempDir(), "example")
			copyExample(t, dir, copyDir, identityImportExample)
			run(t, terraform, copyDir, env, "fmt", "-check", "-diff", "-no-color")
			if strings.HasPrefix(filepath.ToSlash(dir), "actions/") {
				if why := terraformVersion(t, terraform, env).lacks(actionVersion, "an action block", false); why != "" {
					t.Skipf("%s: the example is formatted but not validated", why)
				}
			}
			checkValid(t, run(t, terraform, copyDir, env, "validate", "-json", "-no-color"))
		})
		if hasQueryFiles(t, dir) {
			// The list blocks: Terraform 1.14 and later validate them
			// with the rest of the directory.
			t.Run("validate-query/"+filepath.ToSlash(dir), func(t *testing.T) {
				t.Parallel()
				copyDir := filepath.Join(t.TempDir(), "example")
				copyExample(t, dir, copyDir, identityImportExample)
				if why := terraformVersion(t, terraform, env).lacks(queryVersion, "a list block", false); why != "" {
					t.Skipf("%s: the %s files of %s not checked", why, queryFileSuffix, dir)
				}
				run(t, terraform, copyDir, env, "fmt", "-check", "-diff", "-no-color")
				checkValid(t, run(t, terraform, copyDir, env, "validate", "-query", "-json", "-no-color"))
			})
		}
		if _, err := os.Stat(filepath.Join(dir, identityImportExample)); err != nil {
			continue
		}
		// The import by identity is the other way to import what the
		// import by id imports: it stands in for that file.
		t.Run("validate-identity/"+filepath.ToSlash(dir), func(t *testing.T) {
			t.Parallel()
			copyDir := filepath.Join(t.TempDir(), "example")
			copyExample(t, dir, copyDir, idImportExample)
			run(t, terraform, copyDir, env, "fmt", "-check", "-diff", "-no-color")
			// OpenTofu 1.12 has import blocks with identity too.
			if why := terraformVersion(t, terraform, env).lacks(identityImportVersion, "an import block with identity", true); why != "" {
				t.Skipf("%s: %s formatted but not validated", why, identityImportExample)
			}
			checkValid(t, run(t, terraform, copyDir, env, "validate", "-json", "-no-color"))
		})
	}

	t.Run("every resource, data source, function and action has an example", func(t *testing.T) {
		t.Parallel()
		dir := filepath.Join(t.TempDir(), "schema")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, "providers.tf"), requiredProvidersFile)
		out := run(t, terraform, dir, env, "providers", "schema", "-json")
		for _, missing := range missingExamples(t, out) {
			t.Errorf("missing example: %s", missing)
		}
	})
}

// terraformEnv builds the provider once into work and returns the
// environment that makes Terraform use it without init and without network.
func terraformEnv(t *testing.T, work string) []string {
	t.Helper()
	plugins := filepath.Join(work, "plugins")
	build := exec.Command("go", "build", "-o", filepath.Join(plugins, "terraform-provider-pve"), ".")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the provider: %v\n%s", err, out)
	}
	cliConfig := filepath.Join(work, "terraformrc")
	writeFile(t, cliConfig, fmt.Sprintf(`provider_installation {
  dev_overrides {
    %q = %q
  }
  direct {}
}
`, providerSource, filepath.ToSlash(plugins)))

	env := make([]string, 0, len(os.Environ())+4)
	for _, kv := range os.Environ() {
		// Arguments or a CLI configuration from the caller's shell would change
		// what is checked.
		if strings.HasPrefix(kv, "TF_CLI_ARGS") || strings.HasPrefix(kv, "TF_CLI_CONFIG_FILE=") ||
			strings.HasPrefix(kv, "TF_DATA_DIR=") || strings.HasPrefix(kv, "TF_PLUGIN_CACHE_DIR=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"TF_CLI_CONFIG_FILE="+cliConfig,
		"TF_IN_AUTOMATION=1",
		"CHECKPOINT_DISABLE=1",
	)
}

// exampleDirs lists, relative to examples/, every directory holding .tf
// or .tfquery.hcl files.
func exampleDirs(t *testing.T) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != "." {
			return filepath.SkipDir
		}
		if !d.IsDir() && (strings.HasSuffix(d.Name(), ".tf") || strings.HasSuffix(d.Name(), queryFileSuffix)) {
			dir := filepath.Dir(path)
			if !slices.Contains(dirs, dir) {
				dirs = append(dirs, dir)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(dirs)
	return dirs
}

// hasQueryFiles reports whether dir holds .tfquery.hcl files.
func hasQueryFiles(t *testing.T, dir string) bool {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(dir, "*"+queryFileSuffix))
	if err != nil {
		t.Fatal(err)
	}
	return len(matches) > 0
}

// copyExample copies the files of one example directory (not its
// subdirectories: each is an example of its own) so that Terraform's working
// files never land in the repository.
func copyExample(t *testing.T, src, dst, leaveOut string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	declaresProviders := false
	for _, entry := range entries {
		if entry.IsDir() || entry.Name() == leaveOut {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, entry.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(entry.Name(), ".tf") && bytes.Contains(data, []byte("required_providers")) {
			declaresProviders = true
		}
		writeFile(t, filepath.Join(dst, entry.Name()), string(data))
	}
	if !declaresProviders {
		writeFile(t, filepath.Join(dst, "zz_required_providers.tf"), requiredProvidersFile)
	}
}

func run(t *testing.T, terraform, dir string, env []string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(terraform, args...)
	cmd.Dir = dir
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("terraform %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.Bytes()
}

type diagnostic struct {
	Severity string `json:"severity"`
	Summary  string `json:"summary"`
	Detail   string `json:"detail"`
	Range    *struct {
		Filename string `json:"filename"`
		Start    struct {
			Line int `json:"line"`
		} `json:"start"`
	} `json:"range"`
}

// checkValid fails on an invalid configuration and on every warning but the
// one dev_overrides always causes: a deprecation or an ignored attribute in
// an example is a documentation bug too.
func checkValid(t *testing.T, out []byte) {
	t.Helper()
	var result struct {
		Valid       bool         `json:"valid"`
		Diagnostics []diagnostic `json:"diagnostics"`
	}
	if err := json.Unmarshal(out, &result); err != nil {
		t.Fatalf("parse terraform validate -json: %v\n%s", err, out)
	}
	for _, d := range result.Diagnostics {
		if d.Severity == "warning" && d.Summary == devOverridesWarning {
			continue
		}
		where := ""
		if d.Range != nil {
			where = fmt.Sprintf(" (%s:%d)", d.Range.Filename, d.Range.Start.Line)
		}
		t.Errorf("%s%s: %s: %s", d.Severity, where, d.Summary, d.Detail)
	}
	if !result.Valid {
		t.Error("terraform validate reports the configuration invalid")
	}
}

// missingExamples names the example files the documentation generator
// expects for every resource, data source and function in the provider's
// schema but that do not exist. A Terraform older than 1.8 lists no
// functions, and one older than 1.14 no actions or list resources: then
// none is asked for.
func missingExamples(t *testing.T, schemaJSON []byte) []string {
	t.Helper()
	var schemas struct {
		ProviderSchemas map[string]struct {
			ResourceSchemas   map[string]json.RawMessage `json:"resource_schemas"`
			DataSourceSchemas map[string]json.RawMessage `json:"data_source_schemas"`
			Functions         map[string]json.RawMessage `json:"functions"`
			ActionSchemas     map[string]json.RawMessage `json:"action_schemas"`
			ListResources     map[string]json.RawMessage `json:"list_resource_schemas"`
		} `json:"provider_schemas"`
	}
	if err := json.Unmarshal(schemaJSON, &schemas); err != nil {
		t.Fatalf("parse terraform providers schema -json: %v", err)
	}
	var resources, dataSources, functions, actions, listResources []string
	for _, p := range schemas.ProviderSchemas {
		for name := range p.ActionSchemas {
			actions = append(actions, name)
		}
		for name := range p.ListResources {
			listResources = append(listResources, name)
		}
		for name := range p.Functions {
			functions = append(functions, name)
		}
		for name := range p.ResourceSchemas {
			resources = append(resources, name)
		}
		for name := range p.DataSourceSchemas {
			dataSources = append(dataSources, name)
		}
	}
	if len(resources) == 0 || len(dataSources) == 0 {
		t.Fatalf("the provider's schema lists %d resources and %d data sources", len(resources), len(dataSources))
	}
	var want []string
	for _, name := range resources {
		want = append(want,
			filepath.Join("resources", name, "resource.tf"),
			filepath.Join("resources", name, "import.sh"),
			filepath.Join("resources", name, identityImportExample))
	}
	for _, name := range dataSources {
		want = append(want, filepath.Join("data-sources", name, "data-source.tf"))
	}
	for _, name := range functions {
		want = append(want, filepath.Join("functions", name, "function.tf"))
	}
	for _, name := range actions {
		want = append(want, filepath.Join("actions", name, "action.tf"))
	}
	for _, name := range listResources {
		want = append(want, filepath.Join("list-resources", name, "list-resource"+queryFileSuffix))
	}
	var missing []string
	for _, path := range want {
		if _, err := os.Stat(path); err != nil {
			missing = append(missing, path)
		}
	}
	slices.Sort(missing)
	return missing
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
