package acctest

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/go-version"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
)

// CLI runs the terraform binary directly, with this target's provider
// served by the test process (Terraform reattaches to it), for commands
// terraform-plugin-testing has no step for, such as
// `terraform apply -invoke`.
type CLI struct {
	terraform string
	dir       string
	env       []string
}

// providerAddress is the address a configuration without
// required_providers gives the provider, which the CLI reattaches: on
// OpenTofu's registry under OpenTofu.
func providerAddress() string {
	return providerHost() + "/hashicorp/pve"
}

// CLI starts the provider for the terraform binary the tests use
// (TF_ACC_TERRAFORM_PATH, else terraform on PATH) and writes config into a
// fresh working directory. The test is skipped, saying why, when that
// Terraform is older than minimum, which what needs.
func (tg *Target) CLI(t *testing.T, minimum, what, config string) *CLI {
	t.Helper()
	terraform, err := terraformCLI()
	if err != nil {
		t.Skip("terraform is not on PATH and TF_ACC_TERRAFORM_PATH is not set")
	}
	c := &CLI{terraform: terraform, dir: t.TempDir()}
	// An empty CLI configuration: nothing from the developer's home.
	cliConfig := filepath.Join(t.TempDir(), "terraformrc")
	if err := os.WriteFile(cliConfig, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	c.env = append(cliEnv(), "TF_CLI_CONFIG_FILE="+cliConfig)
	var v struct {
		Version string `json:"terraform_version"`
	}
	if err := json.Unmarshal(c.Run(t, "version", "-json"), &v); err != nil {
		t.Fatalf("terraform version -json: %v", err)
	}
	have, err := version.NewVersion(v.Version)
	if err != nil {
		t.Fatalf("terraform version %q: %v", v.Version, err)
	}
	want := version.Must(version.NewVersion(minimum))
	if usesOpenTofu() {
		if reason := openTofuSkip(want, what, have); reason != "" {
			t.Skip(reason)
		}
	} else if have.Core().LessThan(want) {
		t.Skipf("%s needs Terraform %s or later, and this is Terraform %s: not run. "+
			"Set TF_ACC_TERRAFORM_PATH to a newer terraform to run it.", what, minimum, have)
	}

	address := providerAddress()
	ctx, cancel := context.WithCancel(context.Background())
	reattach := make(chan *plugin.ReattachConfig, 1)
	closed := make(chan struct{})
	factory := tg.factories["pve"]
	server, err := factory()
	if err != nil {
		t.Fatalf("provider server: %v", err)
	}
	go func() {
		_ = tf6server.Serve(address, func() tfprotov6.ProviderServer { return server },
			tf6server.WithDebug(ctx, reattach, closed),
			tf6server.WithGoPluginLogger(hclog.NewNullLogger()),
			// The provider's logs go where TF_LOG and its kin send a
			// test's logs, not to the test's output.
			tf6server.WithLoggingSink(t),
			tf6server.WithoutLogStderrOverride())
	}()
	var rc *plugin.ReattachConfig
	select {
	case rc = <-reattach:
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatal("the provider server did not start")
	}
	t.Cleanup(func() {
		cancel()
		<-closed
	})
	info, err := json.Marshal(map[string]any{address: map[string]any{
		"Protocol": rc.Protocol, "ProtocolVersion": rc.ProtocolVersion, "Pid": rc.Pid, "Test": rc.Test,
		"Addr": map[string]string{"Network": rc.Addr.Network(), "String": rc.Addr.String()},
	}})
	if err != nil {
		t.Fatal(err)
	}
	c.env = append(c.env, "TF_REATTACH_PROVIDERS="+string(info))
	if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	c.Run(t, "init", "-input=false", "-no-color")
	return c
}

// cliEnv is the environment without what the developer's shell may set to
// change Terraform's behaviour.
func cliEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "TF_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1")
}

// Run runs terraform with args in the working directory and returns its
// standard output; a failure fails the test with both outputs.
func (c *CLI) Run(t *testing.T, args ...string) []byte {
	t.Helper()
	out, err := c.Try(args...)
	if err != nil {
		t.Fatalf("terraform %s: %v", strings.Join(args, " "), err)
	}
	return out
}

// Try is Run that returns the failure, with both outputs in the error.
func (c *CLI) Try(args ...string) ([]byte, error) {
	cmd := exec.Command(c.terraform, args...)
	cmd.Dir = c.dir
	cmd.Env = c.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), &cliError{err: err, stdout: stdout.String(), stderr: stderr.String()}
	}
	return stdout.Bytes(), nil
}

type cliError struct {
	err            error
	stdout, stderr string
}

func (e *cliError) Error() string { return e.err.Error() + "\n" + e.stdout + e.stderr }
func (e *cliError) Unwrap() error { return e.err }
