package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// providerPackage is built when no -provider binary is given, and
// profiledPackage instead of it for -profile.
const (
	providerPackage = "github.com/proxops/terraform-provider-pve"
	profiledPackage = providerPackage + "/tools/scale/profiled"
)

// profileDirEnv tells the profiled provider where to write; it must match
// the name in the profiled command.
const profileDirEnv = "PVE_SCALE_PROFILE_DIR"

// phase is one terraform command over one working directory.
type phase struct {
	name string
	dir  string // "empty" or "estate"
	args []string
	// okCodes are the exit codes that count as success; a no-op plan with
	// -detailed-exitcode must exit 0, 2 would mean changes.
	okCodes []int
}

func phases(parallelism int) []phase {
	par := fmt.Sprintf("-parallelism=%d", parallelism)
	common := []string{"-input=false", "-no-color"}
	with := func(args ...string) []string { return append(args, common...) }
	return []phase{
		{name: "baseline", dir: "empty", args: with("plan", "-detailed-exitcode"), okCodes: []int{0}},
		{name: "apply", dir: "estate", args: with("apply", "-auto-approve", par), okCodes: []int{0}},
		{name: "plan", dir: "estate", args: with("plan", "-detailed-exitcode", par), okCodes: []int{0}},
		// Terraform 1.11 answers 2 to a refresh-only plan that prints "No
		// changes." for any resource with a number in it: it compares the
		// refreshed state with the previous one by reflect.DeepEqual,
		// cached decoded values included, and a number decoded from the
		// state file's JSON differs in its big.Float precision from the
		// same number decoded from the provider's msgpack. The provider's
		// values are identical, so both codes pass; the code stays in the
		// report.
		{name: "refresh", dir: "estate", args: with("plan", "-refresh-only", "-detailed-exitcode", par), okCodes: []int{0, 2}},
		{name: "destroy", dir: "estate", args: with("destroy", "-auto-approve", par), okCodes: []int{0}},
	}
}

// bench holds one run's moving parts.
type bench struct {
	opts    options
	sim     *pvesim.Sim
	work    string
	rssLog  string
	env     []string
	logOut  io.Writer
	tfBin   string
	baseReq int
}

func run(ctx context.Context, opts options, logOut io.Writer) (*report, error) {
	tfBin, err := exec.LookPath(opts.terraform)
	if err != nil {
		return nil, fmt.Errorf("terraform binary: %w", err)
	}
	work, err := os.MkdirTemp("", "pve-scale-")
	if err != nil {
		return nil, err
	}
	if opts.keep {
		fmt.Fprintf(logOut, "working directory: %s\n", work)
	} else {
		defer func() { _ = os.RemoveAll(work) }()
	}

	b := &bench{opts: opts, work: work, rssLog: filepath.Join(work, "provider-rss.log"), logOut: logOut, tfBin: tfBin}
	provider, err := b.providerBinary(ctx)
	if err != nil {
		return nil, err
	}
	srv, err := b.startSim()
	if err != nil {
		return nil, err
	}
	defer func() { _ = srv.Close() }()
	if err := b.prepare(provider, srv); err != nil {
		return nil, err
	}

	rep := newReport(opts, terraformVersion(ctx, tfBin))
	for _, ph := range phases(opts.parallelism) {
		fmt.Fprintf(logOut, "%s: terraform %s\n", ph.name, strings.Join(ph.args, " "))
		pr, err := b.runPhase(ctx, ph)
		rep.Phases = append(rep.Phases, pr)
		if err != nil {
			rep.setCPUPerGuest(opts.guests)
			rep.evaluate()
			return rep, fmt.Errorf("phase %s: %w", ph.name, err)
		}
		if ph.name == "baseline" {
			b.baseReq = pr.Requests
		}
	}
	rep.setCPUPerGuest(opts.guests)
	rep.evaluate()
	return rep, nil
}

// providerBinary builds this module's provider unless one was given.
func (b *bench) providerBinary(ctx context.Context) (string, error) {
	if b.opts.provider != "" {
		abs, err := filepath.Abs(b.opts.provider)
		if err != nil {
			return "", err
		}
		return abs, nil
	}
	out := filepath.Join(b.work, "bin", "terraform-provider-pve")
	pkg := providerPackage
	if b.opts.profileDir != "" {
		pkg = profiledPackage
	}
	fmt.Fprintln(b.logOut, "building the provider")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
	cmd.Stdout, cmd.Stderr = b.logOut, b.logOut
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build provider: %w", err)
	}
	return out, nil
}

func (b *bench) startSim() (*pvesim.Server, error) {
	secret := make([]byte, 16)
	if _, err := rand.Read(secret); err != nil {
		return nil, err
	}
	token := "root@pam!scale=" + hex.EncodeToString(secret)
	sim, err := pvesim.New(pvesim.Options{
		Nodes:        scaleNodes,
		Tokens:       []string{token},
		Latency:      b.opts.latency,
		TaskDuration: b.opts.task,
		Seed:         1,
	})
	if err != nil {
		return nil, fmt.Errorf("simulator: %w", err)
	}
	caFile := filepath.Join(b.work, "pvesim-ca.pem")
	srv, err := sim.StartTLS("127.0.0.1:0", caFile)
	if err != nil {
		return nil, fmt.Errorf("serve simulator: %w", err)
	}
	b.sim = sim
	// The credentials go to the provider through its environment, so they
	// are written to no file.
	b.env = append(os.Environ(),
		"PVE_ENDPOINT="+srv.URL,
		"PVE_API_TOKEN="+token,
		"PVE_CA_FILE="+caFile,
	)
	return srv, nil
}

// prepare writes the launcher, the CLI configuration with dev_overrides and
// the two configurations: the estate and an empty one for the baseline.
func (b *bench) prepare(provider string, srv *pvesim.Server) error {
	pluginDir := filepath.Join(b.work, "plugins")
	for _, d := range []string{pluginDir, filepath.Join(b.work, "estate"), filepath.Join(b.work, "empty")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if err := installLauncher(pluginDir, provider, b.rssLog); err != nil {
		return err
	}
	rc := filepath.Join(b.work, "terraformrc")
	rcText := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    \"proxops/pve\" = %q\n  }\n  direct {}\n}\n", pluginDir)
	if err := os.WriteFile(rc, []byte(rcText), 0o600); err != nil {
		return err
	}
	b.env = append(withoutEnv(b.env, "TF_CLI_CONFIG_FILE", "TF_LOG", "TF_LOG_PROVIDER", "TF_CLI_ARGS"),
		"TF_CLI_CONFIG_FILE="+rc,
		"TF_IN_AUTOMATION=1",
		"CHECKPOINT_DISABLE=1",
	)
	head := providerBlock(b.opts.guests)
	if err := os.WriteFile(filepath.Join(b.work, "empty", "main.tf"), []byte(head), 0o600); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(b.work, "estate", "main.tf"), []byte(head+guestsConfig(b.opts.guests, b.opts.pools)), 0o600)
}

// runPhase runs one terraform command with fresh counters and collects its
// figures.
func (b *bench) runPhase(ctx context.Context, ph phase) (phaseReport, error) {
	b.sim.ResetCounters()
	if err := os.Remove(b.rssLog); err != nil && !errors.Is(err, os.ErrNotExist) {
		return phaseReport{Name: ph.name}, err
	}
	logFile := filepath.Join(b.work, ph.name+".log")
	out, err := os.Create(logFile)
	if err != nil {
		return phaseReport{Name: ph.name}, err
	}
	defer func() { _ = out.Close() }()

	args := append([]string{"-chdir=" + filepath.Join(b.work, ph.dir)}, ph.args...)
	cmd := exec.CommandContext(ctx, b.tfBin, args...)
	cmd.Env = b.env
	if b.opts.profileDir != "" {
		dir, err := filepath.Abs(filepath.Join(b.opts.profileDir, ph.name))
		if err != nil {
			return phaseReport{Name: ph.name}, err
		}
		cmd.Env = append(withoutEnv(b.env, profileDirEnv), profileDirEnv+"="+dir)
	}
	cmd.Stdout, cmd.Stderr = out, out
	start := time.Now()
	runErr := cmd.Run()
	wall := time.Since(start)

	pr := summarize(ph.name, b.sim.Requests(), b.opts.guests, b.baseReq)
	pr.Command = "terraform " + strings.Join(ph.args, " ")
	pr.WallSeconds = wall.Seconds()
	pr.ExitCode = exitCode(cmd, runErr)
	usage, usageErr := readUsage(b.rssLog)
	if usageErr != nil {
		return pr, usageErr
	}
	pr.ProviderPeakRSSMiB = float64(usage.peakRSSKiB) / 1024
	pr.ProviderCPUSeconds = usage.cpu.Seconds()
	pr.ProviderStarts = usage.instances
	if cmd.ProcessState != nil {
		// The kernel counts the provider instances Terraform waited for
		// in its usage.
		total := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		pr.TerraformCPUSeconds = max(0, (total - usage.cpu).Seconds())
	}
	if b.opts.profileDir != "" {
		allocs, err := readAllocStats(filepath.Join(b.opts.profileDir, ph.name))
		if err != nil {
			return pr, err
		}
		pr.ProviderAllocMiB = float64(allocs.bytes) / (1 << 20)
		pr.ProviderAllocs = allocs.objects
		pr.ProviderGCCycles = allocs.gcCycles
	}

	if pr.ExitCode < 0 || !contains(ph.okCodes, pr.ExitCode) {
		pr.Failure = fmt.Sprintf("terraform exited with %d (want %v)", pr.ExitCode, ph.okCodes)
		return pr, fmt.Errorf("%s\n%s", pr.Failure, tail(logFile, 40))
	}
	return pr, nil
}

func exitCode(cmd *exec.Cmd, err error) int {
	if cmd.ProcessState != nil {
		return cmd.ProcessState.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

func contains(codes []int, c int) bool {
	for _, x := range codes {
		if x == c {
			return true
		}
	}
	return false
}

// tail returns the last lines of a log, for an error message.
func tail(path string, lines int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	all := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return strings.Join(all, "\n")
}

func terraformVersion(ctx context.Context, tfBin string) string {
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, tfBin, "version")
	cmd.Env = append(os.Environ(), "CHECKPOINT_DISABLE=1")
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		return "unknown"
	}
	first, _, _ := strings.Cut(out.String(), "\n")
	return strings.TrimSpace(first)
}
