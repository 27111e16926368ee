package pvesim

import (
	"net/http"
	"testing"
)

// W20: a container's description is read back from its config file as
// comment lines, each with a newline after it and nothing trimmed
// (pve-container src/PVE/LXC/Config.pm parse_pct_config); write_pct_config
// splits it with Perl's split, which drops trailing empty lines, and
// writes nothing for "" or "0". A VM's description loses its trailing
// whitespace instead (qemu-server src/PVE/QemuServer.pm parse_vm_config).
func TestW20DescriptionReadBackPerGuestKind(t *testing.T) {
	t.Parallel()
	cases := []struct {
		sent        string
		ct, vm      string
		ctSet, vmOK bool
	}{
		{sent: "one line", ct: "one line\n", vm: "one line", ctSet: true, vmOK: true},
		{sent: "one line\n", ct: "one line\n", vm: "one line", ctSet: true, vmOK: true},
		{sent: "a\n\nb\n\n\n", ct: "a\n\nb\n", vm: "a\n\nb", ctSet: true, vmOK: true},
		{sent: "\nlead  ", ct: "\nlead  \n", vm: "\nlead", ctSet: true, vmOK: true},
		{sent: "tab\tand\r\nCRLF", ct: "tab\tand\r\nCRLF\n", vm: "tab\tand\r\nCRLF", ctSet: true, vmOK: true},
		{sent: "\n\n"},
		{sent: "0"},
	}
	for _, tc := range cases {
		ct, ctSet := ctDescriptionReadBack(tc.sent)
		if ct != tc.ct || ctSet != tc.ctSet {
			t.Errorf("container %q reads back as %q (set %v), want %q (set %v)", tc.sent, ct, ctSet, tc.ct, tc.ctSet)
		}
		vm, vmOK := vmDescriptionReadBack(tc.sent)
		if vm != tc.vm || vmOK != tc.vmOK {
			t.Errorf("VM %q reads back as %q (set %v), want %q (set %v)", tc.sent, vm, vmOK, tc.vm, tc.vmOK)
		}
	}
}

// W20 through the API: create, config update and clone of a container
// answer the description with its trailing newline; a VM's is trimmed;
// a description of only newlines is no description at all.
func TestW20DescriptionThroughTheAPI(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.createCT(t, "100", "rootfs", "local-lvm:4", "description", "one line")
	if got := e.ctConfig(t, "pve1", "100")["description"]; got != "one line\n" {
		t.Errorf("created container: description = %q, want %q", got, "one line\n")
	}
	e.setCT(t, "100", []string{"description", "first\nsecond"}).wantNull(t)
	if got := e.ctConfig(t, "pve1", "100")["description"]; got != "first\nsecond\n" {
		t.Errorf("updated container: description = %q", got)
	}
	e.setCT(t, "100", []string{"description", "\n\n"}).wantNull(t)
	if got, ok := e.ctConfig(t, "pve1", "100")["description"]; ok {
		t.Errorf("a description of newlines only reads back as %q, want no key", got)
	}
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/lxc/100/clone", form("newid", "101", "description", "clone")))
	if got := e.ctConfig(t, "pve1", "101")["description"]; got != "clone\n" {
		t.Errorf("cloned container: description = %q", got)
	}
	e.createVM(t, "200")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/200/config", form("description", "one line\n")).wantOK(t)
	if got := e.vmConfig(t, "pve1", "200")["description"]; got != "one line" {
		t.Errorf("VM: description = %q, want %q", got, "one line")
	}
}
