package pvesim

import (
	"strconv"
	"strings"
)

// The guest endpoints of an HA-managed guest. PVE does not act on such a
// guest when anyone but the HA stack asks: a migration, start, stop or
// shutdown forks a worker ('hamigrate', 'hastart', 'hastop') that runs
// ha-manager to request it and ends there. The guest moves, starts or
// stops in the HA manager's next rounds (ha_manager.go).
// qemu-server src/PVE/API2/Qemu.pm migrate_vm, vm_start, vm_stop,
// vm_shutdown; pve-container src/PVE/API2/LXC.pm migrate_vm and
// src/PVE/API2/LXC/Status.pm vm_start, vm_stop, vm_shutdown. The
// simulator's LRM acts on guests directly, never through these handlers,
// which stands for "$rpcenv->{type} ne 'ha'".

// haSIDOf is the guest's HA service id: vm:VMID or ct:VMID.
func haSIDOf(g *Guest) string { return haSID(g.Type, g.VMID) }

func haSID(typ GuestType, vmid int) string { return haTypeOf(typ) + ":" + itoa(vmid) }

// haGuestWord is how the HA request workers name a guest in their log.
func haGuestWord(typ GuestType) string {
	if typ == LXC {
		return "CT"
	}
	return "VM"
}

// haServiceStatus is the "ha" member of a guest's status/current:
// managed 0, or managed 1 and the CRM's state of the service (absent
// until the manager has seen it).
// pve-ha-manager src/PVE/HA/Config.pm get_service_status; qemu-server
// src/PVE/API2/Qemu.pm vm_status and pve-container
// src/PVE/API2/LXC/Status.pm vm_status put it there.
func haServiceStatus(cl *Cluster, g *Guest) map[string]any {
	if !cl.haManaged(g.VMID) {
		return map[string]any{"managed": 0}
	}
	st := map[string]any{"managed": 1}
	if sd := cl.HA.Manager.Services[haSIDOf(g)]; sd != nil {
		st["state"] = sd.State
	}
	return st
}

// haRequestTask forks the worker that requests an action of HA: it logs
// what it asks and runs the ha-manager command, whose failure fails the
// task (pve-common src/PVE/Cmd.pm run, behind PVE::Tools::run_command:
// "command '...' failed: exit code 255"). The worker takes no config lock.
func (s *Sim) haRequestTask(c *call, vmid int, typ, logLine, command string, request func(cl *Cluster) error) string {
	cl := c.cluster
	t := s.startWorker(c.str("node"), typ, itoa(vmid), c.user, workerSpec{
		work: func(t *Task) error {
			t.Log("%s", logLine)
			if err := request(cl); err != nil {
				t.Log("%s", strings.TrimSuffix(asAPIError(err).message, "\n"))
				return errorf("command '%s' failed: exit code 255", command)
			}
			return nil
		},
	})
	return t.UPID
}

// haMigrateTask is migrate_vm's 'hamigrate' worker: `ha-manager migrate
// SID TARGET`, which is POST /cluster/ha/resources/{sid}/migrate.
// qemu-server src/PVE/API2/Qemu.pm and pve-container src/PVE/API2/LXC.pm
// migrate_vm.
func (s *Sim) haMigrateTask(c *call, g *Guest, target string) string {
	sid := haSIDOf(g)
	return s.haRequestTask(c, g.VMID, "hamigrate",
		"Requesting HA migration for "+haGuestWord(g.Type)+" "+itoa(g.VMID)+" to node "+target,
		"ha-manager migrate "+sid+" "+target,
		func(cl *Cluster) error { return cl.haRequestMove(sid, target, false) })
}

// haStartTask is vm_start's 'hastart' worker: `ha-manager set SID --state
// started`, the HA resource update with its check of the CRM's error
// state (pve-ha-manager src/PVE/API2/HA/Resources.pm update,
// check_service_state).
func (s *Sim) haStartTask(c *call, typ GuestType, vmid int) string {
	sid := haSID(typ, vmid)
	return s.haRequestTask(c, vmid, "hastart",
		"Requesting HA start for "+haGuestWord(typ)+" "+itoa(vmid),
		"ha-manager set "+sid+" --state started",
		func(cl *Cluster) error { return cl.haSetRequestedState(sid, "started") })
}

// haStopTask is the 'hastop' worker of vm_stop (timeout 0: a hard stop)
// and vm_shutdown (its timeout, 60 by default): `ha-manager crm-command
// stop SID TIMEOUT`, which queues the command for the CRM after checking
// that the service is managed and not in the error state. The CRM then
// stops the guest and sets its HA resource's state to stopped.
// pve-ha-manager src/PVE/CLI/ha_manager.pm stop; src/PVE/HA/Manager.pm
// next_state_started.
func (s *Sim) haStopTask(c *call, typ GuestType, vmid, timeout int) string {
	sid := haSID(typ, vmid)
	return s.haRequestTask(c, vmid, "hastop",
		"Requesting HA stop for "+haGuestWord(typ)+" "+itoa(vmid),
		"ha-manager crm-command stop "+sid+" "+strconv.Itoa(timeout),
		func(cl *Cluster) error { return cl.haRequestStop(sid, timeout) })
}

// haStopRequest answers a stop or shutdown of an HA-managed guest; handled
// is false when the guest is not HA-managed. A stop refuses
// overrule-shutdown ("Not applicable for HA resources.") and is a hard
// stop; a shutdown passes its timeout (60 by default).
// qemu-server src/PVE/API2/Qemu.pm vm_stop, vm_shutdown; pve-container
// src/PVE/API2/LXC/Status.pm vm_stop, vm_shutdown.
func (s *Sim) haStopRequest(c *call, typ GuestType, shutdown bool) (upid string, handled bool, err error) {
	vmid := c.intParam("vmid", 0)
	if !c.cluster.haManaged(vmid) {
		return "", false, nil
	}
	if !shutdown {
		if c.boolParam("overrule-shutdown") {
			return "", true, paramError(map[string]string{"overrule-shutdown": "Not applicable for HA resources."})
		}
		return s.haStopTask(c, typ, vmid, 0), true, nil
	}
	return s.haStopTask(c, typ, vmid, c.intParam("timeout", 60)), true, nil
}
