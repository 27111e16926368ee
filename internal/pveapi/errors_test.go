package pveapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// W12: only "Configuration file '...' does not exist" means NotFound.
func TestW12IsNotFoundOnlyForMissingGuestConfig(t *testing.T) {
	t.Parallel()
	cases := []struct {
		status  int
		message string
		want    bool
	}{
		{500, "Configuration file 'nodes/pve1/qemu-server/100.conf' does not exist", true},
		{500, "Configuration file 'nodes/pve-node-2/lxc/101.conf' does not exist", true},
		{500, "VM is locked (clone)", false},
		{500, "pool 'prod' does not exist", false},
		{500, "storage 'local-zfs' does not exist", false},
		{500, "unable to find configuration file for VM 100 on node 'pve1'", false},
		{500, "Configuration file 'nodes/pve1/qemu-server/100.conf' does not exist, or so", false},
		{500, "something random", false},
		{404, "Configuration file 'nodes/pve1/qemu-server/100.conf' does not exist", false},
		{400, "Parameter verification failed.", false},
	}
	for _, tc := range cases {
		err := &Error{Method: "GET", Path: "/x", StatusCode: tc.status, Message: tc.message}
		if got := IsNotFound(err); got != tc.want {
			t.Errorf("IsNotFound(%d %q) = %t, want %t", tc.status, tc.message, got, tc.want)
		}
		if got := IsNotFound(fmt.Errorf("wrapped: %w", err)); got != tc.want {
			t.Errorf("IsNotFound(wrapped %q) = %t, want %t", tc.message, got, tc.want)
		}
	}
	if IsNotFound(errors.New("Configuration file 'nodes/pve1/qemu-server/100.conf' does not exist")) {
		t.Error("a plain error is not a PVE answer")
	}
}

// W4: the message is the body "message" (PVE 8.4+), else the reason phrase.
func TestW4ErrorMessageSources(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	f.handle("GET /new", func(w http.ResponseWriter, _ *http.Request) {
		writePVEError(w, 500, "VM is locked (clone)\nsecond line")
	})
	f.handle("GET /old", func(w http.ResponseWriter, _ *http.Request) {
		writePVEOldError(w, 500, "VM is locked (backup)")
	})
	f.handle("GET /auth", func(w http.ResponseWriter, _ *http.Request) {
		writeRaw(w, 401, "No ticket", "") // W3: a 401 has no body
	})
	f.handle("GET /plain", func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "<html>gateway</html>", http.StatusNotImplemented)
	})
	c := f.client()
	ctx := context.Background()

	cases := []struct {
		path, message string
		status        int
	}{
		{"/new", "VM is locked (clone)\nsecond line", 500},
		{"/old", "VM is locked (backup)", 500},
		{"/auth", "No ticket", 401},
		{"/plain", "Not Implemented", 501},
	}
	for _, tc := range cases {
		err := c.Get(ctx, tc.path, nil, nil)
		apiErr, ok := AsError(err)
		if !ok {
			t.Fatalf("%s: want *Error, got %v", tc.path, err)
		}
		if apiErr.StatusCode != tc.status || apiErr.Message != tc.message || apiErr.Method != "GET" || apiErr.Path != tc.path {
			t.Errorf("%s: got %+v, want status %d message %q", tc.path, apiErr, tc.status, tc.message)
		}
	}
	if lock, ok := IsLocked(c.Get(ctx, "/new", nil, nil)); !ok || lock != "clone" {
		t.Errorf("multi-line locked message: lock %q ok %t", lock, ok)
	}
	if !IsAuth(c.Get(ctx, "/auth", nil, nil)) {
		t.Error("401 should be IsAuth")
	}
}

// W4: parameter errors are keyed by parameter and listed sorted.
func TestW4ParameterErrors(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	f.handle("PUT /nodes/{node}/qemu/{vmid}/config", func(w http.ResponseWriter, _ *http.Request) {
		writeParamError(w, map[string]string{
			"tags":   "invalid characters in tag\n",
			"delete": "unknown option 'foo'",
			"net0":   "invalid format - format error\nnet0.bridge: value does not match the regex pattern\n\n",
		})
	})
	err := f.client().Put(context.Background(), "/nodes/pve1/qemu/100/config", nil, nil)
	apiErr, ok := AsError(err)
	if !ok || apiErr.StatusCode != 400 {
		t.Fatalf("want 400 *Error, got %v", err)
	}
	if apiErr.Errors["tags"] != "invalid characters in tag" || len(apiErr.Errors) != 3 {
		t.Errorf("errors = %q", apiErr.Errors)
	}
	want := "PVE API error: PUT /nodes/pve1/qemu/100/config: 400 Parameter verification failed. " +
		"(delete: unknown option 'foo'; net0: invalid format - format error / net0.bridge: value does not match the regex pattern; " +
		"tags: invalid characters in tag)"
	if got := err.Error(); got != want {
		t.Errorf("Error() =\n%s\nwant\n%s", got, want)
	}
}

func TestErrorStringOneLine(t *testing.T) {
	t.Parallel()
	err := &Error{Method: "POST", Path: "/nodes/pve1/qemu", StatusCode: 500, Message: "VM is locked (clone)"}
	if got, want := err.Error(), "PVE API error: POST /nodes/pve1/qemu: 500 VM is locked (clone)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// W10.
func TestW10IsLocked(t *testing.T) {
	t.Parallel()
	cases := []struct {
		err  error
		lock string
		ok   bool
	}{
		{&Error{StatusCode: 500, Message: "VM is locked (clone)"}, "clone", true},
		{&Error{StatusCode: 500, Message: "CT is locked (snapshot)"}, "snapshot", true},
		{&Error{StatusCode: 500, Message: "VM is locked (snapshot-delete)\n"}, "snapshot-delete", true},
		{&TaskError{UPID: "u", ExitStatus: "VM is locked (backup)"}, "backup", true},
		{&Error{StatusCode: 500, Message: "can't lock file '/var/lock/qemu-server/lock-100.conf' - got timeout"}, "", false},
		{&Error{StatusCode: 500, Message: "VM 100 is locked"}, "", false},
		{errors.New("VM is locked (clone)"), "", false},
	}
	for _, tc := range cases {
		lock, ok := IsLocked(tc.err)
		if lock != tc.lock || ok != tc.ok {
			t.Errorf("IsLocked(%v) = %q %t, want %q %t", tc.err, lock, ok, tc.lock, tc.ok)
		}
	}
}

// W49.
func TestW49IsPermission(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	messages := map[string]string{
		"/simple":   "Permission check failed (/vms/100, VM.Audit)",
		"/any":      "Permission check failed (/vms/100, VM.Config.Disk|VM.Config.CDROM)",
		"/freetext": "Permission check failed (mount point type bind is only allowed for root@pam)",
		"/bare":     "Permission check failed",
		"/storage":  "Permission check failed (/storage/local-lvm, Datastore.AllocateSpace)",
	}
	for path, msg := range messages {
		f.handle("GET "+path, func(w http.ResponseWriter, _ *http.Request) { writePVEOldError(w, 403, msg) })
	}
	f.handle("GET /not403", func(w http.ResponseWriter, _ *http.Request) {
		writePVEError(w, 500, "Permission check failed (/vms/100, VM.Audit)")
	})
	c := f.client()
	want := map[string][2]string{
		"/simple":   {"/vms/100", "VM.Audit"},
		"/any":      {"/vms/100", "VM.Config.Disk|VM.Config.CDROM"},
		"/freetext": {"", ""},
		"/bare":     {"", ""},
		"/storage":  {"/storage/local-lvm", "Datastore.AllocateSpace"},
	}
	for path, w := range want {
		err := c.Get(context.Background(), path, nil, nil)
		gotPath, gotPriv, ok := IsPermission(err)
		if !ok || gotPath != w[0] || gotPriv != w[1] {
			t.Errorf("%s: IsPermission = %q %q %t, want %q %q", path, gotPath, gotPriv, ok, w[0], w[1])
		}
		if apiErr, _ := AsError(err); apiErr.Message != messages[path] {
			t.Errorf("%s: message %q lost", path, apiErr.Message)
		}
	}
	if _, _, ok := IsPermission(c.Get(context.Background(), "/not403", nil, nil)); ok {
		t.Error("only a 403 is a permission error")
	}
}

// W13.
func TestW13IsAlreadyExists(t *testing.T) {
	t.Parallel()
	cases := []struct {
		message string
		want    bool
	}{
		{"unable to create VM 101: config file already exists", true},
		{"unable to create VM 100 - VM 100 already exists on node 'pve'", true},
		{"unable to create VM 100 - CT 100 already exists on node 'pve2'", true},
		{"unable to restore VM 100 - VM 100 already exists on node 'pve'", true},
		{"CT 105 already exists on node 'pve1'", true},
		{"VM 105 already exists on node 'pve1'", true}, // a container create onto a VM's id
		{"pool 'prod' already exists", false},
		{"VM 100 already running", false},
		{"unable to find configuration file for VM 100 on node 'pve1'", false},
	}
	for _, tc := range cases {
		if got := IsAlreadyExists(&Error{StatusCode: 500, Message: tc.message}); got != tc.want {
			t.Errorf("IsAlreadyExists(%q) = %t, want %t", tc.message, got, tc.want)
		}
	}
	if IsAlreadyExists(&Error{StatusCode: 400, Message: "CT 105 already exists on node 'pve1'"}) {
		t.Error("only the synchronous 500 counts")
	}
}

func TestIsPoolNotFound(t *testing.T) {
	t.Parallel()
	if !IsPoolNotFound(&Error{StatusCode: 500, Message: "pool 'prod' does not exist"}) {
		t.Error("pool missing not detected")
	}
	if IsPoolNotFound(&Error{StatusCode: 500, Message: "Configuration file 'nodes/pve1/qemu-server/100.conf' does not exist"}) {
		t.Error("guest missing is not pool missing")
	}
}

// pveproxy answers 595 or 596 when it cannot reach the guest's node; the
// other proxy statuses and a guest's own errors are not that answer.
func TestIsNodeUnreachable(t *testing.T) {
	t.Parallel()
	for status, want := range map[int]bool{595: true, 596: true, 597: false, 599: false, 500: false, 503: false} {
		err := fmt.Errorf("read config: %w", &Error{StatusCode: status, Message: "Connection timed out"})
		if got := IsNodeUnreachable(err); got != want {
			t.Errorf("status %d: unreachable %t, want %t", status, got, want)
		}
	}
	if IsNodeUnreachable(errors.New("dial tcp: connection refused")) {
		t.Error("a transport error is not pveproxy's answer")
	}
}

func TestTransportErrorNamesMethodAndPath(t *testing.T) {
	t.Parallel()
	c, err := New(Config{Endpoint: "http://127.0.0.1:1", APIToken: testToken, RetryMax: -1})
	if err != nil {
		t.Fatal(err)
	}
	err = c.Get(context.Background(), "/nodes", nil, nil)
	var transportErr *TransportError
	if !errors.As(err, &transportErr) {
		t.Fatalf("want *TransportError, got %v", err)
	}
	if !strings.HasPrefix(err.Error(), "PVE API request failed: GET /nodes: ") {
		t.Errorf("Error() = %q", err)
	}
	if !transportErr.NotSent {
		t.Error("a refused connection is not sent")
	}
}

// W13: a VM clone onto a vmid held elsewhere in the cluster fails in its
// task, writing the new config (qemu-server clone_vm); other task
// failures and the synchronous refusal are not this.
func TestIsCloneVMIDTakenW13(t *testing.T) {
	t.Parallel()
	taken := &TaskError{UPID: "UPID:x", ExitStatus: "close (rename) atomic file '/etc/pve/nodes/pve1/qemu-server/101.conf' failed: File exists"}
	if !IsCloneVMIDTaken(taken) || !IsCloneVMIDTaken(fmt.Errorf("wrapped: %w", taken)) {
		t.Error("the rename failure is a taken vmid")
	}
	for _, err := range []error{
		&TaskError{ExitStatus: "clone failed: interrupted by signal"},
		&TaskError{ExitStatus: "close (rename) atomic file '/etc/pve/nodes/pve1/lxc/101.conf' failed: File exists"},
		&Error{StatusCode: 500, Message: "unable to create VM 101: config file already exists"},
	} {
		if IsCloneVMIDTaken(err) {
			t.Errorf("%v is no taken vmid of a clone task", err)
		}
	}
}
