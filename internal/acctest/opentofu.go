package acctest

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strings"
	"sync"

	"github.com/hashicorp/go-version"
)

// The Terraform-level tests run with OpenTofu as the CLI too
// (TF_ACC_TERRAFORM_PATH=/path/to/tofu, or tofu on PATH as terraform).
// Two things differ for the tests:
//
//   - A configuration without required_providers gives the provider the
//     address registry.opentofu.org/hashicorp/pve under OpenTofu, not
//     registry.terraform.io/hashicorp/pve, and OpenTofu reattaches a
//     provider the test process serves only under the exact address the
//     configuration names. terraform-plugin-testing serves it under
//     TF_ACC_PROVIDER_HOST, which the tests set to OpenTofu's registry.
//   - `tofu version -json` reports its own version as terraform_version,
//     and OpenTofu's versions are not Terraform's: a feature Terraform
//     added in 1.14 is not in OpenTofu 1.14. What needs a newer CLI is
//     gated by what OpenTofu supports (openTofuSince).
const (
	openTofuRegistry    = "registry.opentofu.org"
	terraformRegistry   = "registry.terraform.io"
	envProviderHost     = "TF_ACC_PROVIDER_HOST"
	envCLIConfigFile    = "TF_CLI_CONFIG_FILE"
	openTofuVersionName = "OpenTofu"
)

// openTofuSince maps the Terraform version a Terraform-level test needs
// (NeedsTerraform, CLI) to the first OpenTofu release with the same
// feature; "" is a feature no OpenTofu release has (checked up to
// OpenTofu 1.12):
//
//   - 1.12.0, resource identity: OpenTofu 1.12 imports by identity
//     (import blocks' identity argument) and keeps identities in its state.
//   - 1.14.0, actions, list resources and `terraform query`: not in
//     OpenTofu 1.12.
var openTofuSince = map[string]string{
	"1.12.0": "1.12.0",
	"1.14.0": "",
}

// cliKind is what the CLI the tests run says it is.
type cliKind struct {
	openTofu bool
	err      error
}

var (
	cliKindOnce sync.Once
	cliKindSeen cliKind
)

// terraformCLI is the CLI the Terraform-level tests run:
// TF_ACC_TERRAFORM_PATH, else terraform on PATH.
func terraformCLI() (string, error) {
	if path := os.Getenv(envTerraformPath); path != "" {
		return path, nil
	}
	return exec.LookPath("terraform")
}

// usesOpenTofu reports whether the CLI the tests run is OpenTofu, asking
// it once per test process (`version` names the product on its first line;
// `version -json` does not).
func usesOpenTofu() bool {
	cliKindOnce.Do(func() {
		cli, err := terraformCLI()
		if err != nil {
			cliKindSeen.err = err
			return
		}
		cmd := exec.Command(cli, "version")
		cmd.Env = append(os.Environ(), "CHECKPOINT_DISABLE=1")
		out, err := cmd.Output()
		if err != nil {
			cliKindSeen.err = err
			return
		}
		cliKindSeen.openTofu = isOpenTofuVersionText(out)
	})
	return cliKindSeen.openTofu
}

// isOpenTofuVersionText reports whether the output of `version` is
// OpenTofu's ("OpenTofu v1.12.6"). A CLI configuration problem may print
// a warning before it, so every line counts.
func isOpenTofuVersionText(out []byte) bool {
	lines := bufio.NewScanner(bytes.NewReader(out))
	for lines.Scan() {
		if strings.HasPrefix(strings.TrimSpace(lines.Text()), openTofuVersionName+" v") {
			return true
		}
	}
	return false
}

// providerHost is the registry host of the address a configuration
// without required_providers gives the provider under the CLI the tests
// run.
func providerHost() string {
	if usesOpenTofu() {
		return openTofuRegistry
	}
	return terraformRegistry
}

// useOpenTofu prepares the environment terraform-plugin-testing runs
// OpenTofu in, when the CLI is OpenTofu:
//
//   - the provider is served under OpenTofu's address, unless the
//     developer has chosen a host;
//   - a TF_CLI_CONFIG_FILE that names no file is dropped: OpenTofu warns
//     about it on standard output, even for `version -json`, which the
//     library then cannot parse (Terraform warns on standard error). A
//     missing file configures nothing, so nothing changes but the warning.
func useOpenTofu() {
	if !usesOpenTofu() {
		return
	}
	if os.Getenv(envProviderHost) == "" {
		_ = os.Setenv(envProviderHost, openTofuRegistry)
	}
	if file := os.Getenv(envCLIConfigFile); file != "" {
		if _, err := os.Stat(file); os.IsNotExist(err) {
			_ = os.Unsetenv(envCLIConfigFile)
		}
	}
}

// openTofuSkip is the reason to skip a test that needs Terraform minimum
// (what) under OpenTofu have, or "" when OpenTofu have has the feature.
func openTofuSkip(minimum *version.Version, what string, have *version.Version) string {
	since, known := openTofuSince[minimum.String()]
	if !known {
		// A Terraform release with no entry: OpenTofu's release of the
		// same number is taken to have it, as for the older features
		// (provider functions: Terraform 1.8, OpenTofu 1.7).
		since = minimum.String()
	}
	if since == "" {
		return what + " needs Terraform " + minimum.String() + " or later; OpenTofu " +
			have.String() + " does not support it: not run."
	}
	if have.Core().LessThan(version.Must(version.NewVersion(since))) {
		return what + " needs OpenTofu " + since + " or later, and this is OpenTofu " +
			have.String() + ": not run."
	}
	return ""
}
