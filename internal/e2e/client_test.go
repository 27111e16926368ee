package e2e_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// A PVE that sends the headers of an answer and then stalls must not hang
// a plan: each request has a deadline (request_timeout), a read that runs
// out of time is sent again, and when every attempt stalls the plan ends
// with an error naming the request.
func TestClient_stalledRefreshEndsWithAnError(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{providerExtra: "  request_timeout = \"1s\"\n"})
	pool := "stall-" + randomHex(t, 3)
	e.write(e.dir, fmt.Sprintf("resource \"pve_pool\" \"p\" {\n  poolid = %q\n}\n", pool))
	e.mustApply(e.dir, 1)

	// One stalled answer: the read is sent again and the plan is empty.
	if err := e.sim.InjectFault(pvesim.Fault{Method: "GET", Path: "/pools", Action: pvesim.FaultStall, Count: 1}); err != nil {
		t.Fatal(err)
	}
	e.mustPlanEmpty(e.dir)
	e.sim.ClearFaults()

	if err := e.sim.InjectFault(pvesim.Fault{Method: "GET", Path: "/pools", Action: pvesim.FaultStall}); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	r := e.run(e.dir, "plan", "-input=false", "-no-color")
	elapsed := time.Since(started)
	if r.exitCode == 0 {
		t.Fatalf("plan against a stalled PVE succeeded:\n%s", r.output)
	}
	out := strings.Join(strings.Fields(r.output), " ")
	for _, want := range []string{"GET /pools", "no complete answer within the request timeout of 1s", "request_timeout"} {
		if !strings.Contains(out, want) {
			t.Errorf("the error should say %q:\n%s", want, r.output)
		}
	}
	if elapsed > 90*time.Second {
		t.Errorf("the stalled plan took %s", elapsed)
	}
	if n := e.sim.Count("GET", "/pools"); n < 2 {
		t.Errorf("the stalled read was sent %d times, want retries", n)
	}
}

// With TF_LOG=debug, Terraform's log shows every request the provider
// makes to PVE (method, path, status, duration, the task it started), and
// none of the secrets: the password, the ticket and CSRF token PVE gave for
// it, a cloud-init password.
func TestClient_debugLogShowsRequestsWithoutSecrets(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{passwordAuth: true})
	password := regexp.MustCompile(`password = "([^"]+)"`).FindStringSubmatch(e.header)[1]
	const ciPassword = "Cl0ud-Init-Passw0rd"
	e.write(e.dir, `variable "ci_password" {
  type      = string
  sensitive = true
}

resource "pve_vm" "logged" {
  node    = "pve1"
  name    = "logged"
  started = false
  disks   = { scsi0 = { storage = "local-lvm", size = 4 } }
  network = { net0 = { bridge = "vmbr0" } }
  cloud_init = {
    storage             = "local-lvm"
    user                = "debian"
    password_wo         = var.ci_password
    password_wo_version = 1
  }
}
`)
	logFile := filepath.Join(t.TempDir(), "terraform.log")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd, out := e.command(ctx, e.dir, "apply", "-auto-approve", "-input=false", "-no-color")
	cmd.Env = append(cmd.Env, "TF_LOG=debug", "TF_LOG_PATH="+logFile, "TF_VAR_ci_password="+ciPassword)
	if err := cmd.Run(); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	data, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	log := string(data)

	var requests []string
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "PVE API request") {
			requests = append(requests, line)
		}
	}
	for _, want := range [][]string{
		{"[DEBUG]", "method=POST", "path=/access/ticket", "status=200", "duration_ms="},
		{"method=GET", "path=/cluster/resources", "status=200"},
		{"method=POST", "path=/nodes/pve1/qemu", "status=200", "upid=UPID:pve1:"},
		{"method=GET", "path=/nodes/pve1/tasks/UPID:pve1:"},
	} {
		if !containsLineWithAll(requests, want) {
			t.Errorf("no request line with %q in the debug log; request lines:\n%s", want, strings.Join(requests, "\n"))
		}
	}
	for name, secret := range map[string]*regexp.Regexp{
		"password":            regexp.MustCompile(regexp.QuoteMeta(password)),
		"cloud-init password": regexp.MustCompile(ciPassword),
		"ticket":              regexp.MustCompile(`PVE:root@pam:[0-9A-F]{8}::`),
		"CSRF token":          regexp.MustCompile(`\b[0-9A-F]{8}:[A-Za-z0-9+/]{30,}`),
	} {
		if loc := secret.FindStringIndex(log); loc != nil {
			t.Errorf("the debug log holds the %s: ...%s...", name, log[max(0, loc[0]-80):loc[1]])
		}
	}
}

func containsLineWithAll(lines, parts []string) bool {
	for _, line := range lines {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all {
			return true
		}
	}
	return false
}

// Changing the node of a running container restarts it (PVE moves
// containers only in restart mode): the plan says so before the apply.
func TestClient_planWarnsThatMovingARunningContainerRestartsIt(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	container := func(node string, started bool) string {
		return fmt.Sprintf(`resource "pve_container" "moved" {
  node        = %q
  hostname    = "moved"
  started     = %t
  os_template = %q
  root_disk   = { storage = "local-lvm", size = 2 }
}
`, node, started, ctTemplate)
	}
	e.write(e.dir, container("pve1", true))
	e.mustApply(e.dir, 1)

	e.write(e.dir, container("pve2", true))
	r := e.run(e.dir, "plan", "-input=false", "-no-color")
	out := strings.Join(strings.Fields(r.output), " ")
	if r.exitCode != 0 || !strings.Contains(out, "Warning: Container Will Restart") ||
		!strings.Contains(out, "runs on pve1, and node changes to pve2") || !strings.Contains(out, "starts it again on pve2") {
		t.Fatalf("the plan should warn that the container restarts (exit %d):\n%s", r.exitCode, r.output)
	}

	// A stopped container moves without a restart: no warning.
	e.write(e.dir, container("pve1", false))
	e.mustApply(e.dir, 1)
	e.write(e.dir, container("pve2", false))
	if r := e.run(e.dir, "plan", "-input=false", "-no-color"); r.exitCode != 0 || strings.Contains(r.output, "Container Will Restart") {
		t.Fatalf("a stopped container's move is no restart (exit %d):\n%s", r.exitCode, r.output)
	}
}
