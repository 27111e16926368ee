package pvesim

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The HA manager at the level users see: the CRM's service state machine
// (pve-ha-manager src/PVE/HA/Manager.pm manage and next_state_*), its
// node states (src/PVE/HA/NodeStatus.pm) and what each node's LRM does
// with its services (src/PVE/HA/LRM.pm), in rounds.
//
// When rounds run: PVE's CRM and LRMs loop every ~10 seconds. The
// simulator runs one round before each API request's handler (so a client
// polling /cluster/ha/status/current or a guest's status sees a request
// advance one step per poll), or, after SetHARoundInterval(d) with d > 0,
// one round per d of the simulator's clock elapsed, played before the
// request. HAStep runs one round at once. View and Update never run one.
//
// Bounded settling: a new resource is started after 2 rounds (added as
// request_start, started, then the LRM starts the guest and reports); a
// migration or relocation completes in 2 rounds; a node that goes
// offline has its services fenced and recovered within 3 rounds
// (detected, fenced, recovered and started on another node).
//
// Simplifications (INFERRED.md): fencing succeeds one round after it
// began (PVE waits for the dead node's agent lock to expire); starts and
// migrations always succeed, so max_restart and max_relocate are stored
// and shown but never used; the resource-affinity rules are read for the
// migrate answer only, not for node selection; the load scores are the
// number of services on a node (the 'basic' scheduler).

// For the rest of the simulator (guest endpoints): cl.haManaged(vmid)
// tells whether a guest's start, stop and migrate go through HA;
// cl.haSetRequestedState(sid, "started") is what 'hastart' runs,
// cl.haRequestStop(sid, timeout) what 'hastop' runs and
// cl.haRequestMove(sid, node, relocate) what 'hamigrate' runs; the
// manager's next rounds carry them out (ha_resources.go).

// haRoundsPerRequest bounds the rounds a clock-driven manager catches up
// on before one request.
const haRoundsPerRequest = 10

// HAStep runs one HA manager round: the CRM's round, then each online
// node's LRM. A test hook; see ha_manager.go for when rounds run on their
// own.
func (s *Sim) HAStep() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settleTasksLocked()
	s.haRoundLocked()
}

// SetHARoundInterval makes manager rounds follow the simulator's clock:
// one round per d elapsed (d <= 0: one round before each API request,
// the default).
func (s *Sim) SetHARoundInterval(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cluster.HA.Manager.interval = d
	s.cluster.HA.Manager.lastRound = s.now().UnixNano()
}

// haTickLocked runs the rounds due before a request's handler. Call with
// the model locked.
func (s *Sim) haTickLocked() {
	m := &s.cluster.HA.Manager
	if m.interval <= 0 {
		s.haRoundLocked()
		return
	}
	now := s.now().UnixNano()
	if m.lastRound == 0 {
		m.lastRound = now
		return
	}
	n := int((now - m.lastRound) / int64(m.interval))
	if n > haRoundsPerRequest {
		n = haRoundsPerRequest
	}
	if n <= 0 {
		return
	}
	m.lastRound = now
	for range n {
		s.haRoundLocked()
	}
}

// haRoundLocked is one round: pve-ha-manager src/PVE/HA/Manager.pm
// manage, then src/PVE/HA/LRM.pm do_one_iteration on each online node.
// The CRM stays idle (no manager status at all) until the first HA
// resource exists (src/PVE/HA/CRM.pm: no work without services).
func (s *Sim) haRoundLocked() {
	cl := s.cluster
	h := cl.HA
	m := &h.Manager
	if m.MasterNode == "" && len(h.Resources) == 0 {
		return
	}
	// Without quorum the CRM does no work and no LRM writes its status
	// (pve-ha-manager src/PVE/HA/CRM.pm is_cluster_and_ha_healthy,
	// src/PVE/HA/LRM.pm update_lrm_status). The quorum is the answering
	// node's view.
	if !cl.haQuorate() {
		return
	}
	master := cl.Node(m.MasterNode)
	if master == nil || !master.Online {
		master = nil
		for _, n := range cl.Nodes {
			if n.Online {
				master = n
				break
			}
		}
		if master == nil {
			return
		}
		m.MasterNode = master.Name
	}
	m.Rounds++
	now := s.now()
	m.Timestamp = now.Unix()
	s.haUpdateNodes(cl)
	s.haSyncServices(cl)
	s.haReadCommands(cl)
	for range 10 {
		changed := false
		for _, sid := range sortedKeys(m.Services) {
			sd := m.Services[sid]
			before := sd.State
			s.haNextState(cl, sid, sd)
			if sd.State != before {
				changed = true
			}
		}
		if s.haFence(cl) {
			changed = true
		}
		if !changed {
			break
		}
	}
	s.haRunLRMs(cl, now)
}

// haUpdateNodes is NodeStatus.pm update: an online member is 'online';
// one that dropped out turns 'unknown' (and is fenced later); a node in
// 'fence' stays there until fenced.
func (s *Sim) haUpdateNodes(cl *Cluster) {
	m := &cl.HA.Manager
	for _, n := range cl.Nodes {
		st := m.NodeStatus[n.Name]
		if n.Online {
			// A node being fenced stays 'fence' until the fencing is
			// done, even when it is back.
			if st != "fence" {
				m.NodeStatus[n.Name] = "online"
			}
			delete(m.offlineSince, n.Name)
			continue
		}
		if st == "" || st == "online" {
			m.NodeStatus[n.Name] = "unknown"
		}
		if _, ok := m.offlineSince[n.Name]; !ok {
			m.offlineSince[n.Name] = m.Rounds
		}
	}
}

// haOfflineDelayed is node_is_offline_delayed: offline since an earlier
// round (PVE: for more than 60 seconds).
func (m *HAManagerStatus) haOfflineDelayed(node string) bool {
	since, ok := m.offlineSince[node]
	return ok && since < m.Rounds
}

func (m *HAManagerStatus) haOnline(node string) bool { return m.NodeStatus[node] == "online" }

// haSyncServices adds new services and drops stale or ignored ones
// (Manager.pm manage: "adding new service", "removing stale service").
func (s *Sim) haSyncServices(cl *Cluster) {
	m := &cl.HA.Manager
	for _, sid := range sortedKeys(cl.HA.Resources) {
		if m.Services[sid] != nil {
			continue
		}
		r := cl.HA.Resources[sid]
		if r.haRequestedState() == "ignored" {
			continue
		}
		g := cl.haGuest(sid)
		if g == nil {
			continue
		}
		state := "request_stop"
		if r.haRequestedState() == "started" {
			state = "request_start"
		}
		m.Services[sid] = &HAService{State: state, Node: g.Node, UID: m.haNewUID()}
	}
	for sid := range m.Services {
		r := cl.HA.Resources[sid]
		if r == nil || r.haRequestedState() == "ignored" {
			delete(m.Services, sid)
		}
	}
}

// haGuest is the guest a service id names.
func (cl *Cluster) haGuest(sid string) *Guest {
	_, name, ok := strings.Cut(sid, ":")
	if !ok {
		return nil
	}
	vmid, err := strconv.Atoi(name)
	if err != nil {
		return nil
	}
	return cl.Guests[vmid]
}

func (m *HAManagerStatus) haNewUID() string {
	m.uid++
	return fmt.Sprintf("%022x", m.uid)
}

// haReadCommands is Manager.pm update_crm_commands: migrate, relocate
// and stop requests go to their service; one for a node that is not
// online, a service that is not managed or already on the target is
// dropped. On PVE 9 the services in positive resource affinity move
// along (queue_resource_motion).
func (s *Sim) haReadCommands(cl *Cluster) {
	m := &cl.HA.Manager
	cmds := cl.HA.Commands
	cl.HA.Commands = nil
	for _, line := range cmds {
		f := strings.Fields(line)
		if len(f) != 3 {
			continue
		}
		sd := m.Services[f[1]]
		if sd == nil {
			continue
		}
		switch f[0] {
		case "migrate", "relocate":
			if !m.haOnline(f[2]) || sd.Node == f[2] {
				continue
			}
			if s.haPVE8() {
				sd.cmd = []string{f[0], f[2]}
				continue
			}
			together, separate := cl.haResourceAffinity(f[1])
			if haMotionBlocked(m, separate, f[2]) {
				continue
			}
			sd.cmd = []string{f[0], f[2]}
			for _, other := range together {
				if od := m.Services[other]; od != nil && od.Node != f[2] {
					od.cmd = []string{f[0], f[2]}
				}
			}
		case "stop":
			sd.cmd = []string{"stop", f[2]}
		}
	}
}

// haMotionBlocked tells whether a service in negative resource affinity
// with the one to move is on the target or on its way there: the manager
// then logs an error and drops the command (pve-ha-manager
// src/PVE/HA/Manager.pm queue_resource_motion, PVE 9).
func haMotionBlocked(m *HAManagerStatus, separate []string, target string) bool {
	for _, other := range separate {
		od := m.Services[other]
		if od == nil || od.State == "ignored" {
			continue
		}
		if od.Node != "" && od.Node != target {
			continue
		}
		if od.Target != "" && od.Target != target {
			continue
		}
		return true
	}
	return false
}

// haChange is change_service_state: a new state (and node, target),
// with a new uid, so an earlier LRM result no longer applies.
func (m *HAManagerStatus) haChange(sd *HAService, state, node, target string) {
	sd.State, sd.Target = state, target
	if node != "" {
		sd.Node = node
	}
	sd.Running = false
	sd.lrmDone = false
	sd.UID = m.haNewUID()
}

// haNextState is one service's step of the state machine
// (pve-ha-manager src/PVE/HA/Manager.pm next_state_*).
func (s *Sim) haNextState(cl *Cluster, sid string, sd *HAService) {
	m := &cl.HA.Manager
	req := "disabled"
	if r := cl.HA.Resources[sid]; r != nil {
		req = r.haRequestedState()
	}
	done := sd.lrmDone
	switch sd.State {
	case "stopped":
		// next_state_stopped
		if g := cl.haGuest(sid); g != nil && g.Node != sd.Node {
			sd.Node = g.Node
		}
		if sd.cmd != nil {
			cmd := sd.cmd
			sd.cmd = nil
			if (cmd[0] == "migrate" || cmd[0] == "relocate") && m.haOnline(cmd[1]) && sd.Node != cmd[1] {
				m.haChange(sd, cmd[0], sd.Node, cmd[1])
				return
			}
		}
		if req == "disabled" {
			return
		}
		if m.haOfflineDelayed(sd.Node) {
			m.haChange(sd, "fence", "", "")
			return
		}
		if req == "started" {
			m.haChange(sd, "request_start", "", "")
		}
	case "request_start":
		// next_state_request_start (no rebalance on start)
		m.haChange(sd, "started", "", "")
	case "started":
		s.haNextStarted(cl, sid, sd, req, done)
	case "request_stop":
		// next_state_request_stop
		if done {
			m.haChange(sd, "stopped", "", "")
			return
		}
		if m.haOfflineDelayed(sd.Node) {
			m.haChange(sd, "fence", "", "")
		}
	case "migrate", "relocate":
		// next_state_migrate_relocate
		if done {
			next := "request_stop"
			if req == "started" {
				next = "started"
			}
			m.haChange(sd, next, sd.Target, "")
			return
		}
		if m.haOfflineDelayed(sd.Node) {
			m.haChange(sd, "fence", "", "")
		}
	case "recovery":
		s.haRecover(cl, sid, sd, req)
	case "error":
		// next_state_error
		if req == "disabled" {
			m.haChange(sd, "stopped", "", "")
		}
	}
}

// haNextStarted is next_state_started.
func (s *Sim) haNextStarted(cl *Cluster, sid string, sd *HAService, req string, done bool) {
	m := &cl.HA.Manager
	if !m.haOnline(sd.Node) {
		if m.haOfflineDelayed(sd.Node) {
			m.haChange(sd, "fence", "", "")
		}
		return
	}
	if req == "disabled" || req == "stopped" {
		m.haChange(sd, "request_stop", "", "")
		return
	}
	if req != "started" {
		return
	}
	if sd.cmd != nil {
		cmd := sd.cmd
		sd.cmd = nil
		switch cmd[0] {
		case "migrate", "relocate":
			if m.haOnline(cmd[1]) && sd.Node != cmd[1] {
				m.haChange(sd, cmd[0], sd.Node, cmd[1])
			}
		case "stop":
			// The stop command also sets the requested state.
			m.haChange(sd, "request_stop", "", "")
			if r := cl.HA.Resources[sid]; r != nil {
				r.Props["state"] = "stopped"
			}
		}
		return
	}
	if done {
		sd.Running = true
	}
	node := s.haSelectNode(cl, sid, sd, false)
	if node == "" || node == sd.Node {
		return
	}
	verb := "migrate"
	if strings.HasPrefix(sid, "ct:") {
		verb = "relocate"
	}
	running := sd.Running
	m.haChange(sd, verb, sd.Node, node)
	sd.Running = running
}

// haRecover is next_state_recovery: the service moves to the best node
// allowed (its config is stolen from the fenced node) and is started
// there, or stays in recovery while no node qualifies.
func (s *Sim) haRecover(cl *Cluster, sid string, sd *HAService, req string) {
	m := &cl.HA.Manager
	node := s.haSelectNode(cl, sid, sd, true)
	if node == "" {
		if req == "disabled" {
			m.haChange(sd, "stopped", "", "")
		}
		return
	}
	if g := cl.haGuest(sid); g != nil {
		// The guest died with its node; its config moves (steal_service).
		g.Node = node
		g.Status = "stopped"
		g.Paused = false
	}
	next := "request_stop"
	if req == "started" {
		next = "started"
	}
	m.haChange(sd, next, node, "")
}

// haFence is manage's fencing loop with NodeStatus.pm fence_node: the
// first round marks the node 'fence'; the next one it counts as fenced
// (the node turns 'unknown') and its services go to recovery.
func (s *Sim) haFence(cl *Cluster) bool {
	m := &cl.HA.Manager
	changed := false
	fenced := map[string]bool{}
	for _, sid := range sortedKeys(m.Services) {
		sd := m.Services[sid]
		if sd.State != "fence" {
			continue
		}
		ok, seen := fenced[sd.Node]
		if !seen {
			ok = m.haFenceNode(sd.Node)
			fenced[sd.Node] = ok
		}
		if !ok {
			continue
		}
		m.haChange(sd, "recovery", "", "")
		changed = true
	}
	return changed
}

// haFenceNode is fence_node: success once the node has been in 'fence'
// since an earlier round.
func (m *HAManagerStatus) haFenceNode(node string) bool {
	if m.NodeStatus[node] != "fence" {
		m.NodeStatus[node] = "fence"
		if m.fenceSince == nil {
			m.fenceSince = map[string]int{}
		}
		m.fenceSince[node] = m.Rounds
		return false
	}
	if m.fenceSince[node] < m.Rounds {
		m.NodeStatus[node] = "unknown"
		delete(m.fenceSince, node)
		return true
	}
	return false
}

// haNodeAffinity is the compiled node affinity of a service: each
// allowed node with its priority. From PVE 9's node-affinity rules, or
// from its group (PVE 8, and PVE 9 before the groups are migrated: the
// manager turns them into rules, Groups.pm migrate_groups_to_rules). A
// non-strict rule (unrestricted group) adds every other node at priority
// -1 (Rules/NodeAffinity.pm plugin_compile). nil: no affinity.
func (cl *Cluster) haNodeAffinity(sid string) map[string]int {
	var nodes string
	strict := false
	found := false
	for _, id := range sortedKeys(cl.HA.Rules) {
		rule := cl.HA.Rules[id]
		if rule.Type != "node-affinity" || rule.Props["disable"] == "1" {
			continue
		}
		if !containsString(splitList(rule.Props["resources"]), sid) {
			continue
		}
		nodes, strict, found = rule.Props["nodes"], rule.Props["strict"] == "1", true
		break
	}
	if !found {
		r := cl.HA.Resources[sid]
		if r == nil || r.Props["group"] == "" {
			return nil
		}
		g := cl.HA.Groups[r.Props["group"]]
		if g == nil {
			return nil
		}
		nodes, strict = g.Props["nodes"], g.Props["restricted"] == "1"
	}
	out := map[string]int{}
	for node, pri := range haParseNodeList(nodes) {
		out[node] = pri
	}
	if !strict {
		for _, n := range cl.Nodes {
			if _, ok := out[n.Name]; !ok {
				out[n.Name] = -1
			}
		}
	}
	return out
}

// haParseNodeList reads a "node[:priority],..." list (pve-ha-manager
// src/PVE/HA/Tools.pm parse_node_priority: no priority is 0).
func haParseNodeList(list string) map[string]int {
	out := map[string]int{}
	for _, e := range splitList(list) {
		name, pri, ok := strings.Cut(e, ":")
		p := 0
		if ok {
			p, _ = strconv.Atoi(pri)
		}
		out[name] = p
	}
	return out
}

// haFailback is the service's failback: its own option (PVE 9, default
// 1), or its group's !nofailback (Groups.pm migrate_groups_to_resources).
func (cl *Cluster) haFailback(sid string) bool {
	r := cl.HA.Resources[sid]
	if r == nil {
		return true
	}
	if g := cl.HA.Groups[r.Props["group"]]; r.Props["group"] != "" && g != nil {
		return g.Props["nofailback"] != "1"
	}
	return r.Props["failback"] != "0"
}

// haSelectNode is select_service_node with the 'none' preference (stay
// where allowed unless failback prefers another node) or 'best-score'
// (recovery): among the online nodes of the highest priority, the one
// with the fewest services, then by name. "" when no node qualifies.
func (s *Sim) haSelectNode(cl *Cluster, sid string, sd *HAService, best bool) string {
	m := &cl.HA.Manager
	affinity := cl.haNodeAffinity(sid)
	allowed := map[string]int{}
	for _, n := range cl.Nodes {
		if !m.haOnline(n.Name) {
			continue
		}
		if affinity == nil {
			allowed[n.Name] = 0
		} else if p, ok := affinity[n.Name]; ok {
			allowed[n.Name] = p
		}
	}
	if len(allowed) == 0 {
		return ""
	}
	top := -1 << 31
	for _, p := range allowed {
		if p > top {
			top = p
		}
	}
	var pri []string
	for n, p := range allowed {
		if p == top {
			pri = append(pri, n)
		}
	}
	_, onCurrent := allowed[sd.Node]
	if !best && !cl.haFailback(sid) && onCurrent {
		return sd.Node
	}
	if !best && containsString(pri, sd.Node) {
		return sd.Node
	}
	load := map[string]int{}
	for other, od := range m.Services {
		if other == sid {
			continue
		}
		if od.Target != "" {
			load[od.Target]++
		} else {
			load[od.Node]++
		}
	}
	sort.Slice(pri, func(i, j int) bool {
		if load[pri[i]] != load[pri[j]] {
			return load[pri[i]] < load[pri[j]]
		}
		return pri[i] < pri[j]
	})
	return pri[0]
}

// haRunLRMs is each online node's LRM round (src/PVE/HA/LRM.pm): it
// carries out the CRM state of the services on its node and reports the
// result (the CRM reads it next round); it writes its lrm_status.
func (s *Sim) haRunLRMs(cl *Cluster, now time.Time) {
	m := &cl.HA.Manager
	for _, sid := range sortedKeys(m.Services) {
		sd := m.Services[sid]
		if !m.haOnline(sd.Node) || sd.lrmDone {
			continue
		}
		g := cl.haGuest(sid)
		if g == nil {
			continue
		}
		switch sd.State {
		case "started":
			if g.Status != "running" {
				g.Status, g.Paused, g.Started = "running", false, now
			}
			sd.lrmDone = true
		case "request_stop", "stopped":
			if g.Status == "running" {
				g.Status, g.Paused = "stopped", false
			}
			sd.lrmDone = true
		case "migrate":
			// An online migration for a running VM, offline otherwise;
			// the config follows the guest (PVE/HA/Resources/PVEVM.pm
			// migrate).
			if m.haOnline(sd.Target) {
				g.Node = sd.Target
				sd.lrmDone = true
			}
		case "relocate":
			// Stop, move, and the CRM starts it on the target.
			if m.haOnline(sd.Target) {
				if g.Status == "running" {
					g.Status, g.Paused = "stopped", false
				}
				g.Node = sd.Target
				sd.lrmDone = true
			}
		}
	}
	for _, n := range cl.Nodes {
		if !n.Online {
			continue
		}
		st := m.LRM[n.Name]
		if st == nil {
			st = &HALRMStatus{}
			m.LRM[n.Name] = st
		}
		st.Mode, st.Timestamp = "active", now.Unix()
		st.State = "wait_for_agent_lock"
		if haCountActive(m.Services, n.Name) > 0 {
			st.State = "active"
		}
	}
}

// haCountActive is count_active_services (pve-ha-manager
// src/PVE/HA/Tools.pm).
func haCountActive(ss map[string]*HAService, node string) int {
	n := 0
	for _, sd := range ss {
		if sd.Node != node && sd.Target != node {
			continue
		}
		switch sd.State {
		case "", "stopped", "freeze", "error", "request_start":
			continue
		}
		n++
	}
	return n
}
