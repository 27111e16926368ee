package pvesim

import "fmt"

// nodeOfflineStatus is what pveproxy answers when it cannot forward a
// request to the node it names.
const nodeOfflineStatus = 595

// SetNodeOffline takes a node off the network as the rest of the cluster
// sees it: /cluster/status reports it offline, and the node's own endpoints
// and those of the guests on it at the time of the call answer 595 "No
// route to host". ClearFaults brings the endpoints back.
func (s *Sim) SetNodeOffline(node string) error {
	var paths []string
	err := s.Update(func(c *Cluster) error {
		n := c.Node(node)
		if n == nil {
			return fmt.Errorf("no such node %q", node)
		}
		n.Online = false
		base := "/nodes/" + node
		paths = append(paths, base+"/status", base+"/qemu", base+"/lxc", base+"/storage", base+"/tasks")
		for _, g := range c.sortedGuests() {
			if g.Node != node {
				continue
			}
			guest := fmt.Sprintf("%s/%s/%d", base, g.Type, g.VMID)
			for _, p := range []string{"/config", "/pending", "/status/current", "/status/start", "/status/stop", "/status/shutdown", "/resize", ""} {
				paths = append(paths, guest+p)
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
