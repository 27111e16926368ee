package pvesim

import "time"

// HAState is the HA stack's cluster-wide configuration and the manager's
// view of it: ha/resources.cfg, ha/groups.cfg (PVE 8), ha/rules.cfg
// (PVE 9) and the CRM's manager status.
// pve-ha-manager src/PVE/HA/Config.pm (read_resources_config,
// read_group_config, read_rules_config, read_manager_status).
type HAState struct {
	// Resources are keyed by service id ("vm:100", "ct:101").
	Resources map[string]*HAResource
	// Groups is ha/groups.cfg: PVE 8's node preferences.
	Groups map[string]*HAGroup
	// Rules is ha/rules.cfg: PVE 9's node- and resource-affinity rules.
	Rules map[string]*HARule
	// GroupsMigrated tells that PVE 9's CRM has turned the groups into
	// rules (pve-ha-manager src/PVE/HA/Config.pm
	// have_groups_been_migrated): from then on the group endpoints refuse
	// and the rule endpoints accept.
	GroupsMigrated bool

	// Manager is the CRM's manager_status and the LRMs' lrm_status files
	// as the simulated HA manager keeps them (ha_manager.go).
	Manager HAManagerStatus
	// Commands is the crm_commands queue: "migrate SID NODE" and
	// "relocate SID NODE" lines the next manager round consumes
	// (pve-ha-manager src/PVE/HA/Config.pm queue_crm_commands).
	Commands []string
}

// HAManagerStatus is /etc/pve/ha/manager_status plus each node's
// lrm_status (pve-ha-manager src/PVE/HA/Manager.pm flush_master_status,
// src/PVE/HA/LRM.pm update_lrm_status).
type HAManagerStatus struct {
	// MasterNode is the node whose CRM holds the manager lock; empty
	// until the CRM first became active (there was an HA resource).
	MasterNode string
	// Timestamp is the time of the master's last round (Unix seconds).
	Timestamp int64
	// NodeStatus is the CRM's view of each node: online, unknown, fence,
	// gone, maintenance (pve-ha-manager src/PVE/HA/NodeStatus.pm).
	NodeStatus map[string]string
	// Services is service_status, keyed by sid.
	Services map[string]*HAService
	// LRM is each node's lrm_status: its mode, state and timestamp.
	LRM map[string]*HALRMStatus
	// Rounds counts the manager rounds run so far.
	Rounds int
	// offlineSince is the round a node was first seen offline, for the
	// delayed fencing (NodeStatus.pm node_is_offline_delayed).
	offlineSince map[string]int
	// fenceSince is the round a node's fencing began.
	fenceSince map[string]int
	// interval is the clock time per round (SetHARoundInterval); 0 runs
	// one round before each API request. lastRound is when the last
	// clock-driven round ran (Unix nanoseconds).
	interval  time.Duration
	lastRound int64
	uid       int
}

// HAService is one service_status entry (pve-ha-manager
// src/PVE/HA/Manager.pm change_service_state).
type HAService struct {
	// State is the CRM state: request_start, started, request_stop,
	// stopped, migrate, relocate, fence, recovery, freeze, error.
	State string
	Node  string
	// Target is the node of a migrate or relocate.
	Target string
	// Running is set once the LRM reported a successful start (only
	// meaningful in state started).
	Running bool
	UID     string
	// cmd is a queued command: migrate or relocate with the target
	// node, or stop with its timeout.
	cmd []string
	// lrmDone is the LRM's report that it carried out the current state
	// (its result for the current uid).
	lrmDone bool
}

// HALRMStatus is one node's lrm_status file.
type HALRMStatus struct {
	Mode      string // active, restart, shutdown, maintenance
	State     string // wait_for_agent_lock, active, lost_agent_lock, maintenance
	Timestamp int64
}

// HAResource is one entry of ha/resources.cfg.
type HAResource struct {
	SID string
	// Props are the entry's options as stored (state, max_restart,
	// max_relocate, failback, group, comment).
	Props map[string]string
}

// HAGroup is one entry of ha/groups.cfg.
type HAGroup struct {
	ID    string
	Props map[string]string
}

// HARule is one entry of ha/rules.cfg.
type HARule struct {
	ID    string
	Type  string // node-affinity, resource-affinity
	Props map[string]string
}

func newHAState() *HAState {
	return &HAState{
		Resources: map[string]*HAResource{},
		Groups:    map[string]*HAGroup{},
		Rules:     map[string]*HARule{},
		Manager: HAManagerStatus{
			NodeStatus:   map[string]string{},
			Services:     map[string]*HAService{},
			LRM:          map[string]*HALRMStatus{},
			offlineSince: map[string]int{},
		},
	}
}
