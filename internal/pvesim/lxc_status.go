package pvesim

import (
	"strings"
	"time"
)

// Container status and power (PVE::API2::LXC::Status, PVE::LXC vmstatus).
// pve-container refuses a start of a running container and a stop,
// shutdown, reboot or suspend of a stopped one synchronously; the rest is
// checked inside the task.

// ctStatus is PVE::LXC::vmstatus for one container.
// pve-container src/PVE/LXC.pm vmstatus
func (s *Sim) ctStatus(cl *Cluster, g *Guest) map[string]any {
	cfg := g.Config
	running := g.Status == "running"
	maxMem := ctMemoryMiB(cfg) * mib
	d := map[string]any{
		"vmid": g.VMID, "type": "lxc", "status": g.Status, "name": ctName(g),
		"cpus": guestCPUs(cl, g), "disk": 0, "maxdisk": cl.conf.ctRootSize(cfg),
		"mem": 0, "swap": 0, "maxmem": maxMem, "maxswap": configInt(cfg, "swap", 0) * mib,
		"uptime": s.guestUptime(g), "cpu": 0, "netin": 0, "netout": 0, "diskread": 0, "diskwrite": 0,
	}
	if tags, ok := cfg["tags"]; ok {
		d["tags"] = tags
	}
	if g.IsTemplate() {
		d["template"] = 1
	}
	if lock := g.Lock(); lock != "" {
		d["lock"] = lock
	}
	if running {
		d["pid"] = guestPID(g)
		d["mem"] = maxMem / 4
		d["cpu"] = 0.01
		d["disk"] = cl.conf.ctRootSize(cfg) / 8
	}
	return d
}

// ctName is vmstatus' name: the hostname without white space, "CT<vmid>"
// without one.
// pve-container src/PVE/LXC.pm vmstatus
func ctName(g *Guest) string {
	name := strings.Join(strings.Fields(g.Config["hostname"]), "")
	if name == "" {
		return "CT" + itoa(g.VMID)
	}
	return name
}

// ctRootSize is the rootfs size= in bytes; 4 GiB without one, as vmstatus
// assumes.
// pve-container src/PVE/LXC.pm vmstatus
func (cs *guestSchema) ctRootSize(cfg map[string]string) int64 {
	if v, ok := cfg["rootfs"]; ok {
		if mp, err := cs.parseMountPoint("rootfs", v); err == nil && mp.sizeBytes() > 0 {
			return mp.sizeBytes()
		}
	}
	return 4 * gib
}

// listLXC is vmlist: the containers whose config lives on the node.
// pve-container src/PVE/API2/LXC.pm vmlist
func (s *Sim) listLXC(c *call) (any, error) {
	node := c.str("node")
	out := []map[string]any{}
	for _, g := range c.cluster.sortedGuests() {
		if g.Type != LXC || g.Node != node || !c.can("/vms/"+itoa(g.VMID), false, "VM.Audit") {
			continue
		}
		out = append(out, s.ctStatus(c.cluster, g))
	}
	return out, nil
}

// pve-container src/PVE/API2/LXC/Status.pm vm_status
func (s *Sim) lxcStatusCurrent(c *call) (any, error) {
	g, err := loadGuest(c, LXC)
	if err != nil {
		return nil, err
	}
	st := s.ctStatus(c.cluster, g)
	st["ha"] = haServiceStatus(c.cluster, g)
	return st, nil
}

// ctRunningOn is check_running on the node the request went to: a missing
// container is simply not running.
// pve-container src/PVE/LXC.pm check_running
func ctRunningOn(c *call) bool {
	g := c.cluster.Guests[c.intParam("vmid", 0)]
	return g != nil && g.Type == LXC && g.Node == c.str("node") && g.Status == "running"
}

// pve-container src/PVE/API2/LXC/Status.pm vm_start
func (s *Sim) startLXC(c *call) (any, error) {
	if err := rootOnly(c, "skiplock"); err != nil {
		return nil, err
	}
	node, vmid, skiplock := c.str("node"), c.intParam("vmid", 0), c.boolParam("skiplock")
	if ctRunningOn(c) {
		return nil, errorf("CT %d already running", vmid)
	}
	cl := c.cluster
	if cl.haManaged(vmid) {
		return s.haStartTask(c, LXC, vmid), nil
	}
	// The worker checks under lock_config as it starts; the container runs
	// once it is done (pve-container src/PVE/API2/LXC/Status.pm vm_start).
	t := s.startWorker(node, "vzstart", itoa(vmid), c.user, workerSpec{
		locks: s.guestTaskLocks("vzstart", itoa(vmid)),
		begin: func(*Task) error {
			g, err := lookupGuest(cl, LXC, node, vmid)
			if err != nil {
				return err
			}
			return ctStartChecks(g, skiplock)
		},
		work: func(*Task) error {
			g, err := lookupGuest(cl, LXC, node, vmid)
			if err != nil {
				return err
			}
			return s.ctStart(cl, g, skiplock)
		},
	})
	return t.UPID, nil
}

// ctStartChecks are the vzstart worker's refusals (pve-container
// src/PVE/API2/LXC/Status.pm vm_start): a template, a config lock other
// than "mounted" (unless skiplock).
func ctStartChecks(g *Guest, skiplock bool) error {
	if g.IsTemplate() {
		return errorf("you can't start a CT if it's a template")
	}
	if !skiplock && g.Lock() != "mounted" {
		return g.CheckLock()
	}
	return nil
}

// ctStart is the vzstart worker: a template never starts, a config lock
// (other than "mounted") refuses, quotas need a privileged container, the
// pending changes are applied and the volumes must be there.
// pve-container src/PVE/API2/LXC/Status.pm vm_start $realcmd and
// src/PVE/LXC.pm vm_start (a missing volume dies in pve-storage
// src/PVE/Storage/Plugin.pm activate_volume).
func (s *Sim) ctStart(cl *Cluster, g *Guest, skiplock bool) error {
	if err := ctStartChecks(g, skiplock); err != nil {
		return err
	}
	if g.Status == "running" {
		return errorf("CT %d already running", g.VMID)
	}
	if g.Config["unprivileged"] == "1" {
		for _, k := range mountKeys(g.Config) {
			if mp, err := cl.conf.parseMountPoint(k, g.Config[k]); err == nil && mp["quota"] == "1" {
				return errorf("Quotas are not supported by unprivileged containers.")
			}
		}
	}
	if len(g.Pending) > 0 {
		job := &ctJob{s: s, cl: cl, g: g}
		job.applyPending(nil, map[string]string{})
		job.commit()
		cl.conf.writeCTConfig(g)
	}
	for _, k := range mountKeys(g.Config) {
		mp, err := cl.conf.parseMountPoint(k, g.Config[k])
		if err != nil || !mp.isVolume() {
			continue
		}
		if cl.Volume(g.Node, mp.volume()) == nil {
			return errorf("volume '%s' does not exist", mp.volume())
		}
	}
	if err := checkCTStartVnets(cl, g); err != nil {
		return err
	}
	g.Status, g.Started, g.Checkpointed = "running", s.now(), false
	return nil
}

// pve-container src/PVE/API2/LXC/Status.pm vm_stop
func (s *Sim) stopLXC(c *call) (any, error) {
	if err := rootOnly(c, "skiplock"); err != nil {
		return nil, err
	}
	node, vmid, skiplock := c.str("node"), c.intParam("vmid", 0), c.boolParam("skiplock")
	if !ctRunningOn(c) {
		return nil, errorf("CT %d not running", vmid)
	}
	if upid, handled, err := s.haStopRequest(c, LXC, false); handled {
		return upid, err
	}
	cl := c.cluster
	// The worker loads the config and checks its lock under lock_config as
	// it starts; vm_stop of a container that is no longer running returns
	// quietly (pve-container src/PVE/API2/LXC/Status.pm vm_stop $realcmd,
	// src/PVE/LXC.pm vm_stop: ECONNREFUSED on the command socket).
	t := s.startWorker(node, "vzstop", itoa(vmid), c.user, workerSpec{
		locks: s.guestTaskLocks("vzstop", itoa(vmid)),
		begin: func(*Task) error {
			g, err := lookupGuest(cl, LXC, node, vmid)
			if err != nil {
				return err
			}
			if !skiplock && g.Lock() != "mounted" {
				return g.CheckLock()
			}
			return nil
		},
		work: func(*Task) error {
			if g, err := lookupGuest(cl, LXC, node, vmid); err == nil {
				ctStop(g)
			}
			return nil
		},
	})
	return t.UPID, nil
}

// ctStop stops a container. Unlike a VM, pending changes wait for the
// next start.
func ctStop(g *Guest) {
	g.Status, g.Started = "stopped", time.Time{}
}

// pve-container src/PVE/API2/LXC/Status.pm vm_shutdown
func (s *Sim) shutdownLXC(c *call) (any, error) {
	node, vmid := c.str("node"), c.intParam("vmid", 0)
	if !ctRunningOn(c) {
		return nil, errorf("CT %d not running", vmid)
	}
	if upid, handled, err := s.haStopRequest(c, LXC, true); handled {
		return upid, err
	}
	cl := c.cluster
	t := s.startWorker(node, "vzshutdown", itoa(vmid), c.user, workerSpec{
		locks: s.guestTaskLocks("vzshutdown", itoa(vmid)),
		begin: ctWorkerCheckLock(cl, node, vmid),
		work: func(*Task) error {
			if g, err := lookupGuest(cl, LXC, node, vmid); err == nil {
				ctStop(g)
			}
			return nil
		},
	})
	return t.UPID, nil
}

// ctWorkerCheckLock is the start of the vzshutdown and vzsuspend workers:
// under lock_config they load the config (it must be on this node) and
// refuse any config lock.
// pve-container src/PVE/API2/LXC/Status.pm vm_shutdown and vm_suspend
// $realcmd: load_config, then pve-guest-common src/PVE/AbstractConfig.pm
// check_lock.
func ctWorkerCheckLock(cl *Cluster, node string, vmid int) func(*Task) error {
	return func(*Task) error {
		g, err := lookupGuest(cl, LXC, node, vmid)
		if err != nil {
			return err
		}
		return g.CheckLock()
	}
}

// pve-container src/PVE/API2/LXC/Status.pm vm_reboot
func (s *Sim) rebootLXC(c *call) (any, error) {
	node, vmid := c.str("node"), c.intParam("vmid", 0)
	if !ctRunningOn(c) {
		return nil, errorf("VM %d not running", vmid) // sic: pve-container says VM here
	}
	cl := c.cluster
	// vm_reboot takes lock_config and does nothing when the container no
	// longer runs by then; it checks no config lock (pve-container
	// src/PVE/LXC.pm vm_reboot).
	running := false
	t := s.startWorker(node, "vzreboot", itoa(vmid), c.user, workerSpec{
		locks: s.guestTaskLocks("vzreboot", itoa(vmid)),
		begin: func(*Task) error {
			g := cl.Guests[vmid]
			running = g != nil && g.Type == LXC && g.Node == node && g.Status == "running"
			return nil
		},
		work: func(*Task) error {
			g := cl.Guests[vmid]
			if !running || g == nil || g.Type != LXC || g.Node != node {
				return nil
			}
			// vm_reboot: shut down, then start again, which applies
			// pending changes.
			ctStop(g)
			return s.ctStart(cl, g, true)
		},
	})
	return t.UPID, nil
}

// pve-container src/PVE/API2/LXC/Status.pm vm_suspend
func (s *Sim) suspendLXC(c *call) (any, error) {
	node, vmid := c.str("node"), c.intParam("vmid", 0)
	if !ctRunningOn(c) {
		return nil, errorf("CT %d not running", vmid)
	}
	cl := c.cluster
	t := s.startWorker(node, "vzsuspend", itoa(vmid), c.user, workerSpec{
		locks: s.guestTaskLocks("vzsuspend", itoa(vmid)),
		begin: ctWorkerCheckLock(cl, node, vmid),
		work: func(*Task) error {
			g, err := lookupGuest(cl, LXC, node, vmid)
			if err != nil {
				return err
			}
			// lxc-checkpoint -s dumps the state and stops the container.
			ctStop(g)
			g.Checkpointed = true
			return nil
		},
	})
	return t.UPID, nil
}

// pve-container src/PVE/API2/LXC/Status.pm vm_resume: run_command of
// lxc-checkpoint -r (pve-common src/PVE/Tools.pm run_command words the
// failure). Its worker takes no lock_config and checks no config lock
// (noLockTasks).
func (s *Sim) resumeLXC(c *call) (any, error) {
	node, vmid := c.str("node"), c.intParam("vmid", 0)
	if ctRunningOn(c) {
		return nil, errorf("CT %d already running", vmid)
	}
	cl := c.cluster
	t := s.startTask(node, "vzresume", itoa(vmid), c.user, func(*Task) error {
		g := cl.Guests[vmid]
		if g == nil || g.Type != LXC || g.Node != node || !g.Checkpointed {
			return errorf("command 'lxc-checkpoint -n %d -r --foreground -D /var/lib/vz/dump' failed: exit code 1", vmid) // inferred: lxc-checkpoint exits 1 without a checkpoint (LXC)
		}
		g.Status, g.Started, g.Checkpointed = "running", s.now(), false
		return nil
	})
	return t.UPID, nil
}
