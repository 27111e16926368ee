package pvesim

import (
	"net/http"
	"strconv"
	"testing"
	"time"
)

func (e *env) fwOptions(t *testing.T, path string) map[string]any {
	t.Helper()
	var opts map[string]any
	a := e.call(t, http.MethodGet, path, nil)
	a.wantOK(t)
	a.decode(t, &opts)
	return opts
}

// Options as each scope's parser reads them back (pve-firewall
// src/PVE/Firewall.pm parse_clusterfw_option, parse_hostfw_option,
// parse_vmfw_option), with copy_opject_with_digest's digest.
func TestFirewallOptionsRoundTrip(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPut, "/cluster/firewall/options",
		form("enable", "1", "ebtables", "0", "policy_in", "DROP", "log_ratelimit", "enable=1,rate=1/minute")).wantNull(t)
	got := e.fwOptions(t, "/cluster/firewall/options")
	want := map[string]string{"enable": "1", "ebtables": "0", "policy_in": "DROP", "log_ratelimit": "enable=1,rate=1/minute"}
	if jsonText(got) != jsonText(map[string]any{"enable": 1, "ebtables": 0, "policy_in": "DROP",
		"log_ratelimit": "enable=1,rate=1/minute", "digest": firewallObjectDigest(want)}) {
		t.Fatalf("cluster options = %v", got)
	}

	// A node's options: a negative synflood rate cannot be read back
	// ("(\d+)") and is lost.
	host := "/nodes/pve1/firewall/options"
	e.call(t, http.MethodPut, host, form("enable", "0", "log_level_in", "info", "protection_synflood_rate", "-5",
		"nf_conntrack_max", "65536")).wantNull(t)
	got = e.fwOptions(t, host)
	if jsonText(got) != jsonText(map[string]any{"enable": 0, "log_level_in": "info", "nf_conntrack_max": 65536,
		"digest": firewallObjectDigest(map[string]string{"enable": "0", "log_level_in": "info", "nf_conntrack_max": "65536"})}) {
		t.Fatalf("host options = %v", got)
	}
	e.call(t, http.MethodPut, host, form("nf_conntrack_helpers", "ftp,http")).
		wantParamError(t, "nf_conntrack_helpers", "invalid format - unknown helper http\n")

	guest := "/nodes/pve1/lxc/200/firewall/options"
	e.call(t, http.MethodPut, guest, form("enable", "1", "policy_in", "REJECT", "macfilter", "0")).wantNull(t)
	if got := e.fwOptions(t, guest); got["enable"] != float64(1) || got["policy_in"] != "REJECT" || got["macfilter"] != float64(0) {
		t.Fatalf("guest options = %v", got)
	}
	// the same file whichever node and guest type the path names
	if got := e.fwOptions(t, "/nodes/pve2/qemu/200/firewall/options"); got["policy_in"] != "REJECT" {
		t.Fatalf("guest options via qemu path = %v", got)
	}
}

// set_options: digest first, then the delete list, then the values
// (pve-firewall src/PVE/API2/Firewall/VM.pm set_options).
func TestFirewallOptionsDeleteAndDigest(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	path := "/nodes/pve1/qemu/100/firewall/options"
	e.call(t, http.MethodPut, path, form("enable", "1", "dhcp", "1")).wantNull(t)
	digest := e.fwOptions(t, path)["digest"].(string)
	e.call(t, http.MethodPut, path, form("delete", "dhcp", "digest", "abc")).
		wantStatus(t, http.StatusInternalServerError, "detected modified configuration - file changed by other user? Try again.")
	e.call(t, http.MethodPut, path, form("delete", "dhcp,nosuch", "digest", digest)).
		wantParamError(t, "delete", "no such option 'nosuch'")
	e.call(t, http.MethodPut, path, form("delete", "dhcp,enable", "enable", "0", "digest", digest)).wantNull(t)
	if got := e.fwOptions(t, path); got["enable"] != float64(0) || got["dhcp"] != nil {
		t.Fatalf("options = %v", got)
	}
	e.call(t, http.MethodPut, "/cluster/firewall/options", form("delete", "ndp")).
		wantParamError(t, "delete", "no such option 'ndp'")
}

// The cluster's enable above 1 stores the time; the parser reads it as 0
// once more than 60 seconds have passed (Cluster.pm set_options,
// Firewall.pm parse_clusterfw_option).
func TestFirewallClusterEnableTimestamp(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	e := newEnv(t, Options{Now: clock.Now})
	e.call(t, http.MethodPut, "/cluster/firewall/options", form("enable", "2")).wantNull(t)
	stamp := float64(clock.Now().Unix())
	if got := e.fwOptions(t, "/cluster/firewall/options"); got["enable"] != stamp {
		t.Fatalf("enable = %v, want %s", got["enable"], strconv.FormatFloat(stamp, 'f', 0, 64))
	}
	clock.Advance(61 * time.Second)
	if got := e.fwOptions(t, "/cluster/firewall/options"); got["enable"] != float64(0) {
		t.Fatalf("enable after a minute = %v", got["enable"])
	}
}

// The macro list and the directory indexes (Cluster.pm get_macros and
// index, Host.pm index, VM.pm index), and the privileges of the methods
// (src/PVE/Firewall.pm rules_audit_permissions,
// rules_modify_permissions).
func TestFirewallMacrosIndexesAndPermissions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	var macros []map[string]string
	e.call(t, http.MethodGet, "/cluster/firewall/macros", nil).decode(t, &macros)
	found := map[string]string{}
	for _, m := range macros {
		found[m["macro"]] = m["descr"]
	}
	if len(macros) != 86 || found["SSH"] != "Secure shell traffic" || found["NeighborDiscovery"] == "" || found["DHCPv6"] != "DHCPv6 traffic" {
		t.Fatalf("%d macros: %v", len(macros), found)
	}
	for path, want := range map[string]string{
		"/cluster/firewall":             `[{"name":"aliases"},{"name":"rules"},{"name":"options"},{"name":"groups"},{"name":"ipset"},{"name":"macros"},{"name":"refs"}]`,
		"/nodes/pve1/firewall":          `[{"name":"rules"},{"name":"options"},{"name":"log"}]`,
		"/nodes/pve1/qemu/100/firewall": `[{"name":"rules"},{"name":"aliases"},{"name":"ipset"},{"name":"refs"},{"name":"options"}]`,
		"/nodes/pve1/lxc/100/firewall":  `[{"name":"rules"},{"name":"aliases"},{"name":"ipset"},{"name":"refs"},{"name":"options"}]`,
	} {
		if a := e.call(t, http.MethodGet, path, nil); string(a.data) != want {
			t.Errorf("%s: %s", path, a.data)
		}
	}
	e.sim.SetPrivileges(testTokenUser, "Sys.Audit", "VM.Audit")
	for _, tc := range []struct{ method, path, what string }{
		{http.MethodPost, "/cluster/firewall/rules", "/, Sys.Modify"},
		{http.MethodPut, "/cluster/firewall/options", "/, Sys.Modify"},
		{http.MethodPost, "/cluster/firewall/groups", "/, Sys.Modify"},
		{http.MethodDelete, "/cluster/firewall/groups/web", "/, Sys.Modify"},
		{http.MethodPost, "/nodes/pve1/firewall/rules", "/nodes/pve1, Sys.Modify"},
		{http.MethodPut, "/nodes/pve1/qemu/100/firewall/options", "/vms/100, VM.Config.Network"},
		{http.MethodDelete, "/nodes/pve1/lxc/100/firewall/rules/0", "/vms/100, VM.Config.Network"},
	} {
		e.call(t, tc.method, tc.path, form("type", "in", "action", "ACCEPT", "group", "web")).
			wantStatus(t, http.StatusForbidden, "Permission check failed ("+tc.what+")")
	}
	e.call(t, http.MethodGet, "/nodes/pve1/qemu/100/firewall/rules", nil).wantOK(t)
	e.sim.SetPrivileges(testTokenUser)
	e.call(t, http.MethodGet, "/cluster/firewall/rules", nil).wantStatus(t, http.StatusForbidden, "Permission check failed (/, Sys.Audit)")
	e.call(t, http.MethodGet, "/nodes/pve1/lxc/100/firewall/options", nil).wantStatus(t, http.StatusForbidden, "Permission check failed (/vms/100, VM.Audit)")
	e.call(t, http.MethodGet, "/cluster/firewall/groups", nil).wantOK(t)
	e.call(t, http.MethodGet, "/cluster/firewall/macros", nil).wantOK(t)
}
