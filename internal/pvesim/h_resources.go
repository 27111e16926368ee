package pvesim

import (
	"strconv"
	"strings"
	"time"
)

// clusterResources is GET /cluster/resources: pools, guests, nodes,
// storage instances and SDN zones, in PVE's order, filtered by the caller's
// privileges.
func (s *Sim) clusterResources(c *call) (any, error) {
	typ := c.str("type")
	cl := c.cluster
	out := []map[string]any{}
	pools := map[string]map[string]any{}
	if typ == "" || typ == "pool" {
		for _, id := range cl.sortedPoolIDs() {
			if c.can("/pool/"+id, false, "Pool.Audit") {
				e := map[string]any{"id": "/pool/" + id, "pool": id, "type": "pool"}
				pools[id] = e
				out = append(out, e)
			}
		}
	}
	if typ == "" || typ == "vm" {
		for _, g := range cl.sortedGuests() {
			e := s.guestEntry(cl, g)
			pool := cl.PoolOf(g.VMID)
			if pe := pools[pool]; pe != nil {
				addPoolStats(pe, e)
			}
			// Pool stats count guests the caller may not see.
			if !c.can("/vms/"+itoa(g.VMID), false, "VM.Audit") {
				continue
			}
			if lock := g.Lock(); lock != "" {
				e["lock"] = lock
			}
			if tags, ok := g.Config["tags"]; ok {
				e["tags"] = tags
			}
			if pool != "" && c.can("/pool/"+pool, false, "Pool.Audit") {
				e["pool"] = pool
			}
			if st := cl.haGuestState(g); st != "" {
				e["hastate"] = st
			}
			out = append(out, e)
		}
	}
	if typ == "" || typ == "node" {
		for _, n := range cl.Nodes {
			e := s.nodeEntry(n)
			if !c.can("/nodes/"+n.Name, false, "Sys.Audit") {
				for _, k := range []string{"uptime", "cpu", "mem", "disk", "maxcpu", "maxmem", "maxdisk"} {
					delete(e, k)
				}
			}
			e["cgroup-mode"] = 2
			if st := cl.HA.Manager.NodeStatus[n.Name]; st != "" {
				e["hastate"] = st
			}
			out = append(out, e)
		}
	}
	if typ == "" || typ == "storage" {
		for _, st := range cl.Storages {
			if !c.can("/storage/"+st.ID, false, "Datastore.Audit") {
				continue
			}
			for _, n := range cl.Nodes {
				if !st.Disabled && st.availableOn(n.Name) {
					out = append(out, storageEntry(cl, st, n.Name))
				}
			}
		}
	}
	if typ == "" || typ == "sdn" {
		for _, n := range cl.Nodes {
			if c.can("/sdn/zones/localnetwork", false, "SDN.Audit") {
				out = append(out, map[string]any{
					"id": "sdn/" + n.Name + "/localnetwork", "sdn": "localnetwork",
					"node": n.Name, "type": "sdn", "status": "ok",
				})
			}
		}
	}
	if (typ == "" || typ == "sdn") && s.pve.release == "8.4" {
		out = append(out, sdnZoneResources(c)...)
	}
	return out, nil
}

// addPoolStats adds a running guest's usage to its pool's entry.
func addPoolStats(pool, guest map[string]any) {
	up, _ := guest["uptime"].(int64)
	if up == 0 {
		return
	}
	if old, _ := pool["uptime"].(int64); up > old {
		pool["uptime"] = up
	}
	mem, _ := pool["mem"].(int64)
	maxMem, _ := pool["maxmem"].(int64)
	cpu, _ := pool["cpu"].(float64)
	maxCPU, _ := pool["maxcpu"].(int64)
	gCPU, _ := guest["cpu"].(float64)
	gMaxCPU, _ := guest["maxcpu"].(int64)
	pool["mem"] = mem + guest["mem"].(int64)
	pool["maxmem"] = maxMem + guest["maxmem"].(int64)
	if maxCPU+gMaxCPU > 0 {
		pool["cpu"] = (cpu*float64(maxCPU) + gCPU*float64(gMaxCPU)) / float64(maxCPU+gMaxCPU)
	}
	pool["maxcpu"] = maxCPU + gMaxCPU
}

// storageEntry is extract_storage_stats for one storage instance. An
// offline node reports no usage (its stats expired): status "unknown".
func storageEntry(cl *Cluster, st *Storage, node string) map[string]any {
	e := map[string]any{
		"id": "storage/" + node + "/" + st.ID, "storage": st.ID, "node": node,
		"type": "storage", "plugintype": st.Type, "status": "unknown",
		"shared": boolInt(st.Shared), "content": st.contentString(),
	}
	if n := cl.Node(node); n != nil && n.Online {
		e["status"] = "available"
		e["maxdisk"] = st.Capacity
		e["disk"] = cl.used(st, node)
	}
	return e
}

// guestEntry is extract_vm_stats (pve-manager PVE/API2Tools.pm): id, node
// and type come live from the cluster's vm list; name, status, template,
// uptime and usage from the statistics pvestatd last broadcast for the
// vmid (reportedStats), so they lag by up to one cycle and a guest not yet
// reported has no name and status "unknown" (W11). A guest on an offline
// node has no statistics either: pmxcfs drops stats older than five
// minutes, which SetNodeOffline stands for.
func (s *Sim) guestEntry(cl *Cluster, g *Guest) map[string]any {
	e := map[string]any{
		"id": string(g.Type) + "/" + itoa(g.VMID), "vmid": g.VMID,
		"node": g.Node, "type": string(g.Type), "status": "unknown",
	}
	if n := cl.Node(g.Node); n == nil || !n.Online {
		return e
	}
	stats := s.stats[g.VMID]
	if s.opts.StatsInterval < 0 {
		stats = s.guestStats(cl, g, s.now())
	}
	for k, v := range stats {
		e[k] = v
	}
	return e
}

// guestStats is what pvestatd's update_qemu_status and update_lxc_status
// broadcast for a guest at time at (pve-manager PVE/Service/pvestatd.pm,
// from qemu-server's and pve-container's vmstatus): the name falls back to
// "VM N" or "CTN" when the config has none.
func (s *Sim) guestStats(cl *Cluster, g *Guest, at time.Time) map[string]any {
	e := map[string]any{}
	name := g.Name()
	if name == "" {
		name = g.kind() + " " + itoa(g.VMID)
		if g.Type == LXC {
			name = "CT" + itoa(g.VMID)
		}
	}
	maxMem := configInt(g.Config, "memory", 512) * mib
	var uptime, mem int64
	cpu := 0.0
	if g.Type == QEMU {
		maxMem = cl.conf.memoryMiB(g.Config) * mib
	}
	if g.Status == "running" {
		uptime, mem, cpu = guestUptimeAt(g, at), maxMem/4, 0.02
	}
	e["name"] = name
	e["status"] = g.Status
	e["template"] = boolInt(g.IsTemplate())
	e["uptime"] = uptime
	e["maxcpu"] = guestCPUs(cl, g)
	e["cpu"] = cpu
	e["maxmem"] = maxMem
	e["mem"] = mem
	e["maxdisk"] = rootDiskSize(cl, g)
	e["disk"] = 0
	e["netin"], e["netout"], e["diskread"], e["diskwrite"] = 0, 0, 0, 0
	if g.Type == QEMU {
		e["memhost"] = mem
	}
	return e
}

func guestCPUs(cl *Cluster, g *Guest) int64 {
	if g.Type == LXC {
		if _, ok := g.Config["cores"]; !ok {
			if n := cl.Node(g.Node); n != nil {
				return int64(n.MaxCPU)
			}
		}
		return configInt(g.Config, "cores", 1)
	}
	if v := configInt(g.Config, "vcpus", 0); v > 0 {
		return v
	}
	return configInt(g.Config, "sockets", 1) * configInt(g.Config, "cores", 1)
}

// configInt reads a numeric config value; memory may be a property string
// ("current=2048" or "2048,...").
func configInt(cfg map[string]string, key string, def int64) int64 {
	v, ok := cfg[key]
	if !ok {
		return def
	}
	v, _, _ = strings.Cut(v, ",")
	v = strings.TrimPrefix(v, "current=")
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return def
	}
	return n
}

// rootDiskSize is the size of the guest's root disk: rootfs for
// containers, the first disk of the boot order for VMs (bootdisk_size).
func rootDiskSize(cl *Cluster, g *Guest) int64 {
	if g.Type == QEMU {
		return cl.conf.bootDiskSize(g.Config)
	}
	keys := []string{"rootfs"}
	for _, k := range keys {
		spec, ok := g.Config[k]
		if !ok || strings.Contains(spec, "media=cdrom") {
			continue
		}
		volid, opts, _ := strings.Cut(spec, ",")
		if v := cl.Volume(g.Node, volid); v != nil {
			return v.Size
		}
		for _, o := range strings.Split(opts, ",") {
			if size, ok := strings.CutPrefix(o, "size="); ok {
				return parseSize(size)
			}
		}
	}
	return 0
}

// parseSize reads PVE's disk sizes: bytes, or a number with K, M, G or T.
func parseSize(s string) int64 {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult = kib
	case strings.HasSuffix(s, "M"):
		mult = mib
	case strings.HasSuffix(s, "G"):
		mult = gib
	case strings.HasSuffix(s, "T"):
		mult = tib
	}
	if mult != 1 {
		s = s[:len(s)-1]
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0
	}
	return int64(f * float64(mult))
}
