package pvesim

import (
	"net/http"
	"strings"
)

func (s *Sim) registerAccessRoutes() {
	// pveproxy lets these through without credentials.
	s.handle(http.MethodPost, "/access/ticket", route{public: true, handle: s.createTicket})
	s.handle(http.MethodGet, "/access/ticket", route{public: true, handle: func(*call) (any, error) {
		return nil, nil
	}})
}

// createTicket is POST /access/ticket: a login with a password, or the
// renewal of a still valid ticket passed as the password. Every failure is
// the same 401, so that users cannot be enumerated.
// pve-access-control src/PVE/API2/AccessControl.pm create_ticket
func (s *Sim) createTicket(c *call) (any, error) {
	user := c.str("username")
	if realm, ok := c.param("realm"); ok {
		user += "@" + realm
	}
	password := c.str("password")
	now := s.now()
	ok := s.auth.checkPassword(user, password)
	if !ok {
		if ticketUser, valid := s.auth.verifyTicket(password, now); valid && (ticketUser == user || ticketUser == "root@pam") {
			ok = true
		}
	}
	// authenticate_user: check_user_enabled before the realm's check.
	if !ok || !userIDPattern.MatchString(user) || strings.Contains(user, "!") || !s.userEnabled(user) {
		return nil, statusError(http.StatusUnauthorized, msgLoginFailure)
	}
	// pve-access-control src/PVE/API2/AccessControl.pm create_ticket:
	// the computed API permissions always, the cluster's name only for a
	// user with Sys.Audit on /.
	id := identity{user: user}
	out := map[string]any{
		"username":            user,
		"ticket":              s.auth.makeTicket(user, now),
		"CSRFPreventionToken": s.auth.makeCSRF(user, now),
		"cap":                 s.apiCapabilities(id),
	}
	if c.cluster.Name != "" && s.allowed(id, "/", false, []string{"Sys.Audit"}) {
		out["clustername"] = c.cluster.Name
	}
	return out, nil
}
