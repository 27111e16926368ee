package pvesim

import "fmt"

// SetHAGroupsUnmigrated makes the cluster one upgraded from PVE 8 whose
// HA manager has not turned the groups into rules yet: the group
// endpoints work and the rule endpoints refuse to write. On PVE 9,
// pve-ha-manager src/PVE/HA/Config.pm have_groups_been_migrated is "no
// group in groups.cfg"; this hook stands for a groups.cfg that still
// holds groups from PVE 8 (listed in INFERRED.md), so a test may create
// its groups through the API afterwards. Deleting the last group, or
// MigrateHAGroups, ends that state.
func (s *Sim) SetHAGroupsUnmigrated() error {
	if s.pve.release == "8.4" {
		return fmt.Errorf("PVE 8.4 has no HA rules: its groups are never migrated")
	}
	return s.Update(func(c *Cluster) error {
		c.HA.GroupsMigrated = false
		return nil
	})
}

// MigrateHAGroups runs the PVE 9 HA manager's group migration at once
// (pve-ha-manager src/PVE/HA/Manager.pm try_persistent_group_migration
// and $migrate_group_persistently; PVE runs it on its own a few manager
// rounds after all nodes run PVE 9): each group that resources use
// becomes the node-affinity rule "ha-group-GROUP" (Groups.pm
// migrate_groups_to_rules), each such resource gets failback from the
// group's nofailback and loses its group (migrate_groups_to_resources;
// failback is written only when 0), and groups.cfg is removed, unused
// groups with it. The checks PVE makes first (quorum, every node online
// with an active LRM and pve-manager 9) are not modelled.
func (s *Sim) MigrateHAGroups() error {
	if s.pve.release == "8.4" {
		return fmt.Errorf("PVE 8.4 has no HA rules: its groups are never migrated")
	}
	return s.Update(func(c *Cluster) error {
		if c.HA.GroupsMigrated {
			return nil
		}
		for id, r := range haRulesFromGroups(c, c.HA.Rules) {
			c.HA.Rules[id] = r
		}
		for _, sid := range sortedKeys(c.HA.Resources) {
			r := c.HA.Resources[sid]
			gid := r.Props["group"]
			if gid == "" {
				continue
			}
			if g := c.HA.Groups[gid]; g != nil && g.Props["nofailback"] == "1" {
				r.Props["failback"] = "0"
			}
			delete(r.Props, "group")
		}
		c.HA.Groups = map[string]*HAGroup{}
		c.HA.GroupsMigrated = true
		return nil
	})
}
