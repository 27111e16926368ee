package pvesim

import (
	"net/http"
	"testing"
)

// The permissions the SDN controller, IPAM, DNS and fabric handlers
// declare (pve-network src/PVE/API2/Network/SDN/Controllers.pm, Ipams.pm,
// Dns.pm, Fabrics/Fabric.pm, Fabrics/FabricNode.pm): lists filter by
// SDN.Audit or SDN.Allocate, reads of one entry need SDN.Allocate
// (fabrics: either), writes SDN.Allocate; fabric nodes need Sys.Modify on
// the node, and deleting a fabric Sys.Modify on each of its nodes.
func TestSDNExtrasPermissions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/cluster/sdn/controllers", form("controller", "b1", "type", "bgp", "asn", "65000", "peers", "10.0.0.1", "node", "pve1")).wantOK(t)
	sdnxFabric(t, e, "id", "fab1", "protocol", "openfabric", "ip_prefix", "10.3.0.0/24").wantOK(t)
	sdnxSend(t, e, http.MethodPost, "/cluster/sdn/fabrics/node/fab1", map[string]any{"node_id": "pve1", "protocol": "openfabric", "ip": "10.3.0.1"}).wantOK(t)

	e.sim.SetPrivileges(testTokenUser, "SDN.Audit")
	if l := sdnList(t, e, "/cluster/sdn/controllers"); len(l) != 1 {
		t.Fatalf("audit list = %v", l)
	}
	e.call(t, http.MethodGet, "/cluster/sdn/controllers/b1", nil).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/sdn/controllers/b1, SDN.Allocate)")
	e.call(t, http.MethodGet, "/cluster/sdn/ipams/pve", nil).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/sdn/ipams/pve, SDN.Allocate)")
	e.call(t, http.MethodPost, "/cluster/sdn/dns", form("dns", "pdns", "type", "powerdns", "url", "http://127.0.0.1:1", "key", "k")).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/sdn/dns, SDN.Allocate)")
	sdnGet(t, e, "/cluster/sdn/fabrics/fabric/fab1")
	// The node list needs Sys.Audit or Sys.Modify on the node too.
	if l := sdnList(t, e, "/cluster/sdn/fabrics/node/fab1"); len(l) != 0 {
		t.Fatalf("node list without Sys.Audit = %v", l)
	}
	e.call(t, http.MethodGet, "/cluster/sdn/fabrics/node/fab1/pve1", nil).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/nodes/pve1, Sys.Audit|Sys.Modify)")

	e.sim.SetPrivileges(testTokenUser)
	if l := sdnList(t, e, "/cluster/sdn/controllers"); len(l) != 0 {
		t.Fatalf("list without privileges = %v", l)
	}
	if l := sdnList(t, e, "/cluster/sdn/fabrics/fabric"); len(l) != 0 {
		t.Fatalf("fabric list without privileges = %v", l)
	}

	e.sim.SetPrivileges(testTokenUser, "SDN.Allocate", "SDN.Audit")
	sdnxSend(t, e, http.MethodPost, "/cluster/sdn/fabrics/node/fab1", map[string]any{"node_id": "pve2", "protocol": "openfabric", "ip": "10.3.0.2"}).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/nodes/pve2, Sys.Modify)")
	wantSDNError(t, e.call(t, http.MethodDelete, "/cluster/sdn/fabrics/fabric/fab1", nil),
		"deleting fabric failed: permission check failed: missing 'Sys.Modify' on node pve1")
	e.sim.SetPrivileges(testTokenUser, "SDN.Allocate", "Sys.Modify")
	e.call(t, http.MethodDelete, "/cluster/sdn/fabrics/fabric/fab1", nil).wantOK(t)
}
