package pvesim

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
	ID   string
	Type string // node-affinity, resource-affinity
	// Props are the rule's options as rules.cfg stores them: resources
	// and nodes in their encoded form, strict, affinity, disable,
	// comment.
	Props map[string]string
	// Order is the rule's ordinal in rules.cfg (pve-ha-manager
	// src/PVE/HA/Rules.pm get_next_ordinal).
	Order int
}

func newHAState() *HAState {
	return &HAState{
		Resources: map[string]*HAResource{},
		Groups:    map[string]*HAGroup{},
		Rules:     map[string]*HARule{},
	}
}
