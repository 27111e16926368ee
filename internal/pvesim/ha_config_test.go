package pvesim

import (
	"net/http"
	"testing"
)

// seedHAResources puts HA resources straight into the model, as
// ha/resources.cfg entries, for the group and rule checks.
func seedHAResources(t *testing.T, s *Sim, entries map[string]map[string]string) {
	t.Helper()
	if err := s.Update(func(c *Cluster) error {
		for sid, props := range entries {
			p := map[string]string{}
			for k, v := range props {
				p[k] = v
			}
			c.HA.Resources[sid] = &HAResource{SID: sid, Props: p}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// pve-ha-manager src/PVE/API2/HA/Groups.pm (PVE 8.4): create, read,
// update, delete and their refusals.
func TestHAGroupsPVE84(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{PVEVersion: "8.4"})
	e.call(t, http.MethodPost, "/cluster/ha/groups", form("group", "prod", "nodes", "pve2:2,pve1,pve2:2", "restricted", "1")).wantOK(t)
	e.call(t, http.MethodPost, "/cluster/ha/groups", form("group", "prod", "nodes", "pve1")).
		wantStatus(t, http.StatusInternalServerError, "create ha group failed: ha group ID 'prod' already defined")
	// pve_verify_ha_group_node (pve-ha-manager 4.0.7 src/PVE/HA/Tools.pm)
	a := e.call(t, http.MethodPost, "/cluster/ha/groups", form("group", "bad", "nodes", "pve1:x"))
	a.wantStatus(t, http.StatusBadRequest, "Parameter verification failed.")
	if a.errors["nodes"] != "invalid format - value does not look like a valid ha group node\n" {
		t.Errorf("errors = %v", a.errors)
	}

	var g map[string]any
	e.call(t, http.MethodGet, "/cluster/ha/groups/prod", nil).decode(t, &g)
	// Groups.pm decode_value keeps each entry once, as written.
	if g["nodes"] != "pve1,pve2:2" || g["restricted"] != float64(1) || g["type"] != "group" || g["group"] != "prod" || g["digest"] == "" {
		t.Fatalf("group = %v", g)
	}
	if _, ok := g["nofailback"]; ok {
		t.Errorf("unset nofailback printed: %v", g)
	}
	digest := g["digest"].(string)
	e.call(t, http.MethodPut, "/cluster/ha/groups/prod", form("comment", "web", "nofailback", "1", "delete", "restricted", "digest", digest)).wantOK(t)
	e.call(t, http.MethodPut, "/cluster/ha/groups/prod", form("comment", "x", "digest", digest)).
		wantStatus(t, http.StatusInternalServerError, "update ha group failed: detected modified configuration - file changed by other user? Try again.")
	e.call(t, http.MethodPut, "/cluster/ha/groups/prod", form("delete", "nodes")).
		wantStatus(t, http.StatusInternalServerError, "update ha group failed: unable to delete required option 'nodes'")
	e.call(t, http.MethodPut, "/cluster/ha/groups/nope", form("comment", "x")).
		wantStatus(t, http.StatusInternalServerError, "update ha group failed: no such ha group 'nope'")
	g = nil
	e.call(t, http.MethodGet, "/cluster/ha/groups/prod", nil).decode(t, &g)
	if g["comment"] != "web" || g["nofailback"] != float64(1) || g["restricted"] != nil {
		t.Fatalf("updated group = %v", g)
	}
	var list []map[string]any
	e.call(t, http.MethodGet, "/cluster/ha/groups", nil).decode(t, &list)
	if len(list) != 1 || list[0]["group"] != "prod" {
		t.Fatalf("list = %v", list)
	}
	e.call(t, http.MethodGet, "/cluster/ha/groups/nope", nil).
		wantStatus(t, http.StatusInternalServerError, "no such ha group 'nope'")

	seedHAResources(t, e.sim, map[string]map[string]string{"vm:100": {"group": "prod"}})
	e.call(t, http.MethodDelete, "/cluster/ha/groups/prod", nil).
		wantStatus(t, http.StatusInternalServerError, "delete ha group failed: ha group is used by service 'vm:100'")
	seedHAResources(t, e.sim, map[string]map[string]string{"vm:100": {}})
	e.call(t, http.MethodDelete, "/cluster/ha/groups/prod", nil).wantOK(t)
	// Deleting a group that is not there succeeds.
	e.call(t, http.MethodDelete, "/cluster/ha/groups/prod", nil).wantOK(t)

	// PVE 8.4's schema has no rules.
	e.call(t, http.MethodGet, "/cluster/ha/rules", nil).
		wantStatus(t, http.StatusNotImplemented, "Method 'GET /cluster/ha/rules' not implemented")
}

// Groups.pm: 9.x refusals once the groups are migrated (a fresh cluster).
func TestHAGroupsMigratedRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	for _, c := range []struct{ method, path, text string }{
		{http.MethodGet, "/cluster/ha/groups", "cannot index groups: ha groups have been migrated to rules"},
		{http.MethodGet, "/cluster/ha/groups/prod", "cannot read group: ha groups have been migrated to rules"},
		{http.MethodPost, "/cluster/ha/groups", "cannot create group: ha groups have been migrated to rules"},
		{http.MethodPut, "/cluster/ha/groups/prod", "cannot update group: ha groups have been migrated to rules"},
		{http.MethodDelete, "/cluster/ha/groups/prod", "cannot delete group: ha groups have been migrated to rules"},
	} {
		f := form()
		if c.method == http.MethodPost {
			f = form("group", "prod", "nodes", "pve1")
		}
		e.call(t, c.method, c.path, f).wantStatus(t, http.StatusInternalServerError, c.text)
	}
	// Permissions: Sys.Audit to read, Sys.Console to write, on /.
	e.sim.SetPrivileges(testTokenUser, "Sys.Audit")
	e.call(t, http.MethodPost, "/cluster/ha/rules", form("rule", "r1", "type", "resource-affinity", "resources", "vm:1,vm:2", "affinity", "positive")).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/, Sys.Console)")
	e.call(t, http.MethodGet, "/cluster/ha/rules", nil).wantOK(t)
	e.sim.SetPrivileges(testTokenUser)
	e.call(t, http.MethodGet, "/cluster/ha/rules", nil).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/, Sys.Audit)")
}

// An upgraded, not yet migrated 9.x cluster: groups work, rules refuse to
// be written (Rules.pm create_rule/update_rule); GET shows each used group
// as its rule-to-be; MigrateHAGroups does what the HA manager does.
func TestHAGroupsUnmigratedAndMigration(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	if err := e.sim.SetHAGroupsUnmigrated(); err != nil {
		t.Fatal(err)
	}
	e.call(t, http.MethodPost, "/cluster/ha/groups", form("group", "prod", "nodes", "pve1:2,pve2", "restricted", "1", "nofailback", "1")).wantOK(t)
	e.call(t, http.MethodPost, "/cluster/ha/groups", form("group", "idle", "nodes", "pve1")).wantOK(t)
	seedHAResources(t, e.sim, map[string]map[string]string{"vm:100": {"group": "prod"}, "vm:101": {"group": "prod"}, "ct:102": {}, "vm:103": {}})
	e.call(t, http.MethodPost, "/cluster/ha/rules", form("rule", "r1", "type", "resource-affinity", "resources", "vm:100,ct:102", "affinity", "positive")).
		wantStatus(t, http.StatusInternalServerError, "cannot create ha rule: ha groups have not been migrated yet")
	e.call(t, http.MethodPut, "/cluster/ha/rules/r1", form("type", "resource-affinity", "comment", "x")).
		wantStatus(t, http.StatusInternalServerError, "cannot update ha rule: ha groups have not been migrated yet")
	var rules []map[string]any
	e.call(t, http.MethodGet, "/cluster/ha/rules", nil).decode(t, &rules)
	if len(rules) != 1 || rules[0]["rule"] != "ha-group-prod" || rules[0]["nodes"] != "pve1:2,pve2" ||
		rules[0]["resources"] != "vm:100,vm:101" || rules[0]["strict"] != float64(1) ||
		rules[0]["comment"] != "Generated from HA group 'prod'." {
		t.Fatalf("rules = %v", rules)
	}

	if err := e.sim.MigrateHAGroups(); err != nil {
		t.Fatal(err)
	}
	e.call(t, http.MethodGet, "/cluster/ha/groups", nil).
		wantStatus(t, http.StatusInternalServerError, "cannot index groups: ha groups have been migrated to rules")
	var r map[string]any
	e.call(t, http.MethodGet, "/cluster/ha/rules/ha-group-prod", nil).decode(t, &r)
	if r["type"] != "node-affinity" || r["order"] != float64(1) {
		t.Fatalf("migrated rule = %v", r)
	}
	e.sim.View(func(c *Cluster) {
		if p := c.HA.Resources["vm:100"].Props; p["group"] != "" || p["failback"] != "0" {
			t.Errorf("vm:100 after migration = %v", p)
		}
		if len(c.HA.Groups) != 0 {
			t.Errorf("groups left: %v", c.HA.Groups)
		}
	})
	// Rules are writable now; the checks see the migrated rule (two
	// priorities: no resource affinity for its resources).
	e.call(t, http.MethodPost, "/cluster/ha/rules", form("rule", "r1", "type", "resource-affinity", "resources", "ct:102,vm:103", "affinity", "positive")).wantOK(t)
	e.call(t, http.MethodPost, "/cluster/ha/rules", form("rule", "r2", "type", "resource-affinity", "resources", "vm:100,vm:101", "affinity", "positive")).
		wantStatus(t, http.StatusInternalServerError, "create ha rule failed: 400 Rule 'r2' is invalid.")
}

// Rules.pm create_rule / update_rule / read_rule / delete_rule and the
// plugins' checks (PVE 9.x).
func TestHARulesCRUDAndChecks(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Nodes: 3})
	seedHAResources(t, e.sim, map[string]map[string]string{"vm:100": {}, "vm:101": {}, "ct:102": {}, "vm:103": {}})
	post := func(kv ...string) *answer { return e.call(t, http.MethodPost, "/cluster/ha/rules", form(kv...)) }
	const fail500 = http.StatusInternalServerError

	post("rule", "web", "type", "node-affinity", "resources", "vm:101,vm:100", "nodes", "pve2:0,pve1:2,pve3:1", "strict", "1", "disable", "0").wantOK(t)
	var r map[string]any
	e.call(t, http.MethodGet, "/cluster/ha/rules/web", nil).decode(t, &r)
	// NodeAffinity.pm encode_plugin_value: sorted, priority 0 omitted;
	// Rules.pm encode_value: resources sorted; a false disable dropped.
	if r["nodes"] != "pve1:2,pve2,pve3:1" || r["resources"] != "vm:100,vm:101" || r["strict"] != float64(1) ||
		r["order"] != float64(1) || r["disable"] != nil || r["errors"] != nil {
		t.Fatalf("rule = %v", r)
	}
	digest := r["digest"].(string)

	post("rule", "web", "type", "node-affinity", "resources", "vm:103", "nodes", "pve1").
		wantStatus(t, fail500, "create ha rule failed: HA rule 'web' already defined")
	post("rule", "xx", "type", "node-affinity", "resources", "vm:103,vm:999,ct:998", "nodes", "pve1").
		wantStatus(t, fail500, "create ha rule failed: cannot use unmanaged resource(s) ct:998, vm:999.")
	post("rule", "xx", "type", "node-affinity", "resources", "vm:103", "nodes", "pve1,pve9,nodeb").
		wantStatus(t, fail500, "create ha rule failed: cannot use non-existent node(s) nodeb, pve9.")
	// SectionConfig check_config: options of the other type, required ones.
	post("rule", "xx", "type", "resource-affinity", "resources", "vm:103,ct:102", "affinity", "positive", "nodes", "pve1").
		wantStatus(t, fail500, "unexpected property 'nodes'")
	post("rule", "xx", "type", "node-affinity", "resources", "vm:103", "nodes", "pve1", "affinity", "positive").
		wantStatus(t, fail500, "unexpected property 'affinity'")
	post("rule", "xx", "type", "node-affinity", "resources", "vm:103").
		wantStatus(t, fail500, "missing value for required option 'nodes'")
	post("rule", "xx", "type", "resource-affinity", "resources", "vm:103,ct:102").
		wantStatus(t, fail500, "missing value for required option 'affinity'")
	// NodeAffinity.pm check_single_resource_reference, through
	// Rules.pm $assert_feasibility.
	a := post("rule", "xx", "type", "node-affinity", "resources", "vm:100,vm:103", "nodes", "pve1")
	a.wantStatus(t, fail500, "create ha rule failed: 400 Rule 'xx' is invalid.")
	if a.message != "create ha rule failed: 400 Rule 'xx' is invalid.\nresources: resource 'vm:100' is already used in another node affinity rule\n" {
		t.Errorf("message = %q", a.message)
	}
	// ResourceAffinity.pm check_resource_affinity_resources_count
	a = post("rule", "xx", "type", "resource-affinity", "resources", "vm:103", "affinity", "negative")
	if a.message != "create ha rule failed: 400 Rule 'xx' is invalid.\nresources: rule is ineffective as there are less than two resources\n" {
		t.Errorf("message = %q", a.message)
	}
	// Rules.pm check_single_priority_node_affinity_in_resource_affinity_rules
	a = post("rule", "xx", "type", "resource-affinity", "resources", "vm:100,vm:103", "affinity", "negative")
	if a.message != "create ha rule failed: 400 Rule 'xx' is invalid.\nresources: resources are in node affinity rules with multiple priorities\n" {
		t.Errorf("message = %q", a.message)
	}

	// Update: digest, type, delete and set.
	put := func(kv ...string) *answer { return e.call(t, http.MethodPut, "/cluster/ha/rules/web", form(kv...)) }
	put("type", "node-affinity", "nodes", "pve1,pve2", "comment", "web tier", "delete", "strict", "digest", digest).wantOK(t)
	put("type", "node-affinity", "comment", "x", "digest", digest).
		wantStatus(t, fail500, "update HA rules failed: detected modified configuration - file changed by other user? Try again.")
	put("type", "resource-affinity", "comment", "x").
		wantStatus(t, fail500, "update HA rules failed: unexpected property 'type'")
	put("type", "node-affinity", "delete", "resources").
		wantStatus(t, fail500, "update HA rules failed: unable to delete required option 'resources'")
	put("type", "node-affinity", "delete", "affinity").
		wantStatus(t, fail500, "update HA rules failed: no such option 'affinity'")
	put("type", "node-affinity", "comment", "y", "delete", "comment").
		wantStatus(t, fail500, "update HA rules failed: cannot set and delete property 'comment' at the same time!")
	e.call(t, http.MethodPut, "/cluster/ha/rules/nope", form("type", "node-affinity", "comment", "x")).
		wantStatus(t, fail500, "update HA rules failed: HA rule 'nope' does not exist")
	// disable=0 does not enable (Rules.pm drops a false disable); delete does.
	put("type", "node-affinity", "disable", "1").wantOK(t)
	put("type", "node-affinity", "disable", "0").wantOK(t)
	r = nil
	e.call(t, http.MethodGet, "/cluster/ha/rules/web", nil).decode(t, &r)
	if r["disable"] != float64(1) || r["nodes"] != "pve1,pve2" || r["comment"] != "web tier" || r["strict"] != nil {
		t.Fatalf("updated rule = %v", r)
	}
	put("type", "node-affinity", "delete", "disable").wantOK(t)

	post("rule", "apart", "type", "resource-affinity", "resources", "vm:100,ct:102", "affinity", "negative").wantOK(t)
	var list []map[string]any
	e.call(t, http.MethodGet, "/cluster/ha/rules", form("type", "resource-affinity")).decode(t, &list)
	if len(list) != 1 || list[0]["rule"] != "apart" || list[0]["affinity"] != "negative" || list[0]["order"] != float64(2) {
		t.Fatalf("resource-affinity rules = %v", list)
	}
	e.call(t, http.MethodGet, "/cluster/ha/rules", form("resource", "vm:101")).decode(t, &list)
	if len(list) != 1 || list[0]["rule"] != "web" {
		t.Fatalf("rules of vm:101 = %v", list)
	}
	// ResourceAffinity.pm check_inter_resource_affinity_rules_consistency
	a = post("rule", "together", "type", "resource-affinity", "resources", "vm:100,ct:102", "affinity", "positive")
	if a.message != "create ha rule failed: 400 Rule 'together' is invalid.\nresources: rule shares two or more resources with a negative resource affinity rule\n" {
		t.Errorf("message = %q", a.message)
	}
	// A rule made infeasible by a change outside it carries its errors
	// (Rules.pm read_rule/index).
	if err := e.sim.Update(func(c *Cluster) error {
		c.HA.Rules["dup"] = &HARule{ID: "dup", Type: "node-affinity", Order: 3, Props: map[string]string{"resources": "vm:101", "nodes": "pve3"}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var errsRule struct {
		Errors map[string][]string `json:"errors"`
	}
	e.call(t, http.MethodGet, "/cluster/ha/rules/web", nil).decode(t, &errsRule)
	if got := errsRule.Errors["resources"]; len(got) != 1 || got[0] != "resource 'vm:101' is already used in another node affinity rule" {
		t.Errorf("errors = %v", errsRule.Errors)
	}

	e.call(t, http.MethodDelete, "/cluster/ha/rules/web", nil).wantOK(t)
	e.call(t, http.MethodDelete, "/cluster/ha/rules/web", nil).wantOK(t)
	e.call(t, http.MethodGet, "/cluster/ha/rules/web", nil).
		wantStatus(t, fail500, "no such ha rule 'web'")
}

// The remaining feasibility checks, each through create_rule's
// $assert_feasibility (pve-ha-manager src/PVE/HA/Rules.pm and
// src/PVE/HA/Rules/ResourceAffinity.pm).
func TestHARuleFeasibilityChecks(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Nodes: 2})
	seedHAResources(t, e.sim, map[string]map[string]string{"vm:100": {}, "vm:101": {}, "vm:102": {}, "vm:103": {}})
	post := func(kv ...string) *answer { return e.call(t, http.MethodPost, "/cluster/ha/rules", form(kv...)) }
	want := func(a *answer, id, msg string) {
		t.Helper()
		if w := "create ha rule failed: 400 Rule '" + id + "' is invalid.\nresources: " + msg + "\n"; a.message != w {
			t.Errorf("got %q\nwant %q", a.message, w)
		}
	}
	// check_negative_resource_affinity_resources_count: two nodes.
	want(post("rule", "many", "type", "resource-affinity", "resources", "vm:100,vm:101,vm:102", "affinity", "negative"),
		"many", "rule defines more resources than available nodes")

	post("rule", "na1", "type", "node-affinity", "resources", "vm:100", "nodes", "pve1").wantOK(t)
	post("rule", "na2", "type", "node-affinity", "resources", "vm:101", "nodes", "pve1").wantOK(t)
	// check_single_node_affinity_per_positive_resource_affinity_rule
	want(post("rule", "pos", "type", "resource-affinity", "resources", "vm:100,vm:101", "affinity", "positive"),
		"pos", "resources are in multiple node affinity rules")
	// check_negative_resource_affinity_node_affinity_consistency: both
	// resources are bound to pve1 alone.
	want(post("rule", "neg", "type", "resource-affinity", "resources", "vm:100,vm:101", "affinity", "negative"),
		"neg", "two or more resources are restricted to less nodes than available to the resources")
	// A disabled rule takes no part in the checks.
	post("rule", "neg", "type", "resource-affinity", "resources", "vm:100,vm:101", "affinity", "negative", "disable", "1").wantOK(t)
	// The node-affinity rules now carry errors of their own on read.
	var r struct {
		Errors map[string][]string `json:"errors"`
	}
	e.call(t, http.MethodGet, "/cluster/ha/rules/na1", nil).decode(t, &r)
	if len(r.Errors) != 0 {
		t.Errorf("errors with the negative rule disabled: %v", r.Errors)
	}
	e.call(t, http.MethodPut, "/cluster/ha/rules/neg", form("type", "resource-affinity", "delete", "disable")).
		wantStatus(t, http.StatusInternalServerError, "update HA rules failed: 400 Rule 'neg' is invalid.")
}
