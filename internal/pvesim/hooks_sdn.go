package pvesim

import (
	"fmt"
	"net/http"
)

// Test hooks for SDN: state changes "outside the API" that stand for
// another administrator's work, and the failures a test needs.

// SDNNoQuorum is the error of an apply worker on a cluster without quorum
// (pve-cluster src/PVE/Cluster.pm check_cfs_quorum, which the reload
// worker of pve-network src/PVE/API2/Network/SDN.pm calls first): the
// default of FailNextSDNApply.
const SDNNoQuorum = "cluster not ready - no quorum?"

// PlantSDNPending stages a change of kind/id in its file as another
// client's write would, without the lock or any check: obj is the staged
// object (nil stages the object's deletion). Props use the API's forms
// (lists comma-joined, booleans 0/1). The running config is not touched,
// so GET ...?pending=1 shows the change.
func (s *Sim) PlantSDNPending(kind, id string, obj *SDNObject) error {
	return s.Update(func(c *Cluster) error {
		if obj == nil {
			if !c.SDN.Remove(kind, id) {
				return fmt.Errorf("sdn %s %q is not in its file", kind, id)
			}
			return nil
		}
		cp := obj.clone()
		if cp.Props == nil {
			cp.Props = map[string]string{}
		}
		c.SDN.Put(kind, id, cp)
		return nil
	})
}

// CommitSDN applies the staged SDN configuration outside the API, as if
// someone had applied it and every node had reloaded: for tests that start
// from objects already running.
func (s *Sim) CommitSDN() {
	_ = s.Update(func(c *Cluster) error {
		c.SDN.Commit()
		for _, n := range c.Nodes {
			c.SDN.NodeVersion[n.Name] = c.SDN.Running.Version
		}
		return nil
	})
}

// SDNLockToken is the token of the global SDN lock (/etc/pve/sdn/.lock),
// "" when nobody holds it.
func (s *Sim) SDNLockToken() string {
	var out string
	s.View(func(c *Cluster) { out = c.SDN.LockToken })
	return out
}

// TakeSDNLock makes another client hold the global SDN lock (PVE 9) and
// returns its token; it fails when the lock is held already.
func (s *Sim) TakeSDNLock() (string, error) {
	if s.pve.release == "8.4" {
		return "", fmt.Errorf("PVE 8.4 has no SDN lock")
	}
	var token string
	err := s.Update(func(c *Cluster) error {
		if c.SDN.LockToken != "" {
			return fmt.Errorf("the SDN lock is held already")
		}
		token = s.newLockToken()
		c.SDN.LockToken = token
		return nil
	})
	return token, err
}

// SDNRunningVersion is the running config's version (0: never applied).
func (s *Sim) SDNRunningVersion() int {
	var out int
	s.View(func(c *Cluster) { out = c.SDN.Running.Version })
	return out
}

// SDNEntries lists kind's objects in a view (sorted by id), as copies.
func (s *Sim) SDNEntries(kind string, view SDNView) []SDNEntry {
	var out []SDNEntry
	s.View(func(c *Cluster) { out = c.SDN.View(kind, view) })
	return out
}

// FailNextSDNApply makes the worker of the next PUT /cluster/sdn fail with
// message (SDNNoQuorum when empty). The request itself succeeds: the
// running config is compiled and the lock released (when the request asked
// for it) before the worker starts, as on PVE; the nodes keep their old
// network configuration.
func (s *Sim) FailNextSDNApply(message string) error {
	if message == "" {
		message = SDNNoQuorum
	}
	return s.InjectFault(Fault{Method: http.MethodPut, Path: "/cluster/sdn", Action: FaultTaskFail, Message: message, Count: 1})
}

// ReleaseSDNLock removes the global SDN lock whoever holds it, as another
// client's DELETE /cluster/sdn/lock with its token (or force) does.
func (s *Sim) ReleaseSDNLock() {
	_ = s.Update(func(c *Cluster) error {
		c.SDN.LockToken = ""
		return nil
	})
}

// SDNDomainLockTimeout is the error of an SDN request that waited in vain
// (10 s) for the cluster-wide "sdn" domain lock another request held:
// pve-cluster src/PVE/Cluster.pm $cfs_lock ("cfs-lock '$lockid' error: got
// lock request timeout") under pve-network src/PVE/Network/SDN.pm
// lock_sdn_domain's "$errmsg: $err". errmsg is the handler's ("create sdn
// zone object failed", "could not acquire lock for SDN config", ...). A
// test injects it with InjectFault (FaultRespond, status 500).
func SDNDomainLockTimeout(errmsg string) string {
	return errmsg + ": cfs-lock 'domain-sdn' error: got lock request timeout"
}
