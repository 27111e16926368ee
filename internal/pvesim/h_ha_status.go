package pvesim

import (
	"net/http"
	"time"
)

// HA status API (pve-ha-manager src/PVE/API2/HA/Status.pm).

func (s *Sim) registerHAStatusRoutes() {
	audit := permission{path: "/", privs: []string{"Sys.Audit"}}
	s.handle(http.MethodGet, "/cluster/ha/status", route{handle: s.haStatusIndex})
	s.handle(http.MethodGet, "/cluster/ha/status/current", route{perm: audit, handle: s.haStatusCurrent})
	s.handle(http.MethodGet, "/cluster/ha/status/manager_status", route{perm: audit, handle: s.haManagerStatus})
}

// pve-ha-manager src/PVE/API2/HA/Status.pm index; PVE 8.4 (4.0) has
// neither disarm-ha nor arm-ha.
func (s *Sim) haStatusIndex(*call) (any, error) {
	out := []map[string]any{{"name": "current"}, {"name": "manager_status"}}
	if !s.haPVE8() {
		out = append(out, map[string]any{"name": "disarm-ha"}, map[string]any{"name": "arm-ha"})
	}
	return out, nil
}

// haQuorate is check_cfs_quorum on the answering node: more than half of
// the members online (corosync's votequorum with one vote each).
func (cl *Cluster) haQuorate() bool {
	online := 0
	for _, n := range cl.Nodes {
		if n.Online {
			online++
		}
	}
	return online*2 > len(cl.Nodes)
}

// haTimestampStatus is Status.pm $timestamp_to_status.
func haTimestampStatus(now, ts int64) string {
	switch d := now - ts; {
	case d > 30:
		return "old timestamp - dead?"
	case d < -2:
		return "detected time drift!"
	default:
		return "active"
	}
}

// haLocaltime is Perl's scalar localtime (the nodes run in UTC here).
func haLocaltime(ts int64) string {
	return time.Unix(ts, 0).UTC().Format("Mon Jan _2 15:04:05 2006")
}

// haServiceConfig is read_and_check_resources_config for one entry: the
// options with their defaults (state started, 'enabled' read as started,
// failback, max_restart and max_relocate 1) and the guest's node.
func (s *Sim) haServiceConfig(cl *Cluster, sid string) map[string]any {
	r := cl.HA.Resources[sid]
	if r == nil {
		return nil
	}
	sc := map[string]any{}
	for k, v := range r.Props {
		sc[k] = haWireValue(k, v)
	}
	sc["state"] = r.haRequestedState()
	if !s.haPVE8() {
		if _, ok := sc["failback"]; !ok {
			sc["failback"] = 1
		}
	}
	sc["max_restart"] = r.haIntProp("max_restart")
	sc["max_relocate"] = r.haIntProp("max_relocate")
	if g := cl.haGuest(sid); g != nil {
		sc["node"] = g.Node
	}
	return sc
}

// haVerboseState is get_verbose_service_state (pve-ha-manager
// src/PVE/HA/Tools.pm).
func haVerboseState(ss *HAService, sc map[string]any) string {
	if sc == nil {
		return "deleting"
	}
	req, _ := sc["state"].(string)
	if req == "ignored" {
		return "ignored"
	}
	if _, ok := sc["node"]; !ok {
		return "not found"
	}
	if ss == nil || ss.State == "" {
		return "queued"
	}
	state := ss.State
	switch ss.State {
	case "stopped":
		switch req {
		case "started":
			state = "starting"
		case "disabled":
			state = "disabled"
		}
	case "started":
		if req == "stopped" || req == "disabled" {
			state = "stopping"
		}
		if !ss.Running {
			state = "starting"
		}
	case "error":
		if req == "disabled" {
			state = "clearing error flag"
		}
	}
	return state
}

// pve-ha-manager src/PVE/API2/HA/Status.pm status
func (s *Sim) haStatusCurrent(c *call) (any, error) {
	cl := c.cluster
	m := &cl.HA.Manager
	here := cl.answeringNode().Name
	now := s.now().Unix()
	quorate := cl.haQuorate()
	out := []map[string]any{}
	q := map[string]any{"id": "quorum", "type": "quorum", "node": here, "status": "OK", "quorate": 1}
	if !quorate {
		q["status"], q["quorate"] = "No quorum on node '"+here+"'!", 0
	}
	out = append(out, q)
	crmActive := false
	if m.MasterNode != "" && m.Timestamp != 0 {
		st := haTimestampStatus(now, m.Timestamp)
		crmActive = st == "active"
		if quorate && st != "active" && len(cl.HA.Resources) == 0 {
			st = "idle"
		}
		out = append(out, map[string]any{
			"id": "master", "type": "master", "node": m.MasterNode,
			"status":    m.MasterNode + " (" + st + ", " + haLocaltime(m.Timestamp) + ")",
			"timestamp": m.Timestamp,
		})
	}
	if !s.haPVE8() {
		node := m.MasterNode
		if node == "" {
			node = here
		}
		armed, wd := "standby", "CRM watchdog standby"
		if crmActive {
			armed, wd = "armed", "CRM watchdog active"
		}
		out = append(out, map[string]any{
			"id": "fencing", "type": "fencing", "node": node,
			"status": armed + " (" + wd + ")", "armed-state": armed,
		})
	}
	for _, node := range sortedKeys(m.NodeStatus) {
		out = append(out, s.haLRMEntry(m, node, now))
	}
	for _, sid := range sortedKeys(m.Services) {
		out = append(out, s.haServiceEntry(cl, sid, m.Services[sid]))
	}
	for _, sid := range sortedKeys(cl.HA.Resources) {
		if m.Services[sid] == nil {
			out = append(out, s.haServiceEntry(cl, sid, nil))
		}
	}
	return out, nil
}

// haLRMEntry is the "lrm:<node>" entry of Status.pm status; PVE 9 adds
// the watchdog state to the text.
func (s *Sim) haLRMEntry(m *HAManagerStatus, node string, now int64) map[string]any {
	id := "lrm:" + node
	lrm := m.LRM[node]
	if lrm == nil || lrm.Timestamp == 0 {
		return map[string]any{"id": id, "type": "lrm", "node": node, "status": node + " (unable to read lrm status)"}
	}
	st := haTimestampStatus(now, lrm.Timestamp)
	mode, state := lrm.Mode, lrm.State
	if state == "" {
		state = "unknown"
	}
	wd := "watchdog standby"
	if st == "active" && (state == "active" || state == "maintenance") {
		wd = "watchdog active"
	}
	switch {
	case st == "active":
		if mode == "" {
			mode = "active"
		}
		switch {
		case mode != "active":
			st = mode + " mode"
		case state == "wait_for_agent_lock" && s.haActiveOn(m, node) == 0:
			st = "idle"
		default:
			st = state
		}
	case mode == "maintenance":
		st = mode + " mode"
	}
	text := node + " (" + st + ", " + wd + ", " + haLocaltime(lrm.Timestamp) + ")"
	if s.haPVE8() {
		text = node + " (" + st + ", " + haLocaltime(lrm.Timestamp) + ")"
	}
	return map[string]any{"id": id, "type": "lrm", "node": node, "status": text, "timestamp": lrm.Timestamp}
}

// haActiveOn is the count of active services Status.pm status uses for
// a node's LRM: count_active_services on PVE 9; PVE 8.4 (4.0) counts
// every service on the node that is not stopped or frozen, by its node
// only.
func (s *Sim) haActiveOn(m *HAManagerStatus, node string) int {
	if !s.haPVE8() {
		return haCountActive(m.Services, node)
	}
	n := 0
	for _, sd := range m.Services {
		if sd.Node == node && sd.State != "stopped" && sd.State != "freeze" {
			n++
		}
	}
	return n
}

// haServiceEntry is Status.pm's $add_service.
func (s *Sim) haServiceEntry(cl *Cluster, sid string, ss *HAService) map[string]any {
	sc := s.haServiceConfig(cl, sid)
	e := map[string]any{"id": "service:" + sid, "type": "service", "sid": sid}
	switch {
	case ss != nil:
		e["node"], e["crm_state"] = ss.Node, ss.State
	case sc != nil:
		if n, ok := sc["node"]; ok {
			e["node"] = n
		}
	}
	node, ok := e["node"].(string)
	if !ok {
		node = "---"
	}
	e["state"] = haVerboseState(ss, sc)
	e["status"] = sid + " (" + node + ", " + e["state"].(string) + ")"
	if sc != nil {
		e["request_state"] = sc["state"]
		keys := []string{"group", "max_restart", "max_relocate", "failback", "comment"}
		if s.haPVE8() {
			keys = []string{"group", "max_restart", "max_relocate", "comment"}
		}
		for _, k := range keys {
			if v, ok := sc[k]; ok {
				e[k] = v
			}
		}
	}
	return e
}

// pve-ha-manager src/PVE/API2/HA/Status.pm manager_status: the CRM's
// manager_status ({} before it first ran), the quorum and each known
// node's lrm_status.
func (s *Sim) haManagerStatus(c *call) (any, error) {
	cl := c.cluster
	m := &cl.HA.Manager
	ms := map[string]any{}
	if m.MasterNode != "" {
		services := map[string]any{}
		for sid, sd := range m.Services {
			e := map[string]any{"state": sd.State, "node": sd.Node, "uid": sd.UID}
			if sd.Target != "" {
				e["target"] = sd.Target
			}
			if sd.Running && sd.State == "started" {
				e["running"] = 1
			}
			services[sid] = e
		}
		nodes := map[string]any{}
		for n, st := range m.NodeStatus {
			nodes[n] = st
		}
		ms = map[string]any{
			"master_node": m.MasterNode, "timestamp": m.Timestamp,
			"node_status": nodes, "service_status": services,
		}
	}
	q := 0
	if cl.haQuorate() {
		q = 1
	}
	out := map[string]any{
		"manager_status": ms,
		"quorum":         map[string]any{"node": cl.answeringNode().Name, "quorate": q},
	}
	if len(m.NodeStatus) > 0 {
		lrms := map[string]any{}
		for _, node := range sortedKeys(m.NodeStatus) {
			lrm := m.LRM[node]
			if lrm == nil {
				lrms[node] = map[string]any{"mode": "unknown"}
				continue
			}
			lrms[node] = map[string]any{"mode": lrm.Mode, "state": lrm.State, "timestamp": lrm.Timestamp, "results": map[string]any{}}
		}
		out["lrm_status"] = lrms
	}
	return out, nil
}
