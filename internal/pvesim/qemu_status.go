package pvesim

import (
	"sort"
	"strings"
	"time"
)

// Guest status and power: vmstatus, status/current and the status/* power
// actions. Which checks are synchronous and which fail the task follows
// Qemu.pm: start/stop/shutdown check inside the task, reboot/suspend/
// resume/reset refuse a stopped VM synchronously.

// lookupQemu is load_config for a vmid on a node, for task code: the
// missing config is W12's text.
// pve-guest-common src/PVE/AbstractConfig.pm load_config
func lookupQemu(cl *Cluster, node string, vmid int) (*Guest, error) {
	return lookupGuest(cl, QEMU, node, vmid)
}

// guestPID is a stable, made-up PID for a running guest.
func guestPID(g *Guest) int { return 2000 + g.VMID%60000 }

func (s *Sim) guestUptime(g *Guest) int64 {
	return guestUptimeAt(g, s.now())
}

// guestUptimeAt is a running guest's uptime at time at.
func guestUptimeAt(g *Guest, at time.Time) int64 {
	if g.Status != "running" {
		return 0
	}
	if g.Started.IsZero() {
		return 3600
	}
	return int64(at.Sub(g.Started) / time.Second)
}

// vmStatus is qemu-server's vmstatus for one guest; full adds what PVE
// asks QMP for.
func (s *Sim) vmStatus(cl *Cluster, g *Guest, full bool) map[string]any {
	cfg := g.Config
	running := g.Status == "running"
	maxMem := cl.conf.memoryMiB(cfg) * mib
	d := map[string]any{
		"vmid": g.VMID, "status": g.Status, "disk": 0, "maxdisk": cl.conf.bootDiskSize(cfg),
		"cpus": guestCPUs(cl, g), "maxmem": maxMem,
		"uptime": s.guestUptime(g), "cpu": 0, "mem": 0, "memhost": 0, "netin": 0, "netout": 0,
	}
	if name := cfg["name"]; name != "" {
		d["name"] = name
	} else {
		d["name"] = "VM " + itoa(g.VMID)
	}
	if b := configInt(cfg, "balloon", 0); b > 0 {
		d["balloon_min"] = b * mib
		d["shares"] = configInt(cfg, "shares", 1000)
	}
	if running {
		d["pid"] = guestPID(g)
		d["mem"] = maxMem / 4
		d["memhost"] = maxMem / 4
		d["cpu"] = 0.02
		runningPressure(d)
	}
	if g.IsTemplate() {
		d["template"] = 1
	}
	for k := range cfg {
		if strings.HasPrefix(k, "serial") {
			d["serial"] = 1
			break
		}
	}
	if lock := g.Lock(); lock != "" {
		d["lock"] = lock
	}
	if tags, ok := cfg["tags"]; ok {
		d["tags"] = tags
	}
	if full {
		d["qmpstatus"] = g.Status
		if running {
			d["qmpstatus"] = "running"
			if g.Paused {
				d["qmpstatus"] = "paused"
			}
			d["running-machine"] = runningMachine
			d["running-qemu"] = qemuVersion
			d["diskread"], d["diskwrite"] = 0, 0
			d["proxmox-support"] = map[string]any{}
			runningFullDetails(d, g)
		}
	}
	return d
}

// listQemu is vmlist: the VMs whose config lives on the node.
// qemu-server src/PVE/API2/Qemu.pm vmlist
func (s *Sim) listQemu(c *call) (any, error) {
	node := c.str("node")
	out := []map[string]any{}
	for _, g := range c.cluster.sortedGuests() {
		if g.Type != QEMU || g.Node != node || !c.can("/vms/"+itoa(g.VMID), false, "VM.Audit") {
			continue
		}
		out = append(out, s.vmStatus(c.cluster, g, c.boolParam("full")))
	}
	return out, nil
}

// qemuStatusCurrent is vm_status (W18: a paused VM is status running,
// qmpstatus paused).
// qemu-server src/PVE/API2/Qemu.pm vm_status
func (s *Sim) qemuStatusCurrent(c *call) (any, error) {
	g, err := loadQemu(c)
	if err != nil {
		return nil, err
	}
	st := s.vmStatus(c.cluster, g, true)
	st["ha"] = haServiceStatus(c.cluster, g)
	c.cluster.conf.statusDisplayFields(st, g.Config)
	if agent, ok := g.Config["agent"]; ok {
		if props, msg := c.cluster.conf.qemu.PropertyString("agent", agent); msg == "" && props["enabled"] == "1" {
			st["agent"] = 1
		}
	}
	return st, nil
}

// rootOnly is the "Only root may use this option." check of parameters
// only root@pam may set (a false boolean counts as unset, as in Perl).
// qemu-server src/PVE/API2/Qemu.pm (raise_param_exc "Only root may use this
// option." in vm_start, vm_stop, vm_reset, vm_suspend, vm_resume, resize_vm,
// destroy_vm, migrate_vm).
func rootOnly(c *call, names ...string) error {
	if c.user.String() == "root@pam" {
		return nil
	}
	for _, n := range names {
		if v, ok := c.param(n); ok && v != "" && v != "0" {
			return paramError(map[string]string{n: "Only root may use this option."})
		}
	}
	return nil
}

// qemu-server src/PVE/API2/Qemu.pm vm_start
func (s *Sim) startQemu(c *call) (any, error) {
	if err := rootOnly(c, "stateuri", "skiplock", "migratedfrom", "migration_type", "migration_network",
		"targetstorage", "force-cpu", "with-conntrack-state", "nets-host-mtu"); err != nil {
		return nil, err
	}
	if _, ok := c.param("targetstorage"); ok && c.str("migratedfrom") == "" {
		return nil, paramError(map[string]string{"targetstorage": "targetstorage can only by used with migratedfrom."})
	}
	node, vmid, skiplock := c.str("node"), c.intParam("vmid", 0), c.boolParam("skiplock")
	cl := c.cluster
	if cl.haManaged(vmid) && c.str("stateuri") == "" {
		return s.haStartTask(c, QEMU, vmid), nil
	}
	// vm_start's checks run under lock_config at the start of the worker;
	// the guest runs once the worker is done.
	t := s.startWorker(node, "qmstart", itoa(vmid), c.user, workerSpec{
		locks: s.guestTaskLocks("qmstart", itoa(vmid)),
		begin: func(*Task) error {
			g, err := lookupQemu(cl, node, vmid)
			if err != nil {
				return err
			}
			return vmStartChecks(g, skiplock)
		},
		work: func(t *Task) error {
			g, err := lookupQemu(cl, node, vmid)
			if err != nil {
				return err
			}
			return s.vmStart(cl, g, t, skiplock)
		},
	})
	return t.UPID, nil
}

// vmStartChecks are vm_start's refusals (qemu-server src/PVE/QemuServer.pm
// vm_start): a template, a locked guest (unless skiplock or a hibernation's
// "suspended" lock), a running guest.
func vmStartChecks(g *Guest, skiplock bool) error {
	if g.IsTemplate() {
		return errorf("you can't start a vm if it's a template")
	}
	if !skiplock && g.Lock() != "suspended" {
		if err := g.CheckLock(); err != nil {
			return err
		}
	}
	if g.Status == "running" {
		return errorf("VM %d already running", g.VMID)
	}
	return nil
}

// vmStart is vm_start: it refuses a template, a locked or running guest,
// applies pending changes, checks the volumes and resumes a hibernated
// guest from its state volume.
func (s *Sim) vmStart(cl *Cluster, g *Guest, t *Task, skiplock bool) error {
	if err := vmStartChecks(g, skiplock); err != nil {
		return err
	}
	suspended := g.Lock() == "suspended"
	if len(g.Pending) > 0 {
		s.applyPending(cl, g, nil)
	}
	if suspended {
		t.Log("Resuming suspended VM")
	}
	if err := checkStartVolumes(cl, g); err != nil {
		return err
	}
	if err := checkStartMappings(cl, g); err != nil {
		return err
	}
	if err := checkStartVnets(cl, g, t); err != nil {
		return err
	}
	if g.Config["bios"] == "ovmf" {
		s.checkEFIVars(t, g)
	}
	g.Status, g.Paused, g.Started = "running", false, s.now()
	if suspended {
		if state := g.Config["vmstate"]; state != "" {
			_ = freeVolume(cl, g.Node, state)
		}
		for _, k := range []string{"lock", "vmstate", "running-nets-host-mtu", "runningmachine", "runningcpu"} {
			delete(g.Config, k)
		}
		t.Log("Resumed VM, removing state")
	}
	return nil
}

// checkStartVolumes is what activating the volumes checks: the storage
// offers the volume's content type (W27: a cloud-init drive on a storage
// without images fails here), is usable on the node and holds the volume.
// qemu-server src/PVE/QemuServer.pm check_volume_storage_type; a missing volume
// dies in pve-storage src/PVE/Storage/Plugin.pm (activate_volume).
func checkStartVolumes(cl *Cluster, g *Guest) error {
	for _, key := range guestDrives(g.Config) {
		d, ok := cl.conf.parseDrive(key, g.Config[key])
		if !ok || !strings.Contains(d.file(), ":") {
			continue
		}
		st, info, err := parseVolume(cl, d.file())
		if err != nil {
			return err
		}
		if !st.hasContent(info.vtype) {
			return errorf("storage '%s' does not support content-type '%s'", st.ID, info.vtype)
		}
		if _, err := usableStorage(cl, st.ID, g.Node); err != nil {
			return err
		}
		if cl.Volume(g.Node, d.file()) == nil {
			return errorf("volume '%s' does not exist", d.file())
		}
	}
	return nil
}

// vmStopChecks are _do_vm_stop's checks, which vm_stop runs under
// lock_config at the start of its worker: check_running's config on the
// node (assert_config_exists_on_node), then, for a running guest, the lock
// unless skiplock. It reports whether the guest runs, so is to be stopped.
// qemu-server src/PVE/QemuServer.pm vm_stop, _do_vm_stop and check_running;
// src/PVE/QemuConfig.pm assert_config_exists_on_node.
func vmStopChecks(cl *Cluster, node string, vmid int, skiplock bool) (bool, error) {
	g := cl.Guests[vmid]
	if g == nil || g.Type != QEMU || g.Node != node {
		return false, errorf("unable to find configuration file for VM %d on node '%s'", vmid, node)
	}
	if g.Status != "running" {
		return false, nil
	}
	if !skiplock {
		if err := g.CheckLock(); err != nil {
			return false, err
		}
	}
	return true, nil
}

// vmStop is _do_vm_stop's effect: the guest is down and its pending
// changes apply (vm_stop_cleanup).
// qemu-server src/PVE/QemuServer.pm _do_vm_stop, vm_stop_cleanup
func (s *Sim) vmStop(cl *Cluster, g *Guest) {
	if g.Status != "running" {
		return
	}
	g.Status, g.Paused, g.Started = "stopped", false, time.Time{}
	s.applyPending(cl, g, nil)
}

// qemu-server src/PVE/API2/Qemu.pm vm_stop
func (s *Sim) stopQemu(c *call) (any, error) {
	if err := rootOnly(c, "skiplock", "keepActive", "migratedfrom"); err != nil {
		return nil, err
	}
	if c.str("migratedfrom") == "" {
		if upid, handled, err := s.haStopRequest(c, QEMU, false); handled {
			return upid, err
		}
	}
	return s.stopTask(c, "qmstop"), nil
}

// stopTask runs vm_stop in a task: its checks (vmStopChecks) run at the
// worker's start under lock_config, so a stop queued behind another worker
// sees what that worker left; a guest that is not running is left alone
// and the task succeeds.
// qemu-server src/PVE/API2/Qemu.pm vm_stop and vm_shutdown (the worker calls
// src/PVE/QemuServer.pm vm_stop).
func (s *Sim) stopTask(c *call, typ string) string {
	node, vmid, skiplock := c.str("node"), c.intParam("vmid", 0), c.boolParam("skiplock")
	cl := c.cluster
	var stopping bool
	t := s.startQemuWorker(node, typ, vmid, c.user, func(*Task) error {
		var err error
		stopping, err = vmStopChecks(cl, node, vmid, skiplock)
		return err
	}, func(*Task) error {
		if !stopping {
			return nil
		}
		g, err := lookupQemu(cl, node, vmid)
		if err != nil {
			return err
		}
		s.vmStop(cl, g)
		return nil
	})
	return t.UPID
}

// pausedOn is vm_is_paused($vmid, 1): false for a guest that is not on the
// node.
// qemu-server src/PVE/QemuServer.pm vm_is_paused
func pausedOn(c *call) bool {
	g := c.cluster.Guests[c.intParam("vmid", 0)]
	return g != nil && g.Type == QEMU && g.Node == c.str("node") && g.Status == "running" && g.Paused
}

// qemu-server src/PVE/API2/Qemu.pm vm_shutdown
func (s *Sim) shutdownQemu(c *call) (any, error) {
	if err := rootOnly(c, "skiplock", "keepActive"); err != nil {
		return nil, err
	}
	if pausedOn(c) && !c.boolParam("forceStop") {
		return nil, errorf("VM is paused - cannot shutdown")
	}
	if upid, handled, err := s.haStopRequest(c, QEMU, true); handled {
		return upid, err
	}
	return s.stopTask(c, "qmshutdown"), nil
}

// runningOn is check_running: the config must be on the node.
// qemu-server src/PVE/QemuServer.pm check_running (the API's "VM $vmid not
// running" is qemu-server src/PVE/API2/Qemu.pm vm_reset, vm_reboot, vm_suspend,
// vm_resume).
func runningOn(c *call) (*Guest, error) {
	g, err := assertQemuOnNode(c)
	if err != nil {
		return nil, err
	}
	if g.Status != "running" {
		return g, errorf("VM %d not running", g.VMID)
	}
	return g, nil
}

// qemu-server src/PVE/API2/Qemu.pm vm_reboot
func (s *Sim) rebootQemu(c *call) (any, error) {
	if pausedOn(c) {
		return nil, errorf("VM is paused - cannot shutdown")
	}
	if _, err := runningOn(c); err != nil {
		return nil, err
	}
	node, vmid := c.str("node"), c.intParam("vmid", 0)
	cl := c.cluster
	// vm_reboot's worker, under lock_config: check_running (a guest that
	// no longer runs is left alone), then _do_vm_stop's checks without
	// skiplock; the guest goes down (pending changes apply) and qmeventd
	// starts it again.
	// qemu-server src/PVE/QemuServer.pm vm_reboot, _do_vm_stop
	var rebooting bool
	t := s.startQemuWorker(node, "qmreboot", vmid, c.user, func(*Task) error {
		var err error
		rebooting, err = vmStopChecks(cl, node, vmid, false)
		return err
	}, func(*Task) error {
		g, err := lookupQemu(cl, node, vmid)
		if err != nil || !rebooting {
			return err
		}
		s.vmStop(cl, g)
		g.Status, g.Started = "running", s.now()
		return nil
	})
	return t.UPID, nil
}

// qemu-server src/PVE/API2/Qemu.pm vm_reset
func (s *Sim) resetQemu(c *call) (any, error) {
	if err := rootOnly(c, "skiplock"); err != nil {
		return nil, err
	}
	if _, err := runningOn(c); err != nil {
		return nil, err
	}
	node, vmid, skiplock := c.str("node"), c.intParam("vmid", 0), c.boolParam("skiplock")
	cl := c.cluster
	// vm_reset's worker, under lock_config: load_config, the lock unless
	// skiplock, then QMP's system_reset, which fails on a guest that no
	// longer runs.
	// qemu-server src/PVE/QemuServer.pm vm_reset; the text is
	// src/PVE/QemuServer/Monitor.pm qmp_cmd ("$peer->{name} not running").
	t := s.startQemuWorker(node, "qmreset", vmid, c.user, func(*Task) error {
		g, err := lookupQemu(cl, node, vmid)
		if err != nil {
			return err
		}
		if !skiplock {
			if err := g.CheckLock(); err != nil {
				return err
			}
		}
		if g.Status != "running" {
			return errorf("VM %d not running", vmid)
		}
		return nil
	}, func(*Task) error { return nil })
	return t.UPID, nil
}

// qemu-server src/PVE/API2/Qemu.pm vm_suspend and
// src/PVE/QemuServer/RunState.pm vm_suspend.
func (s *Sim) suspendQemu(c *call) (any, error) {
	if err := rootOnly(c, "skiplock"); err != nil {
		return nil, err
	}
	g, err := runningOn(c)
	if err != nil {
		return nil, err
	}
	toDisk := c.boolParam("todisk")
	stateStorage := c.str("statestorage")
	if toDisk {
		if err := c.check("/vms/"+itoa(g.VMID), false, "VM.Config.Disk"); err != nil {
			return nil, err
		}
		for k := range g.Config {
			if strings.HasPrefix(k, "hostpci") {
				return nil, errorf("cannot suspend VM to disk due to passed-through PCI device(s), which lack the possibility to save/restore their internal state")
			}
		}
		if stateStorage == "" {
			stateStorage = vmstateStorage(c.cluster, g)
		}
		if err := c.check("/storage/"+stateStorage, false, "Datastore.AllocateSpace"); err != nil {
			return nil, err
		}
	}
	typ := "qmpause"
	if toDisk {
		typ = "qmsuspend"
	}
	node, vmid, skiplock := c.str("node"), g.VMID, c.boolParam("skiplock")
	cl := c.cluster
	t := s.startQemuWorker(node, typ, vmid, c.user, func(*Task) error {
		return vmSuspendChecks(cl, node, vmid, skiplock, toDisk)
	}, func(t *Task) error {
		g, err := lookupQemu(cl, node, vmid)
		if err != nil {
			return err
		}
		if !toDisk {
			g.Paused = true
			return nil
		}
		return s.hibernate(cl, g, t, stateStorage)
	})
	return t.UPID, nil
}

// vmSuspendChecks are vm_suspend's checks under lock_config at the start
// of the worker: load_config, the lock unless skiplock or a backup holds
// it, no hibernation during a backup nor of a guest whose state cannot be
// saved, then QMP on a guest that must still run. A hibernation sets the "suspending" lock before it talks to QMP and
// leaves it behind when that fails.
// qemu-server src/PVE/QemuServer/RunState.pm vm_suspend; the text of a
// guest that is not running is src/PVE/QemuServer/Monitor.pm qmp_cmd.
func vmSuspendChecks(cl *Cluster, node string, vmid int, skiplock, toDisk bool) error {
	g, err := lookupQemu(cl, node, vmid)
	if err != nil {
		return err
	}
	backingUp := g.Lock() == "backup"
	if !skiplock && !backingUp {
		if err := g.CheckLock(); err != nil {
			return err
		}
	}
	if backingUp && toDisk {
		return errorf("cannot suspend to disk during backup")
	}
	// qemu-server src/PVE/QemuMigrate/Helpers.pm check_non_migratable_resources
	if err := checkNonMigratableResources(g.Config, toDisk); err != nil {
		return err
	}
	if g.Status != "running" {
		if toDisk {
			g.Config["lock"] = "suspending"
			cl.conf.writeConfig(g)
		}
		return errorf("VM %d not running", vmid)
	}
	return nil
}

// hibernate is vm_suspend with todisk: the RAM goes to a state volume, the
// guest stops and keeps "lock: suspended" until the next start (W10: not a
// task lock).
// qemu-server src/PVE/QemuServer/RunState.pm vm_suspend (todisk); the state
// volume's name and size are src/PVE/QemuConfig.pm __snapshot_save_vmstate.
func (s *Sim) hibernate(cl *Cluster, g *Guest, t *Task, storage string) error {
	st := cl.Storage(storage)
	if st == nil {
		return errorf("storage '%s' does not exist", storage)
	}
	name := "vm-" + itoa(g.VMID) + "-state-suspend-" + s.now().Format("2006-01-02")
	format := "raw"
	if st.fileStorage() {
		name += ".raw"
	}
	size := cl.conf.memoryMiB(g.Config)*2*mib + 500*mib
	v, err := s.allocVolume(cl, allocation{storage: storage, node: g.Node, vmid: g.VMID, format: format, name: name, size: size})
	if err != nil {
		return err
	}
	t.Log("saving VM state and RAM using storage '%s'", storage)
	g.Config["lock"] = "suspended"
	g.Config["vmstate"] = v.VolID
	g.Config["runningmachine"] = runningMachine
	g.Status, g.Paused, g.Started = "stopped", false, time.Time{}
	return nil
}

// vmstateStorage is find_vmstate_storage: vmstatestorage, else the first
// shared storage a disk uses, else the first storage a disk uses.
// qemu-server src/PVE/QemuConfig.pm find_vmstate_storage
func vmstateStorage(cl *Cluster, g *Guest) string {
	if st := g.Config["vmstatestorage"]; st != "" {
		return st
	}
	// A file-based storage (one with a path) is preferred within each
	// group: the last one wins, else the first storage seen.
	var shared, local string
	for _, key := range guestDrives(g.Config) {
		d, ok := cl.conf.parseDrive(key, g.Config[key])
		if !ok || d.isCDROM() {
			continue
		}
		storeID, _, found := strings.Cut(d.file(), ":")
		if !found {
			continue
		}
		st := cl.Storage(storeID)
		if st == nil {
			continue
		}
		dst := &local
		if st.Shared {
			dst = &shared
		}
		if *dst == "" || st.Config["path"] != "" {
			*dst = storeID
		}
	}
	switch {
	case shared != "":
		return shared
	case local != "":
		return local
	}
	return "local"
}

// qemu-server src/PVE/API2/Qemu.pm vm_resume and
// src/PVE/QemuServer/RunState.pm vm_resume.
func (s *Sim) resumeQemu(c *call) (any, error) {
	if err := rootOnly(c, "skiplock", "nocheck"); err != nil {
		return nil, err
	}
	node, vmid, skiplock := c.str("node"), c.intParam("vmid", 0), c.boolParam("skiplock")
	// vm_resume reads the "suspended" lock under lock_config, waiting for
	// a worker that holds the flock; a failure (a timeout, a config on
	// another node) only means it is not hibernated.
	// qemu-server src/PVE/API2/Qemu.pm vm_resume (eval around lock_config)
	_ = c.waitGuestFlock(QEMU, vmid, configLockTimeout)
	g := c.cluster.Guests[vmid]
	hibernated := g != nil && g.Type == QEMU && g.Node == node && g.Lock() == "suspended"
	if !hibernated {
		if _, err := runningOn(c); err != nil {
			return nil, err
		}
	}
	cl := c.cluster
	t := s.startQemuWorker(node, "qmresume", vmid, c.user, func(*Task) error {
		g, err := lookupQemu(cl, node, vmid)
		if err != nil {
			return err
		}
		if hibernated {
			return vmStartChecks(g, skiplock)
		}
		return vmResumeChecks(g, skiplock)
	}, func(t *Task) error {
		g, err := lookupQemu(cl, node, vmid)
		if err != nil {
			return err
		}
		if hibernated {
			return s.vmStart(cl, g, t, skiplock)
		}
		g.Paused = false
		return nil
	})
	return t.UPID, nil
}

// vmResumeChecks are vm_resume's checks under lock_config at the start of
// the worker: QMP's query-status on a guest that must still run, the
// template refusal, and the lock (unless skiplock or a backup's) of a guest
// that is paused; a guest that runs is left alone.
// qemu-server src/PVE/QemuServer/RunState.pm vm_resume; the text of a guest
// that is not running is src/PVE/QemuServer/Monitor.pm qmp_cmd.
func vmResumeChecks(g *Guest, skiplock bool) error {
	if g.Status != "running" {
		return errorf("VM %d not running", g.VMID)
	}
	if g.IsTemplate() {
		return errorf("VM %d is a template and cannot be resumed!", g.VMID)
	}
	if !g.Paused {
		return nil
	}
	if !skiplock && g.Lock() != "backup" {
		return g.CheckLock()
	}
	return nil
}

// sortedKeysOf lists a map's keys sorted.
func sortedKeysOf(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
