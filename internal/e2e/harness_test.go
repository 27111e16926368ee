package e2e_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// The tests here run the real terraform binary against the provider built
// from this tree, because two concurrent terraform processes and a SIGKILL
// in the middle of an apply are things terraform-plugin-testing cannot do.

var (
	buildOnce   sync.Once
	pluginDir   string
	buildErr    error
	buildOutput []byte
)

func TestMain(m *testing.M) {
	code := m.Run()
	if pluginDir != "" {
		_ = os.RemoveAll(pluginDir)
	}
	os.Exit(code)
}

// providerPlugins builds the provider once for the whole package and returns
// the directory the dev_overrides point at.
func providerPlugins(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath(terraformBinary()); err != nil {
		t.Fatal("terraform is not on PATH: these tests run the real binary")
	}
	buildOnce.Do(func() {
		pluginDir, buildErr = os.MkdirTemp("", "pve-e2e-plugins-")
		if buildErr != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", filepath.Join(pluginDir, "terraform-provider-pve"), "../..")
		buildOutput, buildErr = cmd.CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("build provider: %v\n%s", buildErr, buildOutput)
	}
	return pluginDir
}

// terraformBinary is the terraform the tests run: TF_ACC_TERRAFORM_PATH
// when set (as for the Terraform-level tests, so that make test-modern
// runs these with the newer CLI too), else terraform on PATH.
func terraformBinary() string {
	if path := os.Getenv("TF_ACC_TERRAFORM_PATH"); path != "" {
		return path
	}
	return "terraform"
}

// env is one simulator and a terraform working directory configured for it.
type env struct {
	t       *testing.T
	sim     *pvesim.Sim
	dir     string
	cliConf string
	header  string // terraform and provider blocks
	// endpoint, caFile and rootPassword are the connection the header
	// holds, for configurations that bring their own provider blocks.
	endpoint, caFile, rootPassword string
}

type envOptions struct {
	// sim configures the simulator; a zero TaskDuration or StatsInterval
	// takes the defaults below.
	sim           pvesim.Options
	passwordAuth  bool
	providerExtra string // extra lines in the provider block
}

// The simulator's tasks take e2eTaskDuration and /cluster/resources lags
// by up to e2eStatsInterval unless a test sets its own, as on PVE
// (shorter): every test goes through running tasks, the locks they hold
// and a lagging listing.
const (
	e2eTaskDuration  = 100 * time.Millisecond
	e2eStatsInterval = 300 * time.Millisecond
)

func newEnv(t *testing.T, opts envOptions) *env {
	t.Helper()
	plugins := providerPlugins(t)
	token := "root@pam!e2e=" + randomHex(t, 16)
	password := randomHex(t, 12)
	opts.sim.Tokens = append(opts.sim.Tokens, token)
	opts.sim.Passwords = append(opts.sim.Passwords, "root@pam="+password)
	if opts.sim.TaskDuration == 0 {
		opts.sim.TaskDuration = e2eTaskDuration
	}
	if opts.sim.StatsInterval == 0 {
		opts.sim.StatsInterval = e2eStatsInterval
	}
	sim, err := pvesim.New(opts.sim)
	if err != nil {
		t.Fatalf("start simulator: %v", err)
	}
	root := t.TempDir()
	caFile := filepath.Join(root, "pvesim-ca.pem")
	srv, err := sim.StartTLS("127.0.0.1:0", caFile)
	if err != nil {
		t.Fatalf("serve simulator: %v", err)
	}
	t.Cleanup(func() { _ = srv.Close() })

	cliConf := filepath.Join(root, "terraformrc")
	rc := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    \"proxops/pve\" = %q\n  }\n  direct {}\n}\n", plugins)
	if err := os.WriteFile(cliConf, []byte(rc), 0o600); err != nil {
		t.Fatal(err)
	}
	auth := fmt.Sprintf("  api_token = %q\n", token)
	if opts.passwordAuth {
		auth = fmt.Sprintf("  username = \"root@pam\"\n  password = %q\n", password)
	}
	header := fmt.Sprintf(`terraform {
  required_providers {
    pve = { source = "proxops/pve" }
  }
}

provider "pve" {
  endpoint = %q
  ca_file  = %q
%s%s}
`, srv.URL, caFile, auth, opts.providerExtra)
	dir := filepath.Join(root, "config")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return &env{t: t, sim: sim, dir: dir, cliConf: cliConf, header: header,
		endpoint: srv.URL, caFile: caFile, rootPassword: password}
}

// outsideClient is a client for changes "outside Terraform", talking to
// the simulator in process with token (one of the simulator's tokens).
func (e *env) outsideClient(token string) *pveapi.Client {
	e.t.Helper()
	client, err := pveapi.New(pveapi.Config{
		Endpoint:         "http://127.0.0.1:8006",
		APIToken:         token,
		HTTPClient:       &http.Client{Transport: inProcessTransport{e.sim.Handler()}},
		RetryMax:         -1,
		TaskPollInterval: time.Millisecond,
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return client
}

// workdir returns a second working directory on the same simulator, for a
// second terraform process with its own state.
func (e *env) workdir(name string) string {
	e.t.Helper()
	dir := filepath.Join(filepath.Dir(e.dir), name)
	if err := os.Mkdir(dir, 0o700); err != nil {
		e.t.Fatal(err)
	}
	return dir
}

func (e *env) write(dir, body string) {
	e.t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(e.header+body), 0o600); err != nil {
		e.t.Fatal(err)
	}
}

// tfResult is one finished terraform run.
type tfResult struct {
	exitCode int
	output   string
}

// command prepares terraform in dir; the caller starts it.
func (e *env) command(ctx context.Context, dir string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	cmd := exec.CommandContext(ctx, terraformBinary(), append([]string{"-chdir=" + dir}, args...)...)
	cmd.Env = append(os.Environ(),
		"TF_CLI_CONFIG_FILE="+e.cliConf,
		"TF_IN_AUTOMATION=1",
		"CHECKPOINT_DISABLE=1",
		"TF_LOG=",
		"PVE_ENDPOINT=", "PVE_API_TOKEN=", "PVE_USERNAME=", "PVE_PASSWORD=",
	)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	return cmd, &out
}

func (e *env) run(dir string, args ...string) tfResult {
	e.t.Helper()
	return e.runWith(dir, nil, args...)
}

// runWith runs terraform in dir with extra environment variables, which
// override the ones command sets.
func (e *env) runWith(dir string, extraEnv []string, args ...string) tfResult {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd, out := e.command(ctx, dir, args...)
	cmd.Env = append(cmd.Env, extraEnv...)
	err := cmd.Run()
	code := 0
	if err != nil {
		var exitErr *exec.ExitError
		if !errors.As(err, &exitErr) {
			e.t.Fatalf("terraform %s: %v", strings.Join(args, " "), err)
		}
		code = exitErr.ExitCode()
	}
	return tfResult{exitCode: code, output: out.String()}
}

// apply runs terraform apply in dir and returns its result.
func (e *env) apply(dir string, parallelism int) tfResult {
	e.t.Helper()
	return e.run(dir, "apply", "-auto-approve", "-input=false", "-no-color", fmt.Sprintf("-parallelism=%d", parallelism))
}

// mustApply fails the test unless the apply succeeds.
func (e *env) mustApply(dir string, parallelism int) {
	e.t.Helper()
	if r := e.apply(dir, parallelism); r.exitCode != 0 {
		e.t.Fatalf("apply failed (exit %d):\n%s", r.exitCode, r.output)
	}
}

// mustPlanEmpty fails the test unless a plan shows no changes.
func (e *env) mustPlanEmpty(dir string) {
	e.t.Helper()
	r := e.run(dir, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	if r.exitCode != 0 {
		e.t.Fatalf("plan after apply is not empty (exit %d):\n%s", r.exitCode, r.output)
	}
}

func randomHex(t *testing.T, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}
