package pvesim

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
)

// HA groups: pve-ha-manager src/PVE/API2/HA/Groups.pm. The PVE 8.4 code
// is the same apart from the 9.x "migrated" refusals (1bc1db5, "api:
// introduce ha rules api endpoints", and the commits around it).

func (s *Sim) registerHAConfigRoutes() {
	audit := permission{path: "/", privs: []string{"Sys.Audit"}}
	console := permission{path: "/", privs: []string{"Sys.Console"}}
	s.handle(http.MethodGet, "/cluster/ha/groups", route{perm: audit, handle: s.listHAGroups})
	s.handle(http.MethodPost, "/cluster/ha/groups", route{perm: console, handle: s.createHAGroup})
	s.handle(http.MethodGet, "/cluster/ha/groups/{group}", route{perm: audit, handle: s.readHAGroup})
	s.handle(http.MethodPut, "/cluster/ha/groups/{group}", route{perm: console, handle: s.updateHAGroup})
	s.handle(http.MethodDelete, "/cluster/ha/groups/{group}", route{perm: console, handle: s.deleteHAGroup})
	s.registerHARuleRoutes(audit, console)
}

// haGroupAnswer is pve-ha-manager src/PVE/API2/HA/Groups.pm $api_copy_config: the stored options, the
// group id, the file's digest and the nodes re-encoded.
func haGroupAnswer(cl *Cluster, id string) (map[string]any, error) {
	g := cl.HA.Groups[id]
	if g == nil {
		return nil, errorf("no such ha group '%s'", id)
	}
	out := map[string]any{"group": id, "type": "group", "digest": cl.HA.groupsDigest()}
	for k, v := range g.Props {
		switch k {
		case "restricted", "nofailback":
			// SectionConfig check_value stores booleans as numbers.
			n, _ := strconv.Atoi(v)
			out[k] = n
		default:
			out[k] = v
		}
	}
	return out, nil
}

// pve-ha-manager src/PVE/API2/HA/Groups.pm index
func (s *Sim) listHAGroups(c *call) (any, error) {
	cl := c.cluster
	if s.haConfigGroupsMigrated(cl) {
		return nil, errorf("cannot index groups: ha groups have been migrated to rules")
	}
	out := []map[string]any{}
	for _, id := range sortedKeys(cl.HA.Groups) {
		g, _ := haGroupAnswer(cl, id)
		out = append(out, g)
	}
	return out, nil
}

// pve-ha-manager src/PVE/API2/HA/Groups.pm read
func (s *Sim) readHAGroup(c *call) (any, error) {
	cl := c.cluster
	if s.haConfigGroupsMigrated(cl) {
		return nil, errorf("cannot read group: ha groups have been migrated to rules")
	}
	return haGroupAnswer(cl, c.str("group"))
}

// haGroupOptions is Groups.pm check_config: the given options as stored.
// An entry of "nodes" the format refuses is a parameter error: 9.x's
// schema (pve-ha-node) does it before the handler runs; on 8.4 the
// simulator's tables leave pve-ha-group-node unchecked, so the check of
// pve-ha-manager 4.0.7 src/PVE/HA/Tools.pm pve_verify_ha_group_node is
// made here with its text, as pve-common src/PVE/JSONSchema.pm
// check_format words a failed format check of a list.
func (s *Sim) haGroupOptions(c *call) (map[string]string, error) {
	opts := map[string]string{}
	if v, ok := c.param("nodes"); ok {
		nodes, bad := haGroupNodes(v)
		if bad != "" {
			return nil, paramError(map[string]string{"nodes": "invalid format - value does not look like a valid ha group node\n"})
		}
		opts["nodes"] = strings.Join(nodes, ",")
	}
	for _, k := range []string{"restricted", "nofailback"} {
		if v, ok := c.param(k); ok {
			opts[k] = v
		}
	}
	if v, ok := c.param("comment"); ok {
		opts["comment"] = v
	}
	return opts, nil
}

// pve-ha-manager src/PVE/API2/HA/Groups.pm create
func (s *Sim) createHAGroup(c *call) (any, error) {
	cl := c.cluster
	opts, err := s.haGroupOptions(c)
	if err != nil {
		return nil, err
	}
	if s.haConfigGroupsMigrated(cl) {
		return nil, errorf("cannot create group: ha groups have been migrated to rules")
	}
	if t, ok := c.param("type"); ok && t != "group" {
		return nil, errorf("types does not match")
	}
	// SectionConfig check_config with create: the required option.
	if _, ok := opts["nodes"]; !ok {
		return nil, errorf("missing value for required option 'nodes'")
	}
	id := c.str("group")
	if cl.HA.Groups[id] != nil {
		return nil, wrapLockError("create ha group failed", errorf("ha group ID '%s' already defined", id))
	}
	cl.HA.Groups[id] = &HAGroup{ID: id, Props: opts}
	return nil, nil
}

// haGroupDeletable are Groups.pm options: nodes is required, the others
// optional; none is fixed.
var haGroupDeletable = map[string]bool{"nodes": false, "comment": true, "nofailback": true, "restricted": true}

// pve-ha-manager src/PVE/API2/HA/Groups.pm update: options are set, then
// the deleted ones removed (a key both set and deleted ends up deleted).
func (s *Sim) updateHAGroup(c *call) (any, error) {
	cl := c.cluster
	opts, err := s.haGroupOptions(c)
	if err != nil {
		return nil, err
	}
	if s.haConfigGroupsMigrated(cl) {
		return nil, errorf("cannot update group: ha groups have been migrated to rules")
	}
	if t, ok := c.param("type"); ok && t != "group" {
		return nil, errorf("types does not match")
	}
	fail := func(err error) error { return wrapLockError("update ha group failed", err) }
	if err := assertSectionDigest(cl.HA.groupsDigest(), c.str("digest")); err != nil {
		return nil, fail(err)
	}
	id := c.str("group")
	g := cl.HA.Groups[id]
	if g == nil {
		return nil, fail(errorf("no such ha group '%s'", id))
	}
	props := map[string]string{}
	for k, v := range g.Props {
		props[k] = v
	}
	for k, v := range opts {
		props[k] = v
	}
	for _, k := range haSplitList(c.str("delete")) {
		optional, known := haGroupDeletable[k]
		if !known {
			return nil, fail(errorf("no such option '%s'", k))
		}
		if !optional {
			return nil, fail(errorf("unable to delete required option '%s'", k))
		}
		delete(props, k)
	}
	g.Props = props
	return nil, nil
}

// pve-ha-manager src/PVE/API2/HA/Groups.pm delete: a group a resource
// uses stays; deleting a group that does not exist succeeds.
func (s *Sim) deleteHAGroup(c *call) (any, error) {
	cl := c.cluster
	if s.haConfigGroupsMigrated(cl) {
		return nil, errorf("cannot delete group: ha groups have been migrated to rules")
	}
	id := c.str("group")
	for _, sid := range sortedKeys(cl.HA.Resources) {
		if cl.HA.Resources[sid].Props["group"] == id {
			return nil, wrapLockError("delete ha group failed", errorf("ha group is used by service '%s'", sid))
		}
	}
	delete(cl.HA.Groups, id)
	// Config.pm have_groups_been_migrated: on 9.x an empty groups.cfg
	// counts as migrated, so the last group's deletion ends the 8.x era.
	if s.pve.release != "8.4" && len(cl.HA.Groups) == 0 {
		cl.HA.GroupsMigrated = true
	}
	return nil, nil
}

// assertSectionDigest is pve-common src/PVE/Tools.pm assert_if_modified:
// only a given digest that differs refuses.
func assertSectionDigest(current, given string) error {
	if pvegrammar.PerlTruthy(current) && pvegrammar.PerlTruthy(given) && current != given {
		return errorf("detected modified configuration - file changed by other user? Try again.")
	}
	return nil
}
