package pvesim

import (
	"encoding/hex"
	"net/http"
)

// SDN's top level: pve-network src/PVE/API2/Network/SDN.pm (index, lock,
// release_lock, rollback, reload). PVE 8.4 (pve-network 0.11.2) has no
// lock, no rollback and no lock-token parameter; its schema refuses them.

func (s *Sim) registerSDNRoutes() {
	audit := permission{path: "/sdn", privs: []string{"SDN.Audit"}}
	allocate := permission{path: "/sdn", privs: []string{"SDN.Allocate"}}
	s.handle(http.MethodGet, "/cluster/sdn", route{perm: audit, handle: s.sdnIndex})
	s.handle(http.MethodPut, "/cluster/sdn", route{perm: allocate, handle: s.sdnApply})
	if s.pve.release != "8.4" {
		s.handle(http.MethodPost, "/cluster/sdn/lock", route{perm: allocate, handle: s.sdnLock})
		s.handle(http.MethodDelete, "/cluster/sdn/lock", route{perm: allocate, handle: s.sdnReleaseLock})
		s.handle(http.MethodPost, "/cluster/sdn/rollback", route{perm: allocate, handle: s.sdnRollback})
	}
	s.registerSDNZoneRoutes()
	s.registerSDNVnetRoutes()
	s.registerSDNSubnetRoutes()
	s.registerSDNNodeRoutes()
}

// pve-network src/PVE/API2/Network/SDN.pm index; 8.4 lists no fabrics
// (pve-network 0.11.2).
func (s *Sim) sdnIndex(*call) (any, error) {
	ids := []string{"vnets", "zones", "controllers", "ipams", "dns"}
	if s.pve.release != "8.4" {
		ids = append(ids, "fabrics")
	}
	out := make([]map[string]any, 0, len(ids))
	for _, id := range ids {
		out = append(out, map[string]any{"id": id})
	}
	return out, nil
}

// sdnLocked is pve-network src/PVE/Network/SDN.pm lock_sdn_config: under
// the "sdn" domain lock, a global lock (.lock, PVE 9) admits only the
// request that gives its token as lock-token; without a global lock any
// token passes. fn's error, and the refusal, are prefixed with errmsg
// (lock_sdn_domain's die "$errmsg: $err"). The refusal dies without a
// newline: PVE's text goes on with " at .../PVE/Network/SDN.pm line N.",
// left out here.
func sdnLocked(c *call, errmsg string, fn func(sd *SDNState) error) error {
	sd := c.cluster.SDN
	if sd.LockToken != "" {
		if token, ok := c.param("lock-token"); !ok || token != sd.LockToken {
			return wrapLockError(errmsg, errorf("invalid lock token provided!"))
		}
	}
	if err := fn(sd); err != nil {
		return wrapLockError(errmsg, err)
	}
	return nil
}

// newLockToken is pve-network src/PVE/Network/SDN.pm generate_lock_token:
// a version 7 UUID (UUID::generate_v7): 48 bits of Unix milliseconds,
// then random bits.
func (s *Sim) newLockToken() string {
	b := make([]byte, 16)
	ms := s.now().UnixMilli()
	for i := 0; i < 6; i++ {
		b[i] = byte(ms >> (8 * (5 - i)))
	}
	for i := 6; i < 16; i++ {
		b[i] = byte(s.ids.Intn(256))
	}
	b[6] = b[6]&0x0f | 0x70
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// pve-network src/PVE/API2/Network/SDN.pm lock: refused while another
// holds the lock (lock_sdn_config without a token) and, unless
// allow-pending, while there are pending changes (has_pending_changes).
func (s *Sim) sdnLock(c *call) (any, error) {
	var token string
	err := sdnLocked(&call{cluster: c.cluster, params: map[string]string{}}, "could not acquire lock for SDN config", func(sd *SDNState) error {
		if !c.boolParam("allow-pending") && sd.HasPendingChanges() {
			// die without newline: PVE adds " at ... line N.".
			return errorf("configuration has pending changes")
		}
		token = s.newLockToken()
		sd.LockToken = token
		return nil
	})
	if err != nil {
		return nil, err
	}
	return token, nil
}

// pve-network src/PVE/API2/Network/SDN.pm release_lock: force removes the
// lock whoever holds it; otherwise the token must match (lock_sdn_config).
// Releasing a lock nobody holds succeeds.
func (s *Sim) sdnReleaseLock(c *call) (any, error) {
	if c.boolParam("force") {
		c.cluster.SDN.LockToken = ""
		return nil, nil
	}
	return nil, sdnLocked(c, "could not release lock", func(sd *SDNState) error {
		sd.LockToken = ""
		return nil
	})
}

// sdnReleaseAfter is the release-lock rule of reload and rollback
// (pve-network src/PVE/API2/Network/SDN.pm): the lock goes only when a
// lock-token was given and release-lock is true. The handlers read the
// parameter with extract_param and PVE never fills in a schema default,
// so a request without release-lock keeps the lock, whatever the
// documented default of 1 says.
func sdnReleaseAfter(c *call) bool {
	token, _ := c.param("lock-token")
	return token != "" && c.boolParam("release-lock")
}

// pve-network src/PVE/API2/Network/SDN.pm rollback: the files of zones,
// vnets, subnets, controllers (and fabrics) go back to the running config.
func (s *Sim) sdnRollback(c *call) (any, error) {
	return nil, sdnLocked(c, "could not rollback SDN configuration", func(sd *SDNState) error {
		sd.Rollback()
		if sdnReleaseAfter(c) {
			sd.LockToken = ""
		}
		return nil
	})
}

// pve-network src/PVE/API2/Network/SDN.pm reload: the running config is
// compiled from the files (version bumped) and the lock released before
// the answer, then the "reloadnetworkall" worker reloads each node's
// network ("$nodename: reloading network config"). A node runs the new
// version once the worker is done (node status "pending" until then,
// pve-network src/PVE/Network/SDN/Zones.pm status). A failing worker
// (FailNextSDNApply) leaves the commit in place, as PVE's does, and the
// nodes on their old version.
func (s *Sim) sdnApply(c *call) (any, error) {
	err := sdnLocked(c, "could not commit SDN config", func(sd *SDNState) error {
		sd.Commit()
		if sdnReleaseAfter(c) {
			sd.LockToken = ""
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	version := c.cluster.SDN.Running.Version
	t := s.startWorker(c.cluster.answeringNode().Name, "reloadnetworkall", "", c.user, workerSpec{work: func(t *Task) error {
		for _, n := range c.cluster.Nodes {
			t.Log("%s: reloading network config", n.Name)
			c.cluster.SDN.NodeVersion[n.Name] = version
		}
		return nil
	}})
	return t.UPID, nil
}
