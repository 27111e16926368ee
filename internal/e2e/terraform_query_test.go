package e2e_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/go-version"
)

// queryVersion is the first Terraform with `terraform query` and list
// resources.
var queryVersion = version.Must(version.NewVersion("1.14.0"))

// needsQuery skips the test when the terraform it runs is older than
// queryVersion, or is OpenTofu, which has no query command or list
// resources (up to OpenTofu 1.12), saying so: the test counts as passed
// only where it ran.
func needsQuery(t *testing.T) {
	t.Helper()
	if v := openTofuVersion(t); v != "" {
		t.Skipf("terraform query needs Terraform %s or later; OpenTofu %s has no query command or list resources: not run.", queryVersion, v)
	}
	cmd := exec.Command(terraformBinary(), "version", "-json")
	cmd.Env = append(os.Environ(), "CHECKPOINT_DISABLE=1")
	data, err := cmd.Output()
	if err != nil {
		t.Fatalf("terraform version -json: %v", err)
	}
	var out struct {
		Version string `json:"terraform_version"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("terraform version -json: %v\n%s", err, data)
	}
	v, err := version.NewVersion(out.Version)
	if err != nil {
		t.Fatalf("terraform version %q: %v", out.Version, err)
	}
	if v.Core().LessThan(queryVersion) {
		t.Skipf("terraform query needs Terraform %s or later, and this is Terraform %s: not run. "+
			"Set TF_ACC_TERRAFORM_PATH to a newer terraform to run it.", queryVersion, v)
	}
}

// openTofuVersion is the version the CLI the tests run names when it is
// OpenTofu ("OpenTofu v1.12.6" on a line of `version`: `version -json`
// does not name the product), else "".
func openTofuVersion(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(terraformBinary(), "version")
	cmd.Env = append(os.Environ(), "CHECKPOINT_DISABLE=1")
	data, err := cmd.Output()
	if err != nil {
		t.Fatalf("terraform version: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "OpenTofu v"); ok {
			return v
		}
	}
	return ""
}

// generatedImport is an import block terraform query generates.
var generatedImport = regexp.MustCompile(`(?m)^import \{\n\s+to\s+= (pve_(?:vm|container)\.\w+)\n`)

// TestAdoptClusterTerraformQuery adopts every guest tagged prod with the
// guide's query file: terraform query lists the unmanaged guests and
// generates an import block and a resource block for each, the apply of
// that configuration imports them and writes nothing to PVE, and the next
// plan is empty. Needs Terraform 1.14 or later.
func TestAdoptClusterTerraformQuery(t *testing.T) {
	t.Parallel()
	needsQuery(t)
	e, _ := adoptionEnv(t)
	// /cluster/resources names a guest once pvestatd has reported it.
	e.sim.ReportStats()
	before := snapshotGuestConfigs(e.sim)

	e.write(e.dir, "")
	writeAdoptionFile(t, e.dir, "discover.tfquery.hcl", adoptionExample(t, "query/discover.tfquery.hcl"))
	r := e.run(e.dir, "query", "-no-color", "-generate-config-out=generated.tf")
	if r.exitCode != 0 {
		t.Fatalf("terraform query failed (exit %d):\n%s", r.exitCode, r.output)
	}
	for _, name := range []string{"web-01", "db-02", "dns-01", "queue-01"} {
		if !strings.Contains(r.output, name) {
			t.Errorf("terraform query does not show %s:\n%s", name, r.output)
		}
	}
	for _, name := range []string{"golden-image", "lab-01", "sandbox-01"} {
		if strings.Contains(r.output, name) {
			t.Errorf("terraform query shows %s, which the filter leaves out:\n%s", name, r.output)
		}
	}
	generated := readAdoptionFile(t, e.dir, "generated.tf")
	var imported []string
	for _, m := range generatedImport.FindAllStringSubmatch(generated, -1) {
		imported = append(imported, m[1])
	}
	sort.Strings(imported)
	if len(imported) != len(adoptedVMs)+len(adoptedContainers) {
		t.Fatalf("generated %d import blocks, want %d:\n%s", len(imported), len(adoptedVMs)+len(adoptedContainers), generated)
	}
	if !strings.Contains(generated, "identity = {") {
		t.Errorf("the generated import blocks do not import by identity:\n%s", generated)
	}
	checkGeneratedResources(t, generated, imported)

	checkAdoptingApply(t, e.apply(e.dir, 4), len(imported))
	checkGuestsUnchanged(t, before, snapshotGuestConfigs(e.sim))
	e.mustPlanEmpty(e.dir)
}

// checkGeneratedResources fails unless generated holds one resource block
// for each import block's address.
func checkGeneratedResources(t *testing.T, generated string, addresses []string) {
	t.Helper()
	for _, addr := range addresses {
		typ, name, _ := strings.Cut(addr, ".")
		if !strings.Contains(generated, fmt.Sprintf("resource %q %q {", typ, name)) {
			t.Errorf("no resource block for %s in the generated configuration", addr)
		}
	}
	if t.Failed() {
		t.Logf("generated configuration:\n%s", generated)
	}
}

// TestTerraformQueryTemplatesPoolsAndFiles adopts what guests use with
// terraform query: the VM template, the pool and the ISO images listed
// with include_resource generate configuration whose apply imports them
// and writes nothing, and the next plan is empty. Needs Terraform 1.14 or
// later.
func TestTerraformQueryTemplatesPoolsAndFiles(t *testing.T) {
	t.Parallel()
	needsQuery(t)
	e, _ := adoptionEnv(t)
	e.sim.ReportStats()
	before := snapshotGuestConfigs(e.sim)

	e.write(e.dir, "")
	writeAdoptionFile(t, e.dir, "discover.tfquery.hcl", `
list "pve_vm_template" "all" {
  provider         = pve
  include_resource = true
}

list "pve_pool" "all" {
  provider         = pve
  include_resource = true
}

list "pve_iso" "pve1" {
  provider         = pve
  include_resource = true
  config {
    node = "pve1"
  }
}
`)
	r := e.run(e.dir, "query", "-no-color", "-generate-config-out=generated.tf")
	if r.exitCode != 0 {
		t.Fatalf("terraform query failed (exit %d):\n%s", r.exitCode, r.output)
	}
	generated := readAdoptionFile(t, e.dir, "generated.tf")
	for _, want := range []string{`resource "pve_vm_template"`, `resource "pve_pool"`, `resource "pve_iso"`, `poolid = "prod"`, `name = "golden-image"`} {
		if !strings.Contains(strings.Join(strings.Fields(generated), " "), want) {
			t.Errorf("the generated configuration has no %s:\n%s", want, generated)
		}
	}
	apply := e.apply(e.dir, 4)
	if apply.exitCode != 0 || !strings.Contains(apply.output, " imported, 0 added, 0 changed, 0 destroyed.") {
		t.Fatalf("adopting apply (exit %d):\n%s\ngenerated configuration:\n%s", apply.exitCode, apply.output, generated)
	}
	checkGuestsUnchanged(t, before, snapshotGuestConfigs(e.sim))
	e.mustPlanEmpty(e.dir)
}
