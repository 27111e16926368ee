package pvesim

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// The snapshot API methods of both guest kinds (qemu-server
// src/PVE/API2/Qemu.pm, pve-container src/PVE/API2/LXC/Snapshot.pm) over
// the snapshot logic of guest_snapshot.go.

// snapshotList is snapshot_list (both kinds): one item per snapshot, then
// "current". PVE walks a Perl hash, so its order is arbitrary; the
// simulator sorts by name.
func snapshotList(g *Guest) []map[string]any {
	out := []map[string]any{}
	for _, name := range sortedKeys(g.Snapshots) {
		snap := g.Snapshots[name]
		snaptime, _ := strconv.ParseInt(snap[snapTime], 10, 64)
		item := map[string]any{
			"name":        name,
			"snaptime":    snaptime,
			"description": snap[snapDescription],
		}
		// Only qemu-server reports vmstate (0 or 1).
		if g.Type == QEMU {
			item["vmstate"] = boolInt(snap[snapVMState] != "")
		}
		if p := snap[snapParent]; p != "" {
			item["parent"] = p
		}
		if st := snap[snapState]; st != "" {
			item["snapstate"] = st
		}
		out = append(out, item)
	}
	current := map[string]any{
		"name":        "current",
		"digest":      guestDigest(g),
		"running":     boolInt(guestRunning(g)),
		"description": "You are here!",
	}
	if p := g.Config[snapParent]; p != "" {
		current["parent"] = p
	}
	return append(out, current)
}

// snapshotTyped is a snapshot section as the API returns it: parse_vm_config
// and parse_pct_config type every key of the section with the config schema
// (snaptime is an integer there).
func (cs *guestSchema) snapshotTyped(typ GuestType, snap map[string]string) map[string]any {
	out := make(map[string]any, len(snap))
	for k, v := range snap {
		switch {
		case k == snapTime:
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				out[k] = v
			} else {
				out[k] = n
			}
		case typ == LXC:
			out[k] = cs.lxcTypedValue(k, v)
		default:
			out[k] = cs.typedValue(k, v)
		}
	}
	return out
}

// loadSnapshot is the "snapshot '...' does not exist" lookup every method
// does on the loaded config (pve-guest-common src/PVE/AbstractConfig.pm
// load_snapshot_config, snapshot_delete, snapshot_rollback; qemu-server
// src/PVE/API2/Qemu.pm and pve-container src/PVE/API2/LXC/Snapshot.pm
// update_snapshot_config).
func loadSnapshot(g *Guest, name string) (map[string]string, error) {
	snap := g.Snapshots[name]
	if snap == nil {
		return nil, errorf("snapshot '%s' does not exist", name)
	}
	return snap, nil
}

// snapshotConfigAnswer is load_snapshot_config for GET .../config with
// "snapshot": the section plus the config's digest.
func (cs *guestSchema) snapshotConfigAnswer(g *Guest, name string) (map[string]any, error) {
	snap, err := loadSnapshot(g, name)
	if err != nil {
		return nil, err
	}
	out := cs.snapshotTyped(g.Type, snap)
	if g.Type == QEMU {
		if _, ok := out["cipassword"]; ok {
			out["cipassword"] = cipasswordMask
		}
	}
	out["digest"] = guestDigest(g)
	return out, nil
}

// snapshotNameReserved is the snapshot API's reserved-name refusal:
// qemu-server refuses 'current' and (any case) 'pending', pve-container
// 'current' and 'vzdump'.
func snapshotNameReserved(typ GuestType, name string) error {
	if name == "current" {
		return errorf("unable to use snapshot name 'current' (reserved name)")
	}
	if typ == QEMU && strings.EqualFold(name, "pending") {
		return errorf("unable to use snapshot name 'pending' (reserved name)")
	}
	if typ == LXC && name == "vzdump" {
		return errorf("unable to use snapshot name 'vzdump' (reserved name)")
	}
	return nil
}

// snapshotIndex is snapshot_cmd_idx: the same two links for any name.
func snapshotIndex(*call) (any, error) {
	return []map[string]string{{"cmd": "rollback"}, {"cmd": "config"}}, nil
}

// registerSnapshotRoutes adds the snapshot methods of both kinds; the
// permissions are those of Qemu.pm and LXC/Snapshot.pm (identical).
func (s *Sim) registerSnapshotRoutes() {
	vm := func(privs ...string) permission { return permission{path: "/vms/{vmid}", privs: privs} }
	for _, typ := range []GuestType{QEMU, LXC} {
		base := "/nodes/{node}/" + string(typ) + "/{vmid}/snapshot"
		one := base + "/{snapname}"
		s.handle(http.MethodGet, base, route{perm: vm("VM.Audit"), handle: func(c *call) (any, error) {
			g, err := loadGuest(c, typ)
			if err != nil {
				return nil, err
			}
			return snapshotList(g), nil
		}})
		s.handle(http.MethodPost, base, route{perm: vm("VM.Snapshot"), handle: func(c *call) (any, error) {
			return s.createSnapshot(c, typ)
		}})
		s.handle(http.MethodGet, one, route{handle: snapshotIndex})
		s.handle(http.MethodDelete, one, route{perm: vm("VM.Snapshot"), handle: func(c *call) (any, error) {
			return s.deleteSnapshot(c, typ)
		}})
		s.handle(http.MethodPost, one+"/rollback", route{
			perm:   permission{path: "/vms/{vmid}", any: true, privs: []string{"VM.Snapshot", "VM.Snapshot.Rollback"}},
			handle: func(c *call) (any, error) { return s.rollbackSnapshot(c, typ) },
		})
		s.handle(http.MethodGet, one+"/config", route{
			perm: permission{path: "/vms/{vmid}", any: true, privs: []string{"VM.Snapshot", "VM.Snapshot.Rollback", "VM.Audit"}},
			handle: func(c *call) (any, error) {
				g, err := loadGuest(c, typ)
				if err != nil {
					return nil, err
				}
				snap, err := loadSnapshot(g, c.str("snapname"))
				if err != nil {
					return nil, err
				}
				// get_snapshot_config returns the section itself, no digest.
				return s.cluster.conf.snapshotTyped(typ, snap), nil
			},
		})
		s.handle(http.MethodPut, one+"/config", route{perm: vm("VM.Snapshot"), handle: func(c *call) (any, error) {
			return nil, updateSnapshotConfig(c, typ)
		}})
	}
}

// snapshotTaskType is the worker type of each snapshot method.
func snapshotTaskType(typ GuestType, op string) string {
	prefix := "qm"
	if typ == LXC {
		prefix = "vz"
	}
	return prefix + op
}

// createSnapshot is the snapshot method: reserved names and the config
// (with qemu-server's check_non_migratable_resources) before the fork,
// snapshot_create in the worker.
func (s *Sim) createSnapshot(c *call, typ GuestType) (any, error) {
	name := c.str("snapname")
	if err := snapshotNameReserved(typ, name); err != nil {
		return nil, err
	}
	g, err := loadGuest(c, typ)
	if err != nil {
		return nil, err
	}
	// pve-container's snapshot method has no vmstate parameter; the
	// schema refuses it.
	saveState := typ == QEMU && c.boolParam("vmstate")
	if typ == QEMU {
		if err := checkNonMigratableResources(g.Config, saveState); err != nil {
			return nil, err
		}
	}
	cl, node, vmid := c.cluster, g.Node, g.VMID
	comment := c.str("description")
	var vols []snapshotVolume
	t := s.startSnapshotWorker(c, typ, "snapshot", node, vmid, func(log *taskNotes) error {
		g, err := lookupGuest(cl, typ, node, vmid)
		if err != nil {
			return err
		}
		vols, err = s.snapshotPrepare(cl, g, name, saveState, comment, log)
		return err
	}, func(t *Task) error {
		g, err := lookupGuest(cl, typ, node, vmid)
		if err != nil {
			return err
		}
		return snapshotCommit(cl, g, name, vols, t)
	})
	return t.UPID, nil
}

// startSnapshotWorker forks a snapshot task: prepare is its first step,
// which PVE runs under lock_config at the worker's start (snapshot_create's
// __snapshot_prepare, snapshot_delete's set_lock after qemu-server's TPM
// check, snapshot_rollback's first pass), and finish the rest, guarded by
// the config lock prepare set. A VM's worker waits for the config flock
// for prepare alone, so prepare sees what an earlier worker that held it
// left. A container's prepare runs in the handler and its outcome shows in
// the task (pve-container's side is the container code's).
// pve-guest-common src/PVE/AbstractConfig.pm snapshot_create,
// snapshot_delete, snapshot_rollback; qemu-server src/PVE/API2/Qemu.pm
// snapshot, delsnapshot, rollback (each runs it in fork_worker).
func (s *Sim) startSnapshotWorker(c *call, typ GuestType, op, node string, vmid int,
	prepare func(log *taskNotes) error, finish func(t *Task) error,
) *Task {
	taskType := snapshotTaskType(typ, op)
	if typ != QEMU {
		log := &taskNotes{}
		prepErr := prepare(log)
		return s.startTask(node, taskType, itoa(vmid), c.user, func(t *Task) error {
			log.replay(t)
			if prepErr != nil {
				return prepErr
			}
			return finish(t)
		})
	}
	return s.startWorker(node, taskType, itoa(vmid), c.user, workerSpec{
		locks:          []flock{{file: GuestLockFile(QEMU, vmid), timeout: configLockTimeout}},
		beginLocksOnly: true,
		begin: func(t *Task) error {
			log := &taskNotes{}
			err := prepare(log)
			log.replay(t)
			return err
		},
		work: finish,
	})
}

// taskNotes holds what a worker logs at its start, which the handler runs
// before the task exists.
type taskNotes struct{ lines []string }

// Log records a line for the task log.
func (n *taskNotes) Log(format string, args ...any) {
	n.lines = append(n.lines, fmt.Sprintf(format, args...))
}

func (n *taskNotes) replay(t *Task) {
	for _, l := range n.lines {
		t.Log("%s", l)
	}
}

// deleteSnapshot is delsnapshot: nothing but the parameters is checked
// before the fork; snapshot_delete runs in the worker. force only matters
// when removing a volume snapshot fails, which cannot happen here.
func (s *Sim) deleteSnapshot(c *call, typ GuestType) (any, error) {
	name := c.str("snapname")
	node, vmid := c.str("node"), c.intParam("vmid", 0)
	cl := c.cluster
	t := s.startSnapshotWorker(c, typ, "delsnapshot", node, vmid, func(*taskNotes) error {
		g, err := lookupGuest(cl, typ, node, vmid)
		if err != nil {
			return err
		}
		return snapshotDeletePrepare(g, name)
	}, func(t *Task) error {
		g, err := lookupGuest(cl, typ, node, vmid)
		if err != nil {
			return err
		}
		return snapshotDeleteFinish(cl, g, name, t)
	})
	return t.UPID, nil
}

// rollbackSnapshot is rollback: with start, qemu-server checks
// VM.PowerMgmt before the fork (Qemu.pm rollback; since 9.1.10, see
// pveProfile.rollbackStartNeedsPowerMgmt); the worker runs
// snapshot_rollback, then starts the guest when asked (or, for a VM, when
// the snapshot holds its RAM: __snapshot_rollback_vm_start).
func (s *Sim) rollbackSnapshot(c *call, typ GuestType) (any, error) {
	name, start := c.str("snapname"), c.boolParam("start")
	node, vmid := c.str("node"), c.intParam("vmid", 0)
	if typ == QEMU && start && c.sim.pve.rollbackStartNeedsPowerMgmt {
		if err := c.check("/vms/"+itoa(vmid), false, "VM.PowerMgmt"); err != nil {
			return nil, err
		}
	}
	cl := c.cluster
	t := s.startSnapshotWorker(c, typ, "rollback", node, vmid, func(*taskNotes) error {
		g, err := lookupGuest(cl, typ, node, vmid)
		if err != nil {
			return err
		}
		return s.snapshotRollbackPrepare(cl, g, name)
	}, func(t *Task) error {
		g, err := lookupGuest(cl, typ, node, vmid)
		if err != nil {
			return err
		}
		withState := typ == QEMU && g.Snapshots[name] != nil && g.Snapshots[name][snapVMState] != ""
		if err := s.snapshotRollbackFinish(cl, g, name); err != nil {
			return err
		}
		switch {
		case typ == LXC && start:
			return s.ctStart(cl, g, false)
		case typ == QEMU && (withState || start) && !guestRunning(g):
			return s.vmStart(cl, g, t, false)
		}
		return nil
	})
	return t.UPID, nil
}

// updateSnapshotConfig is update_snapshot_config: nothing to do without a
// description; else check_lock, the snapshot, the new comment.
func updateSnapshotConfig(c *call, typ GuestType) error {
	comment, ok := c.param("description")
	if !ok {
		return nil
	}
	// The rest runs under lock_config, which waits for a worker holding
	// the flock (qemu-server src/PVE/API2/Qemu.pm update_snapshot_config).
	if typ == QEMU {
		if err := c.waitGuestFlock(QEMU, c.intParam("vmid", 0), configLockTimeout); err != nil {
			return err
		}
	}
	g, err := loadGuest(c, typ)
	if err != nil {
		return err
	}
	if err := g.CheckLock(); err != nil {
		return err
	}
	snap, err := loadSnapshot(g, c.str("snapname"))
	if err != nil {
		return err
	}
	if d := snapshotDescription(typ, comment); d != "" {
		snap[snapDescription] = d
	} else {
		delete(snap, snapDescription)
	}
	return nil
}
