package pvesim

import (
	"fmt"
	"strings"
)

// nodeOfflineStatus is what pveproxy answers when it cannot forward a
// request to the node it names.
const nodeOfflineStatus = 595

// SetNodeOffline takes a node off the network as the rest of the cluster
// sees it: /cluster/status reports it offline, and the node's own endpoints
// and those of the guests on it at the time of the call answer 595 "No
// route to host". SetNodeOnline undoes it; ClearFaults brings the
// endpoints back but leaves the node offline in the cluster's view.
func (s *Sim) SetNodeOffline(node string) error {
	var paths []string
	err := s.Update(func(c *Cluster) error {
		n := c.Node(node)
		if n == nil {
			return fmt.Errorf("no such node %q", node)
		}
		n.Online = false
		base := "/nodes/" + node
		paths = append(paths, base+"/status", base+"/qemu", base+"/lxc", base+"/storage", base+"/tasks", base+"/replication")
		for _, g := range c.sortedGuests() {
			if g.Node != node {
				continue
			}
			guest := fmt.Sprintf("%s/%s/%d", base, g.Type, g.VMID)
			for _, p := range []string{"/config", "/pending", "/status/current", "/status/start", "/status/stop", "/status/shutdown", "/resize", ""} {
				paths = append(paths, guest+p)
			}
			// The replication jobs of its guests are the node's too.
			for _, id := range c.Replication.sortedJobIDs() {
				if c.Replication.Jobs[id].Guest != g.VMID {
					continue
				}
				job := base + "/replication/" + id
				for _, p := range []string{"", "/status", "/log", "/schedule_now"} {
					paths = append(paths, job+p)
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, p := range paths {
		if err := s.InjectFault(Fault{Path: p, Action: FaultRespond, Status: nodeOfflineStatus, Message: "No route to host"}); err != nil {
			return err
		}
	}
	return nil
}

// SetNodeOnline brings a node back: the cluster sees it online again and
// the faults SetNodeOffline added for it are removed.
func (s *Sim) SetNodeOnline(node string) error {
	err := s.Update(func(c *Cluster) error {
		n := c.Node(node)
		if n == nil {
			return fmt.Errorf("no such node %q", node)
		}
		n.Online = true
		return nil
	})
	if err != nil {
		return err
	}
	prefix := "/nodes/" + node + "/"
	s.hooksMu.Lock()
	defer s.hooksMu.Unlock()
	kept := s.faults[:0]
	for _, f := range s.faults {
		if f.Action == FaultRespond && f.Status == nodeOfflineStatus && strings.HasPrefix(f.Path, prefix) {
			continue
		}
		kept = append(kept, f)
	}
	s.faults = kept
	return nil
}
