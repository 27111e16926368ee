package pvesim

import (
	"net/http"
	"strconv"
)

// answeringNode is the node pveproxy runs on: the first one. Methods that
// PVE answers locally ("local" in cluster status, storage members of a
// pool) use it.
func (c *Cluster) answeringNode() *Node { return c.Nodes[0] }

func (s *Sim) registerClusterRoutes() {
	s.handle(http.MethodGet, "/version", route{handle: func(*call) (any, error) {
		return map[string]any{"version": s.pve.version, "release": s.pve.release, "repoid": s.pve.repoid}, nil
	}})
	s.handle(http.MethodGet, "/cluster/resources", route{handle: s.clusterResources})
	s.handle(http.MethodGet, "/cluster/nextid", route{handle: nextID})
	s.handle(http.MethodGet, "/cluster/status", route{
		perm:   permission{path: "/", privs: []string{"Sys.Audit"}},
		handle: clusterStatus,
	})
}

func (s *Sim) registerNodeRoutes() {
	s.handle(http.MethodGet, "/nodes", route{handle: s.listNodes})
	s.handle(http.MethodGet, "/nodes/{node}", route{handle: func(*call) (any, error) {
		return nodeIndex(), nil
	}})
	s.handle(http.MethodGet, "/nodes/{node}/status", route{
		perm:   permission{path: "/nodes/{node}", privs: []string{"Sys.Audit"}},
		handle: s.nodeStatus,
	})
}

// nextID is GET /cluster/nextid. PVE answers the id as a JSON string: it
// has been used as a hash key, which makes Perl's JSON encoder quote it
// (W5: decode leniently).
// pve-manager PVE/API2/Cluster.pm nextid
// pve-manager PVE/API2/Cluster.pm nextid
func nextID(c *call) (any, error) {
	if v, ok := c.param("vmid"); ok {
		id, _ := strconv.Atoi(v)
		if _, taken := c.cluster.Guests[id]; taken {
			return nil, paramError(map[string]string{"vmid": "VM " + v + " already exists"})
		}
		return v, nil
	}
	const lower, upper = 100, 1000 * 1000
	for id := lower; id < upper; id++ {
		if _, taken := c.cluster.Guests[id]; !taken {
			return strconv.Itoa(id), nil
		}
	}
	return nil, errorf("unable to get any free VMID in range [%d, %d]", lower, upper)
}

// pve-manager PVE/API2/Cluster.pm get_status (path status)
func clusterStatus(c *call) (any, error) {
	cl := c.cluster
	out := []map[string]any{{
		"type": "cluster", "id": "cluster", "name": cl.Name,
		"nodes": len(cl.Nodes), "quorate": 1, "version": len(cl.Nodes),
	}}
	local := cl.answeringNode().Name
	for _, n := range cl.Nodes {
		out = append(out, map[string]any{
			"type": "node", "id": "node/" + n.Name, "name": n.Name,
			"nodeid": n.ID, "ip": n.IP, "online": boolInt(n.Online),
			"local": boolInt(n.Name == local), "level": "",
		})
	}
	return out, nil
}

// pve-manager PVE/API2/Nodes.pm index
func (s *Sim) listNodes(c *call) (any, error) {
	out := []map[string]any{}
	for _, n := range c.cluster.Nodes {
		e := s.nodeEntry(n)
		e["ssl_fingerprint"] = nodeFingerprint(n)
		out = append(out, e)
	}
	return out, nil
}

// nodeEntry is extract_node_stats.
func (s *Sim) nodeEntry(n *Node) map[string]any {
	e := map[string]any{
		"id": "node/" + n.Name, "node": n.Name, "type": "node", "status": "offline",
		"level": "", "maxcpu": n.MaxCPU, "maxmem": n.MaxMem, "maxdisk": n.RootSize,
	}
	if n.Online {
		e["status"] = "online"
		e["uptime"] = s.uptime(n)
		e["cpu"] = n.CPU
		e["mem"] = n.MemUsed
		e["disk"] = n.RootUsed
	}
	return e
}

func (s *Sim) uptime(n *Node) int64 {
	return int64(s.now().Sub(n.BootTime).Seconds())
}

// nodeFingerprint is a stable, made-up SHA-256 fingerprint per node.
func nodeFingerprint(n *Node) string {
	b := make([]byte, 0, 95)
	for i := 0; i < 32; i++ {
		if i > 0 {
			b = append(b, ':')
		}
		v := byte(n.ID*37 + i*11)
		b = append(b, "0123456789ABCDEF"[v>>4], "0123456789ABCDEF"[v&15])
	}
	return string(b)
}

func nodeIndex() []map[string]string {
	names := []string{
		"apt", "capabilities", "ceph", "certificates", "config", "disks", "dns", "execute",
		"firewall", "hardware", "hosts", "journal", "lxc", "migrateall", "netstat", "network",
		"qemu", "query-url-metadata", "replication", "report", "rrd", "rrddata", "scan", "sdn",
		"services", "spiceshell", "startall", "status", "stopall", "storage", "subscription",
		"syslog", "tasks", "termproxy", "time", "version", "vncshell", "vzdump", "wakeonlan",
	}
	out := make([]map[string]string, 0, len(names))
	for _, n := range names {
		out = append(out, map[string]string{"name": n})
	}
	return out
}

// pve-manager PVE/API2/Nodes.pm status
func (s *Sim) nodeStatus(c *call) (any, error) {
	n := c.cluster.Node(c.str("node"))
	return map[string]any{
		"uptime": s.uptime(n),
		"cpu":    n.CPU,
		"wait":   0.0004,
		"idle":   0,
		"cpuinfo": map[string]any{
			"model": "AMD EPYC 7302P 16-Core Processor", "sockets": 1, "cores": n.MaxCPU / 2,
			"cpus": n.MaxCPU, "mhz": "3000.000", "hvm": "1", "user_hz": 100, "flags": "fpu vme de pse",
		},
		"memory": map[string]any{
			"total": n.MaxMem, "used": n.MemUsed, "free": n.MaxMem - n.MemUsed,
			"available": n.MaxMem - n.MemUsed,
		},
		"swap": map[string]any{"total": 8 * gib, "used": 0, "free": 8 * gib},
		"rootfs": map[string]any{
			"total": n.RootSize, "used": n.RootUsed, "free": n.RootSize - n.RootUsed,
			"avail": n.RootSize - n.RootUsed,
		},
		"ksm":        map[string]any{"shared": 0},
		"loadavg":    []string{"0.12", "0.09", "0.05"},
		"kversion":   "Linux 6.17.2-1-pve #1 SMP PREEMPT_DYNAMIC PMX 6.17.2-1",
		"pveversion": "pve-manager/" + c.sim.pve.version + "/" + c.sim.pve.repoid,
		"current-kernel": map[string]any{
			"sysname": "Linux", "release": "6.17.2-1-pve", "machine": "x86_64",
			"version": "#1 SMP PREEMPT_DYNAMIC PMX 6.17.2-1",
		},
		"boot-info": map[string]any{"mode": "efi", "secureboot": 0},
	}, nil
}

// boolInt is how PVE writes booleans: 0 or 1 (W5).
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
