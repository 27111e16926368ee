package pvesim

import (
	"net/http"
	"testing"
	"time"
)

type agentAnswer struct {
	Result []agentInterface `json:"result"`
}

const agentPath = "/nodes/pve1/qemu/100/agent/network-get-interfaces"

// The three refusals of assert_agent_available, in PVE's order, each a 500
// with PVE's text; "agent: 0" passes the first check and fails the last.
func TestQemuAgentErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "net0", "virtio,bridge=vmbr0")
	e.call(t, http.MethodGet, agentPath, nil).wantStatus(t, http.StatusInternalServerError, "No QEMU guest agent configured")

	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("agent", "enabled=1")).wantOK(t)
	e.call(t, http.MethodGet, agentPath, nil).wantStatus(t, http.StatusInternalServerError, "VM 100 is not running")

	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("agent", "0")).wantOK(t)
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/status/start", nil))
	e.call(t, http.MethodGet, agentPath, nil).wantStatus(t, http.StatusInternalServerError, "QEMU guest agent is not running")

	e.call(t, http.MethodGet, "/nodes/pve1/qemu/999/agent/network-get-interfaces", nil).
		wantStatus(t, http.StatusInternalServerError, "Configuration file 'nodes/pve1/qemu-server/999.conf' does not exist")
}

// The agent answers only after the boot delay; addresses come from
// ipconfigN, or from the DHCP pool, beside loopback and link-local ones.
func TestQemuAgentInterfacesAfterBootDelay(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	e := newEnv(t, Options{Now: clock.Now, AgentBootDelay: 30 * time.Second})
	e.createVM(t, "100", "agent", "1", "net0", "virtio=BC:24:11:00:00:01,bridge=vmbr0", "net1", "virtio,bridge=vmbr0",
		"ipconfig0", "ip=10.0.0.5/24,gw=10.0.0.1,ip6=auto", "start", "1")
	e.call(t, http.MethodGet, agentPath, nil).wantStatus(t, http.StatusInternalServerError, "QEMU guest agent is not running")

	clock.Advance(30 * time.Second)
	a := e.call(t, http.MethodGet, agentPath, nil)
	a.wantOK(t)
	var got agentAnswer
	a.decode(t, &got)
	if len(got.Result) != 3 || got.Result[0].Name != "lo" || got.Result[1].HardwareAddress != "bc:24:11:00:00:01" {
		t.Fatalf("interfaces = %+v", got.Result)
	}
	eth0 := got.Result[1].IPAddresses
	if len(eth0) != 3 || eth0[0] != (agentIP{"10.0.0.5", "ipv4", 24}) || eth0[1].Type != "ipv6" || eth0[2].Address[:5] != "fe80:" {
		t.Errorf("eth0 = %+v", eth0)
	}
	eth1 := got.Result[2].IPAddresses
	if len(eth1) != 2 || eth1[0].Type != "ipv4" || eth1[0].Address[:6] != "10.99." {
		t.Errorf("eth1 (DHCP) = %+v", eth1)
	}
}

// W49, W42: only root@pam itself sets a raw host device; a token of
// root@pam is refused with PVE's text, at update and at create; a mapped
// device is accepted.
func TestW49RawHostPCINeedsRootPam(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Passwords: []string{"root@pam=secret"}})
	e.createVM(t, "100")
	for _, dev := range []string{"0000:17:00.0,pcie=1", "17:00.0", "0000:17:00"} {
		e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("hostpci0", dev)).
			wantStatus(t, http.StatusInternalServerError, "only root can set 'hostpci0' config for non-mapped devices")
	}
	e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "101", "hostpci0", "17:00.0")).
		wantStatus(t, http.StatusInternalServerError, "only root can set 'hostpci0' config for non-mapped devices")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("hostpci0", "mapping=gpu0,pcie=1")).wantOK(t)
	if cfg := e.vmConfig(t, "pve1", "100"); cfg["hostpci0"] != "mapping=gpu0,pcie=1" {
		t.Errorf("hostpci0 = %q", cfg["hostpci0"])
	}

	tk := login(t, e, "root@pam", "secret")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("hostpci1", "0000:17:00.0,x-vga=1"),
		withTicket(tk.Ticket), withHeader(csrfHeader, tk.CSRF)).wantOK(t)
	// Deleting a raw device is checked against its old value.
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("delete", "hostpci1")).
		wantStatus(t, http.StatusInternalServerError, "only root can set 'hostpci1' config for non-mapped devices")
}

// W41: toggling pre-enrolled-keys with the live form keeps the volume and
// PVE's ms-cert.
func TestW41EFIDiskLiveToggleKeepsVolume(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "bios", "ovmf", "efidisk0", "local-lvm:1,efitype=4m,pre-enrolled-keys=1")
	before := e.vmConfig(t, "pve1", "100")["efidisk0"]
	if before != "local-lvm:vm-100-disk-0,efitype=4m,ms-cert=2023,pre-enrolled-keys=1,size=4M" {
		t.Fatalf("efidisk0 = %q", before)
	}
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config",
		form("efidisk0", "local-lvm:vm-100-disk-0,efitype=4m,ms-cert=2023,pre-enrolled-keys=0,size=4M")).wantOK(t)
	if got := e.vmConfig(t, "pve1", "100")["efidisk0"]; got != "local-lvm:vm-100-disk-0,efitype=4m,ms-cert=2023,pre-enrolled-keys=0,size=4M" {
		t.Errorf("efidisk0 = %q", got)
	}
	wantVolids(t, e.sim, 100, "local-lvm:vm-100-disk-0")
}
