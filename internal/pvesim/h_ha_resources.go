package pvesim

import (
	"net/http"
	"strings"
)

// HA resources API (pve-ha-manager src/PVE/API2/HA/Resources.pm).
// Writes run inside lock_ha_domain, whose errors carry the operation's
// prefix ("create resource failed: ...").

func (s *Sim) registerHAResourceRoutes() {
	audit := permission{path: "/", privs: []string{"Sys.Audit"}}
	console := permission{path: "/", privs: []string{"Sys.Console"}}
	s.handle(http.MethodGet, "/cluster/ha", route{perm: audit, handle: s.haIndex})
	s.handle(http.MethodGet, "/cluster/ha/resources", route{perm: audit, handle: s.listHAResources})
	s.handle(http.MethodPost, "/cluster/ha/resources", route{perm: console, handle: s.createHAResource})
	s.handle(http.MethodGet, "/cluster/ha/resources/{sid}", route{perm: audit, handle: s.readHAResource})
	s.handle(http.MethodPut, "/cluster/ha/resources/{sid}", route{perm: console, handle: s.updateHAResource})
	s.handle(http.MethodDelete, "/cluster/ha/resources/{sid}", route{perm: console, handle: s.deleteHAResource})
	s.handle(http.MethodPost, "/cluster/ha/resources/{sid}/migrate", route{perm: console, handle: s.moveHAResource(false)})
	s.handle(http.MethodPost, "/cluster/ha/resources/{sid}/relocate", route{perm: console, handle: s.moveHAResource(true)})
	s.registerHAStatusRoutes()
}

// haPVE8 tells whether the served release is PVE 8.4 (pve-ha-manager
// 4.0), whose resources API predates the rules (no failback, no purge on
// delete, no answer to migrate).
func (s *Sim) haPVE8() bool { return s.pve.release == "8.4" }

// haIndex is GET /cluster/ha (pve-manager PVE/API2/HAConfig.pm index);
// PVE 8.4 has no rules.
func (s *Sim) haIndex(*call) (any, error) {
	out := []map[string]any{{"id": "status"}, {"id": "resources"}, {"id": "groups"}}
	if !s.haPVE8() {
		out = append(out, map[string]any{"id": "rules"})
	}
	return out, nil
}

// haResourcesGroupsMigrated is have_groups_been_migrated as the resources API
// sees it (PVE 9 only; pve-ha-manager src/PVE/HA/Config.pm).
func (s *Sim) haResourcesGroupsMigrated(cl *Cluster) bool {
	return !s.haPVE8() && cl.HA.GroupsMigrated
}

// haCopyConfig is $api_copy_config: the entry with sid, type and the
// file's digest; once the groups are migrated the group is left out.
// pve-ha-manager src/PVE/API2/HA/Resources.pm $api_copy_config
func (s *Sim) haCopyConfig(cl *Cluster, sid string) (map[string]any, error) {
	r := cl.HA.Resources[sid]
	if r == nil {
		return nil, errorf("no such resource '%s'", sid)
	}
	typ, _, _ := strings.Cut(sid, ":")
	out := map[string]any{"sid": sid, "type": typ, "digest": cl.HA.haResourcesDigest()}
	for k, v := range r.Props {
		if v == "" {
			continue
		}
		out[k] = haWireValue(k, v)
	}
	if s.haResourcesGroupsMigrated(cl) {
		delete(out, "group")
	}
	return out, nil
}

// haWireValue is how the JSON answer carries an option: integers and
// booleans as numbers (the section config decodes them).
func haWireValue(key, v string) any {
	switch key {
	case "max_restart", "max_relocate", "failback":
		n := 0
		for _, r := range v {
			if r < '0' || r > '9' {
				return v
			}
			n = n*10 + int(r-'0')
		}
		return n
	}
	return v
}

// pve-ha-manager src/PVE/API2/HA/Resources.pm index
func (s *Sim) listHAResources(c *call) (any, error) {
	cl := c.cluster
	want := c.str("type")
	out := []map[string]any{}
	for _, sid := range sortedKeys(cl.HA.Resources) {
		e, _ := s.haCopyConfig(cl, sid)
		if want != "" && e["type"] != want {
			continue
		}
		if g, ok := e["group"].(string); ok && cl.HA.Groups[g] == nil {
			e["errors"] = map[string]any{"group": "group '" + g + "' does not exist"}
		}
		out = append(out, e)
	}
	return out, nil
}

// pve-ha-manager src/PVE/API2/HA/Resources.pm read
func (s *Sim) readHAResource(c *call) (any, error) {
	sid, _, _, err := c.cluster.haParseSID(c.str("sid"), s.haPVE8())
	if err != nil {
		return nil, err
	}
	return s.haCopyConfig(c.cluster, sid)
}

// haOptionParams are the request's resource options, as check_config
// keeps them.
func haOptionParams(c *call) map[string]string {
	props := map[string]string{}
	for _, k := range []string{"state", "group", "comment", "failback", "max_restart", "max_relocate"} {
		if v, ok := c.param(k); ok {
			props[k] = v
		}
	}
	return props
}

// pve-ha-manager src/PVE/API2/HA/Resources.pm create
func (s *Sim) createHAResource(c *call) (any, error) {
	cl := c.cluster
	sid, typ, name, err := cl.haParseSID(c.str("sid"), s.haPVE8())
	if err != nil {
		return nil, err
	}
	if pt, ok := c.param("type"); ok && pt != "" && pt != typ {
		return nil, errorf("types does not match")
	}
	props := haOptionParams(c)
	if _, ok := props["group"]; ok && s.haResourcesGroupsMigrated(cl) {
		return nil, errorf("invalid parameter 'group': ha groups have been migrated to rules")
	}
	if err := cl.haCheckExists(typ, name); err != nil {
		return nil, err
	}
	fail := func(err error) error { return wrapLockError("create resource failed", err) }
	if cl.HA.Resources[sid] != nil {
		return nil, fail(errorf("resource ID '%s' already defined", sid))
	}
	if err := haCheckLineFeeds(props); err != nil {
		return nil, fail(err)
	}
	cl.HA.Resources[sid] = &HAResource{SID: sid, Props: props}
	return nil, nil
}

// pve-ha-manager src/PVE/API2/HA/Resources.pm update and
// src/PVE/HA/Config.pm update_resources_config
func (s *Sim) updateHAResource(c *call) (any, error) {
	cl := c.cluster
	sid, typ, _, err := cl.haParseSID(c.str("sid"), s.haPVE8())
	if err != nil {
		return nil, err
	}
	if pt, ok := c.param("type"); ok && pt != "" && pt != typ {
		return nil, errorf("types does not match")
	}
	props := haOptionParams(c)
	if g := props["group"]; g != "" {
		if s.haResourcesGroupsMigrated(cl) {
			return nil, errorf("invalid parameter 'group': ha groups have been migrated to rules")
		}
		if cl.HA.Groups[g] == nil {
			return nil, errorf("HA group '%s' does not exist", g)
		}
	}
	if err := cl.haCheckServiceState(sid, props["state"]); err != nil {
		return nil, err
	}
	fail := func(err error) error { return wrapLockError("update resources config failed", err) }
	if err := assertFirewallDigest(cl.HA.haResourcesDigest(), c.str("digest")); err != nil {
		return nil, fail(err)
	}
	r := cl.HA.Resources[sid]
	if r == nil {
		return nil, fail(errorf("no such resource '%s'", sid))
	}
	next := map[string]string{}
	for k, v := range r.Props {
		next[k] = v
	}
	for k, v := range props {
		next[k] = v
	}
	options := haResourceOptions(s.haPVE8())
	for _, k := range splitList(c.str("delete")) {
		if !options[k] {
			return nil, fail(errorf("no such option '%s'", k))
		}
		delete(next, k)
	}
	if err := haCheckLineFeeds(next); err != nil {
		return nil, fail(err)
	}
	r.Props = next
	return nil, nil
}

// pve-ha-manager src/PVE/API2/HA/Resources.pm delete; PVE 9's purge
// (default 1) also takes the resource out of the rules.
func (s *Sim) deleteHAResource(c *call) (any, error) {
	cl := c.cluster
	sid, _, _, err := cl.haParseSID(c.str("sid"), s.haPVE8())
	if err != nil {
		return nil, err
	}
	if cl.HA.Resources[sid] == nil {
		return nil, errorf("cannot delete service '%s', not HA managed!", sid)
	}
	purge := !s.haPVE8()
	if v, ok := c.param("purge"); ok {
		purge = v == "1"
	}
	cl.haDeleteResource(sid, purge)
	return nil, nil
}

// moveHAResource is POST .../migrate and .../relocate: the request is
// queued for the manager; PVE 9 answers with the services moved along
// and those blocking the target (PVE 8.4 answers null).
// pve-ha-manager src/PVE/API2/HA/Resources.pm migrate, relocate.
func (s *Sim) moveHAResource(relocate bool) handlerFunc {
	return func(c *call) (any, error) {
		cl := c.cluster
		sid, _, _, err := cl.haParseSID(c.str("sid"), s.haPVE8())
		if err != nil {
			return nil, err
		}
		node := c.str("node")
		if err := cl.haRequestMove(sid, node, relocate); err != nil {
			return nil, err
		}
		if s.haPVE8() {
			return nil, nil
		}
		out := map[string]any{"sid": sid, "requested-node": node}
		comigrated, blocking := cl.haMotionInfo(sid, node)
		if len(comigrated) > 0 {
			out["comigrated-resources"] = comigrated
		}
		if len(blocking) > 0 {
			out["blocking-resources"] = blocking
		}
		return out, nil
	}
}
