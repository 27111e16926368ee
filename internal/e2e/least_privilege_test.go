package e2e_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// exampleFile reads a file of the examples directory, which the guides
// embed as they are.
func exampleFile(t *testing.T, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// quickstartBody is the quickstart without its terraform and provider
// blocks, which the test supplies with the connection it chooses.
func quickstartBody(t *testing.T) string {
	t.Helper()
	text := exampleFile(t, "quickstart", "main.tf")
	i := strings.Index(text, `data "pve_version"`)
	if i < 0 {
		t.Fatal("the quickstart no longer starts with the pve_version data source")
	}
	return text[i:]
}

var apiTokenLine = regexp.MustCompile(`(?m)^  api_token = ".*"$`)

// The guide "A least-privilege token for Terraform, in Terraform", followed
// as written: an administrator's run creates the provider's role from
// pve_provider_privileges, its user, a privilege-separated token and the
// ACL entries, with an empty plan after; the quickstart then runs with the
// new token alone, with an empty plan after. Taking one privilege away from
// the role makes the change that needs it fail with an error naming the
// privilege and the path, and nothing else.
func TestLeastPrivilegeTokenGuide(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.write(e.dir, exampleFile(t, "least-privilege-token", "terraform-user.tf"))
	e.mustApply(e.dir, 4)
	e.mustPlanEmpty(e.dir)

	token := e.outputRaw(e.dir, "api_token")
	if !strings.HasPrefix(token, "terraform@pve!provider=") {
		t.Fatalf("api_token output = %q, want the token terraform@pve!provider with its secret", token)
	}
	e.sim.View(func(c *pvesim.Cluster) {
		tok := c.Access.Users["terraform@pve"].Tokens["provider"]
		if tok == nil || !tok.Privsep {
			t.Fatalf("the token should exist with privilege separation: %+v", tok)
		}
	})

	workload := e.workdir("workload")
	header := apiTokenLine.ReplaceAllLiteralString(e.header, `  api_token = "`+token+`"`)
	if header == e.header {
		t.Fatal("the provider block has no api_token line to replace")
	}
	writeWorkload := func(body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(workload, "main.tf"), []byte(header+body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	quickstart := quickstartBody(t)
	writeWorkload(quickstart)
	e.mustApply(workload, 4)
	e.mustPlanEmpty(workload)

	// The role loses VM.Config.Memory (an override file, so the guide's
	// file stays as written); a memory change is then refused by PVE, and
	// the error names the privilege and the path.
	override := `resource "pve_role" "terraform" {
  privileges = setsubtract(data.pve_provider_privileges.terraform.privileges, ["VM.Config.Memory"])
}
`
	if err := os.WriteFile(filepath.Join(e.dir, "role_override.tf"), []byte(override), 0o600); err != nil {
		t.Fatal(err)
	}
	e.mustApply(e.dir, 4)
	bigger := strings.Replace(quickstart, "memory        = { size = 512 }", "memory        = { size = 1024 }", 1)
	if bigger == quickstart {
		t.Fatal("the quickstart's VM memory line changed; update the test")
	}
	writeWorkload(bigger)
	r := e.apply(workload, 4)
	if r.exitCode == 0 {
		t.Fatalf("the memory change applied without VM.Config.Memory:\n%s", r.output)
	}
	if out := strings.Join(strings.Fields(r.output), " "); !strings.Contains(out, "VM.Config.Memory") || !strings.Contains(out, "/vms/") {
		t.Errorf("the error should name VM.Config.Memory and the VM's path:\n%s", r.output)
	}
}
