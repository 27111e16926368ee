package pveapi

import (
	"context"
	"net/http"
	"testing"
)

func TestQemuAgentInterfacesDecodesAddresses(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	f.handle("GET /nodes/pve1/qemu/100/agent/network-get-interfaces", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			t.Errorf("method = %s, want GET", r.Method)
		}
		writeData(w, map[string]any{"result": []map[string]any{{
			"name": "eth0", "hardware-address": "bc:24:11:00:00:01",
			"ip-addresses": []map[string]any{
				{"ip-address": "10.0.0.5", "ip-address-type": "ipv4", "prefix": 24},
				{"ip-address": "fe80::1", "ip-address-type": "ipv6", "prefix": 64},
			},
		}}})
	})
	ifaces, err := f.client().QemuAgentInterfaces(context.Background(), "pve1", 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(ifaces) != 1 || ifaces[0].Name != "eth0" || len(ifaces[0].IPAddresses) != 2 ||
		ifaces[0].IPAddresses[0] != (AgentIPAddress{Address: "10.0.0.5", Type: "ipv4", Prefix: 24}) {
		t.Errorf("interfaces = %+v", ifaces)
	}
}

// The three agent refusals are told apart, in both error shapes (W4), and
// none of them reads as a missing VM (W12).
func TestQemuAgentErrorsAreDistinct(t *testing.T) {
	t.Parallel()
	cases := []struct {
		message                          string
		notConfigured, vmDown, agentDown bool
	}{
		{"No QEMU guest agent configured", true, false, false},
		{"VM 100 is not running", false, true, false},
		{"QEMU guest agent is not running", false, false, true},
		{"VM 100 qmp command 'guest-ping' failed - got timeout", false, false, false},
	}
	for _, tc := range cases {
		for _, old := range []bool{false, true} {
			f := newFakePVE(t)
			f.handle("GET /nodes/pve1/qemu/100/agent/network-get-interfaces", func(w http.ResponseWriter, _ *http.Request) {
				if old {
					writePVEOldError(w, http.StatusInternalServerError, tc.message)
				} else {
					writePVEError(w, http.StatusInternalServerError, tc.message)
				}
			})
			_, err := f.client().QemuAgentInterfaces(context.Background(), "pve1", 100)
			if err == nil {
				t.Fatalf("%q: no error", tc.message)
			}
			if IsAgentNotConfigured(err) != tc.notConfigured || IsAgentVMNotRunning(err) != tc.vmDown || IsAgentNotRunning(err) != tc.agentDown {
				t.Errorf("%q (old shape %v): configured/vm/agent = %v/%v/%v", tc.message, old,
					IsAgentNotConfigured(err), IsAgentVMNotRunning(err), IsAgentNotRunning(err))
			}
			if IsAgentUnavailable(err) != (tc.notConfigured || tc.vmDown || tc.agentDown) {
				t.Errorf("%q: IsAgentUnavailable = %v", tc.message, IsAgentUnavailable(err))
			}
			if IsNotFound(err) {
				t.Errorf("%q: IsNotFound must be false", tc.message)
			}
		}
	}
}
