package pvesim

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/schema"
)

// handlerFunc answers one API call. It runs with the model locked and
// returns the "data" of the answer, or an error (see errors.go).
type handlerFunc func(c *call) (any, error)

// route is what the simulator implements for one (method, path template) of
// PVE's schema. Token use and node proxying come from the schema itself.
type route struct {
	handle handlerFunc
	// perm is the method's "permissions => { check => [...] }"; the zero
	// value is "user => 'all'".
	perm permission
	// check is a permission check that is more than one "perm" (the
	// 'userid-group' and 'userid-param' tests, 'and' and 'or'): it runs
	// where perm does, before the parameters are validated, with the raw
	// parameters, and root@pam skips it (check_api2_permissions).
	check func(c *call) error
	// public methods need no credentials (pveproxy's auth exemptions).
	public bool
	// configLock handlers run under the guest's config flock (lock_config)
	// before they answer.
	configLock bool
}

// permission is a "perm" check: the privileges needed on a path template.
type permission struct {
	path  string
	privs []string
	any   bool // ["perm", path, [...], "any", 1]
	// modify is ["perm-modify", path] (pve-access-control
	// src/PVE/RPCEnvironment.pm exec_api2_perm_check): check_perm_modify
	// on the path after normalize_path. A path normalize_path refuses
	// passes the check (it returns 0, and pve-manager PVE/HTTPServer.pm
	// rest_handler ignores check_api2_permissions' result): the handler
	// refuses it.
	modify bool
}

// checkRoute is the route's permission check on the expanded path.
func (c *call) checkRoute(p permission, params map[string]string) error {
	path := expandPath(p.path, params)
	if !p.modify {
		return c.check(path, p.any, p.privs...)
	}
	path = normalizeACLPath(path)
	if path == "" {
		return nil
	}
	return c.checkPermModify(path)
}

// call is one request as a handler sees it: validated parameters (path
// variables included, repeated values joined with NUL as PVE does), the
// caller and the model.
type call struct {
	sim     *Sim
	cluster *Cluster
	user    identity
	// method is the schema entry of the request, for parsing its
	// property-string parameters.
	method *schema.Method
	params map[string]string
	// total is the "total" result attribute some list methods return.
	total *int
}

func (c *call) param(name string) (string, bool) {
	v, ok := c.params[name]
	return v, ok
}

func (c *call) str(name string) string { return c.params[name] }

// intParam reads an integer parameter the schema has already checked.
func (c *call) intParam(name string, def int) int {
	v, ok := c.params[name]
	if !ok {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return def
	}
	return n
}

// boolParam reads a boolean the schema has checked (only 0/1 pass, W6).
func (c *call) boolParam(name string) bool { return c.params[name] == "1" }

// can tells whether the caller holds the privileges on path (any of them if
// anyOf, else all).
func (c *call) can(path string, anyOf bool, privs ...string) bool {
	return c.sim.allowed(c.user, path, anyOf, privs)
}

// check is RPCEnvironment::check / check_any: a 403 naming path and
// privileges when the caller lacks them (W49). pve-access-control
// src/PVE/RPCEnvironment.pm: check names the first privilege missing,
// check_any all of them.
func (c *call) check(path string, anyOf bool, privs ...string) error {
	if c.can(path, anyOf, privs...) {
		return nil
	}
	if !anyOf {
		for _, priv := range privs {
			if !c.can(path, false, priv) {
				return permError(path + ", " + priv)
			}
		}
	}
	return permError(path + ", " + strings.Join(privs, "|"))
}

// checkPermModify is RPCEnvironment::check_perm_modify (pve-access-control
// src/PVE/RPCEnvironment.pm).
func (c *call) checkPermModify(path string) error {
	privs := []string{"Permissions.Modify"}
	switch {
	case strings.HasPrefix(path, "/storage/"):
		privs = append(privs, "Datastore.Allocate")
	case strings.HasPrefix(path, "/vms/"):
		privs = append(privs, "VM.Allocate")
	case strings.HasPrefix(path, "/pool/"):
		privs = append(privs, "Pool.Allocate")
	}
	return c.check(path, true, privs...)
}

// handle registers a route for "METHOD /template". Later work adds guest,
// disk and upload endpoints the same way.
func (s *Sim) handle(method, template string, r route) {
	key := method + " " + template
	if _, dup := s.routes[key]; dup {
		panic("pvesim: duplicate route " + key)
	}
	s.routes[key] = &r
}

func (s *Sim) registerRoutes() {
	s.registerAccessRoutes()
	s.registerClusterRoutes()
	s.registerNodeRoutes()
	s.registerPoolRoutes()
	s.registerStorageRoutes()
	s.registerStorageContentRoutes()
	s.registerTaskRoutes()
	s.registerQemuRoutes()
	s.registerQemuAgentRoutes()
	s.registerLXCRoutes()
	s.registerBackupRoutes()
	s.registerSnapshotRoutes()
	s.registerFeatureRoutes()
	s.registerGuestExtraRoutes()
	s.registerNodeNetworkRoutes()
	s.registerAplinfoRoutes()
	s.registerAccessReadRoutes()
	s.registerAccessUserRoutes()
	s.registerAccessTokenRoutes()
	s.registerAccessWriteRoutes()
	s.registerRealmRoutes()
	s.registerFirewallRoutes()
	s.registerFirewallSetRoutes()
	s.registerHAConfigRoutes()
	s.registerHAResourceRoutes()
	s.registerReplicationRoutes()
	s.registerBackupJobRoutes()
	s.registerMappingRoutes()
	s.registerSDNExtraRoutes()
	s.registerSDNRoutes()
}

// expandPath fills a permission path template from the parameters, as PVE
// does with the uri parameters before checking.
func expandPath(template string, params map[string]string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(template, '{')
		if i < 0 {
			b.WriteString(template)
			return b.String()
		}
		j := strings.IndexByte(template[i:], '}')
		if j < 0 {
			b.WriteString(template)
			return b.String()
		}
		b.WriteString(template[:i])
		b.WriteString(params[template[i+1:i+j]])
		template = template[i+j+1:]
	}
}

// SetPrivileges restricts an identity ("USER@REALM" or
// "USER@REALM!TOKENID") to at most the given privileges on every path, on
// top of what its ACLs grant; with no privileges it holds none. A token
// without privilege separation is restricted by its user's restriction
// too. This is a test hook, not a PVE feature: tests that need PVE's own
// model grant roles through the access API instead.
func (s *Sim) SetPrivileges(identity string, privs ...string) {
	s.setPrivileges(identity, privs)
}

// ClearPrivileges lifts a restriction set by SetPrivileges or Options.
func (s *Sim) ClearPrivileges(identity string) {
	s.hooksMu.Lock()
	defer s.hooksMu.Unlock()
	delete(s.restrictions, identity)
}

func (s *Sim) setPrivileges(id string, privs []string) {
	set := map[string]bool{}
	for _, p := range privs {
		set[p] = true
	}
	s.hooksMu.Lock()
	defer s.hooksMu.Unlock()
	s.restrictions[id] = set
}

// methodAllowed is pveproxy's list of known HTTP methods.
func methodAllowed(m string) bool {
	switch m {
	case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete:
		return true
	}
	return false
}
