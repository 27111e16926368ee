package pvesim

import (
	"net/http"
	"testing"
	"time"
)

// replEnv is a simulator with a "local-zfs" zfspool storage on every node
// (as a PVE install on ZFS has) and VM 100 on pve1 with a disk on it.
func replEnv(t *testing.T, opts Options) *env {
	t.Helper()
	if opts.ReplicationInterval == 0 {
		opts.ReplicationInterval = -1 // passes only through RunReplication
	}
	opts.ZFSStorage = true
	e := newEnv(t, opts)
	e.createVM(t, "100", "scsi0", "local-zfs:4")
	return e
}

func (e *env) replJob(t *testing.T, id string) map[string]any {
	t.Helper()
	a := e.call(t, http.MethodGet, "/cluster/replication/"+id, nil)
	a.wantOK(t)
	var out map[string]any
	a.decode(t, &out)
	return out
}

// pve-manager PVE/API2/ReplicationConfig.pm create: its refusals in order,
// and write_config's one job per guest and target.
func TestReplicationCreateChecks(t *testing.T) {
	e := replEnv(t, Options{})
	e.createVM(t, "101", "scsi0", "local-lvm:4")
	e.createVM(t, "102", "scsi0", "shared-nfs:4")
	post := func(kv ...string) *answer {
		return e.call(t, http.MethodPost, "/cluster/replication", form(append([]string{"type", "local"}, kv...)...))
	}
	post("id", "105-0", "target", "pve2").wantStatus(t, http.StatusInternalServerError, "Guest '105' does not exist.")
	post("id", "100-0", "target", "pve9").wantStatus(t, http.StatusInternalServerError, "Target 'pve9' does not exist.")
	post("id", "100-0", "target", "pve1").wantStatus(t, http.StatusInternalServerError, "Source and target must not be identical")
	post("id", "100-0", "target", "pve2", "source", "pve3").
		wantStatus(t, http.StatusInternalServerError, "Source 'pve3' does not match current node of guest '100' (pve1)")
	// qemu-server src/PVE/QemuConfig.pm get_replicatable_volumes
	post("id", "101-0", "target", "pve2").
		wantStatus(t, http.StatusInternalServerError, "missing replicate feature on volume 'local-lvm:vm-101-disk-0'")
	// Shared storage is skipped, which leaves nothing to replicate.
	post("id", "102-0", "target", "pve2").wantStatus(t, http.StatusInternalServerError, "No replicatable volumes found")
	// The schema's pattern refuses guest ids below 100.
	post("id", "99-0", "target", "pve2").wantStatus(t, http.StatusBadRequest, "Parameter verification failed.")

	post("id", "100-0", "target", "pve2", "schedule", "*/30", "rate", "50", "comment", "nightly").wantOK(t)
	post("id", "100-0", "target", "pve3").wantStatus(t, http.StatusInternalServerError, "replication job '100-0' already exists")
	post("id", "100-1", "target", "pve2").
		wantStatus(t, http.StatusInternalServerError, "replication job for guest '100' to target 'local/pve2' already exists")
	post("id", "100-1", "target", "pve3").wantOK(t)

	got := e.replJob(t, "100-0")
	want := map[string]any{"id": "100-0", "type": "local", "guest": float64(100), "jobnum": float64(0),
		"target": "pve2", "source": "pve1", "schedule": "*/30", "rate": float64(50), "comment": "nightly"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if d, _ := got["digest"].(string); len(d) != 40 {
		t.Errorf("digest = %v", got["digest"])
	}
	var list []map[string]any
	e.call(t, http.MethodGet, "/cluster/replication", nil).decode(t, &list)
	if len(list) != 2 || list[0]["id"] != "100-0" || list[1]["id"] != "100-1" {
		t.Errorf("list = %v", list)
	}
	e.call(t, http.MethodGet, "/cluster/replication/100-7", nil).
		wantStatus(t, http.StatusInternalServerError, "no such replication job '100-7'")
}

// pve-manager PVE/API2/ReplicationConfig.pm update: the digest is the whole
// file's, delete refuses the fixed target and unknown options, and the
// target cannot be changed at all (not in the update schema).
func TestReplicationUpdate(t *testing.T) {
	e := replEnv(t, Options{})
	e.call(t, http.MethodPost, "/cluster/replication", form("type", "local", "id", "100-0", "target", "pve2", "rate", "10")).wantOK(t)
	digest := e.replJob(t, "100-0")["digest"].(string)
	put := func(kv ...string) *answer {
		return e.call(t, http.MethodPut, "/cluster/replication/100-0", form(kv...))
	}
	put("comment", "x", "digest", digest).wantOK(t)
	put("comment", "y", "digest", digest).
		wantStatus(t, http.StatusInternalServerError, "detected modified configuration - file changed by other user? Try again.")
	put("target", "pve3").wantStatus(t, http.StatusBadRequest, "Parameter verification failed.")
	put("delete", "target").wantStatus(t, http.StatusInternalServerError, "unable to delete required option 'target'")
	put("delete", "rate,comment", "disable", "1", "schedule", "12:30").wantOK(t)
	got := e.replJob(t, "100-0")
	if _, has := got["rate"]; has || got["comment"] != nil || got["disable"] != float64(1) || got["schedule"] != "12:30" {
		t.Errorf("after update: %v", got)
	}
	e.call(t, http.MethodPut, "/cluster/replication/100-3", form("comment", "x")).
		wantStatus(t, http.StatusInternalServerError, "no such job '100-3'")
}

// DELETE only marks the job (remove_job full, or local with keep); the
// job's next run removes it. force drops it at once and conflicts with
// keep. pve-manager PVE/API2/ReplicationConfig.pm delete,
// pve-guest-common src/PVE/Replication.pm replicate (remove_job).
func TestReplicationDeleteIsDeferred(t *testing.T) {
	e := replEnv(t, Options{})
	create := func(id, target string) {
		e.call(t, http.MethodPost, "/cluster/replication", form("type", "local", "id", id, "target", target)).wantOK(t)
	}
	create("100-0", "pve2")
	e.call(t, http.MethodDelete, "/cluster/replication/100-0", nil).wantOK(t)
	if got := e.replJob(t, "100-0"); got["remove_job"] != "full" {
		t.Fatalf("marked job = %v", got)
	}
	create2 := e.call(t, http.MethodPost, "/cluster/replication", form("type", "local", "id", "100-0", "target", "pve2"))
	create2.wantStatus(t, http.StatusInternalServerError, "replication job '100-0' already exists")
	e.sim.RunReplication()
	e.call(t, http.MethodGet, "/cluster/replication/100-0", nil).
		wantStatus(t, http.StatusInternalServerError, "no such replication job '100-0'")
	create("100-0", "pve2")

	e.call(t, http.MethodDelete, "/cluster/replication/100-0", form("keep", "1")).wantOK(t)
	if got := e.replJob(t, "100-0"); got["remove_job"] != "local" {
		t.Fatalf("kept job = %v", got)
	}
	e.call(t, http.MethodDelete, "/cluster/replication/100-0", form("force", "1", "keep", "1")).
		wantParamError(t, "keep", "conflicts with parameter 'force'")
	e.call(t, http.MethodDelete, "/cluster/replication/100-0", form("force", "1")).wantOK(t)
	e.call(t, http.MethodGet, "/cluster/replication/100-0", nil).
		wantStatus(t, http.StatusInternalServerError, "no such replication job '100-0'")
	e.call(t, http.MethodDelete, "/cluster/replication/100-0", form("force", "1")).wantOK(t)
	e.call(t, http.MethodDelete, "/cluster/replication/100-0", nil).
		wantStatus(t, http.StatusInternalServerError, "no such job '100-0'")
}

// A run records last_sync and the log; next_sync follows the schedule;
// schedule_now makes the job due again; a target that is offline makes
// the run fail and counts failures. pve-guest-common
// src/PVE/ReplicationState.pm job_status, record_job_end, schedule_job_now.
func TestReplicationRunAndStatus(t *testing.T) {
	clock := newFakeClock()
	e := replEnv(t, Options{Now: clock.Now, ReplicationInterval: time.Minute})
	e.call(t, http.MethodPost, "/cluster/replication", form("type", "local", "id", "100-0", "target", "pve2")).wantOK(t)
	status := func(node string) map[string]any {
		t.Helper()
		a := e.call(t, http.MethodGet, "/nodes/"+node+"/replication/100-0/status", nil)
		a.wantOK(t)
		var out map[string]any
		a.decode(t, &out)
		return out
	}
	st := status("pve1")
	if st["last_sync"] != float64(0) || st["fail_count"] != float64(0) || st["next_sync"] == float64(0) {
		t.Fatalf("before a run: %v", st)
	}
	// Only the guest's node has the job's status.
	e.call(t, http.MethodGet, "/nodes/pve2/replication/100-0/status", nil).
		wantStatus(t, http.StatusInternalServerError, "no such replication job '100-0'")

	clock.Advance(time.Minute)
	st = status("pve1")
	synced := clock.Now().Truncate(time.Minute).Unix()
	if st["last_sync"] != float64(synced) || st["duration"] == nil || st["vmtype"] != "qemu" {
		t.Fatalf("after the pass: %v", st)
	}
	// The default schedule */15: the next quarter hour after the run.
	if want := float64((synced/900 + 1) * 900); st["next_sync"] != want {
		t.Errorf("next_sync = %v, want %v", st["next_sync"], want)
	}
	// Another schedule: the next 12:30 (the nodes' time zone is UTC).
	e.call(t, http.MethodPost, "/cluster/replication", form("type", "local", "id", "100-1", "target", "pve3", "schedule", "12:30")).wantOK(t)
	clock.Advance(time.Minute)
	a := e.call(t, http.MethodGet, "/nodes/pve1/replication/100-1/status", nil)
	var st1 map[string]any
	a.decode(t, &st1)
	if want := float64(time.Date(2026, 5, 20, 12, 30, 0, 0, time.UTC).Unix()); st1["next_sync"] != want || st1["last_sync"] == float64(0) {
		t.Errorf("job 100-1: %v, want next_sync %v", st1, want)
	}
	// The schema checks the calendar event.
	e.call(t, http.MethodPost, "/cluster/replication", form("type", "local", "id", "100-2", "target", "pve3", "schedule", "fry 25:00")).
		wantStatus(t, http.StatusBadRequest, "Parameter verification failed.")

	var log []map[string]any
	a = e.call(t, http.MethodGet, "/nodes/pve1/replication/100-0/log", nil)
	a.decode(t, &log)
	if len(log) < 3 || log[0]["n"] != float64(1) || a.total != len(log) {
		t.Fatalf("log = %v (total %d)", log, a.total)
	}
	if got := log[len(log)-1]["t"].(string); got != "2026-05-20 10:01:00 100-0: end replication job" {
		t.Errorf("last log line %q", got)
	}

	e.call(t, http.MethodPost, "/nodes/pve1/replication/100-0/schedule_now", nil).wantOK(t)
	if st := status("pve1"); st["last_try"] != float64(0) {
		t.Errorf("after schedule_now: %v", st)
	}
	if err := e.sim.Update(func(c *Cluster) error { c.Node("pve2").Online = false; return nil }); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	st = status("pve1")
	if st["fail_count"] != float64(1) || st["error"] == nil || st["last_sync"] != float64(synced) {
		t.Errorf("with the target offline: %v", st)
	}
	// An offline target makes next_sync 0: no retry until it is back.
	if st["next_sync"] != float64(0) {
		t.Errorf("next_sync with the target offline = %v", st["next_sync"])
	}
	var list []map[string]any
	e.call(t, http.MethodGet, "/nodes/pve1/replication", form("guest", "100")).decode(t, &list)
	if len(list) != 2 || list[0]["id"] != "100-0" || list[1]["id"] != "100-1" {
		t.Errorf("node list = %v", list)
	}
	e.call(t, http.MethodGet, "/nodes/pve1/replication", form("guest", "101")).decode(t, &list)
	if len(list) != 0 {
		t.Errorf("node list of guest 101 = %v", list)
	}
}

// destroy without purge refuses a guest with replication jobs; purge takes
// them away. qemu-server src/PVE/API2/Qemu.pm destroy_vm ($early_checks,
// remove_vmid_jobs), pve-guest-common check_for_existing_jobs.
func TestReplicationGuestDestroy(t *testing.T) {
	e := replEnv(t, Options{})
	e.call(t, http.MethodPost, "/cluster/replication", form("type", "local", "id", "100-0", "target", "pve2")).wantOK(t)
	e.call(t, http.MethodDelete, "/nodes/pve1/qemu/100", nil).
		wantStatus(t, http.StatusInternalServerError, "There is a replication job '100-0' for guest '100' - Please remove that first.")
	e.taskOK(t, e.call(t, http.MethodDelete, "/nodes/pve1/qemu/100", form("purge", "1")))
	e.call(t, http.MethodGet, "/cluster/replication/100-0", nil).
		wantStatus(t, http.StatusInternalServerError, "no such replication job '100-0'")
}

// PVE 9 checks VM.Replicate on the guest; PVE 8.4 Datastore.Allocate on
// /storage (its schema). pve-manager PVE/API2/ReplicationConfig.pm.
func TestReplicationPermissions(t *testing.T) {
	for _, tc := range []struct {
		version, missing string
	}{
		{"9.2", "/vms/100, VM.Replicate"},
		{"8.4", "/storage, Datastore.Allocate"},
	} {
		t.Run(tc.version, func(t *testing.T) {
			e := replEnv(t, Options{PVEVersion: tc.version})
			e.sim.setPrivileges(testTokenUser, []string{"VM.Audit", "VM.Allocate", "Datastore.AllocateSpace"})
			e.call(t, http.MethodPost, "/cluster/replication", form("type", "local", "id", "100-0", "target", "pve2")).
				wantStatus(t, http.StatusForbidden, "Permission check failed ("+tc.missing+")")
		})
	}
}

// A replicated VM takes new disks only where they can be replicated.
// qemu-server src/PVE/API2/Qemu.pm update_vm_api $check_replication.
func TestReplicatedVMRefusesNonReplicatableDisk(t *testing.T) {
	e := replEnv(t, Options{})
	e.call(t, http.MethodPost, "/cluster/replication", form("type", "local", "id", "100-0", "target", "pve2")).wantOK(t)
	put := func(kv ...string) *answer {
		return e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form(kv...))
	}
	put("scsi1", "local-lvm:4").wantStatus(t, http.StatusInternalServerError, "cannot add non-replicatable volume to a replicated VM")
	put("scsi1", "local-lvm:4,replicate=0").wantOK(t)
	put("scsi2", "shared-nfs:4").wantOK(t)
	put("scsi3", "local-zfs:4").wantOK(t)
	put("ide2", "local:iso/debian-13-netinst.iso,media=cdrom").wantOK(t)
}

// The container side of the same check, and of destroy's refusal.
// pve-container src/PVE/API2/LXC/Config.pm update_vm, src/PVE/API2/LXC.pm
// destroy_vm.
func TestReplicatedContainer(t *testing.T) {
	e := replEnv(t, Options{})
	e.createCT(t, "101", "rootfs", "local-zfs:4")
	e.call(t, http.MethodPost, "/cluster/replication", form("type", "local", "id", "101-0", "target", "pve3")).wantOK(t)
	put := func(kv ...string) *answer {
		return e.call(t, http.MethodPut, "/nodes/pve1/lxc/101/config", form(kv...))
	}
	put("mp0", "local-lvm:4,mp=/data").wantStatus(t, http.StatusInternalServerError, "cannot add non-replicatable volume to a replicated VM")
	put("mp0", "local-lvm:4,mp=/data,replicate=0").wantOK(t)
	put("mp1", "local-zfs:2,mp=/more").wantOK(t)
	e.call(t, http.MethodDelete, "/nodes/pve1/lxc/101", nil).
		wantStatus(t, http.StatusInternalServerError, "There is a replication job '101-0' for guest '101' - Please remove that first.")
}

// A running replicated VM migrates live only to one of its jobs' targets
// (unless forced); after a migration the jobs follow the guest.
// qemu-server src/PVE/API2/Qemu.pm migrate_vm, src/PVE/QemuMigrate.pm
// (switch_replication_job_target).
func TestReplicatedVMMigration(t *testing.T) {
	e := replEnv(t, Options{})
	e.call(t, http.MethodPost, "/cluster/replication", form("type", "local", "id", "100-0", "target", "pve2")).wantOK(t)
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/status/start", nil))
	e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/migrate", form("target", "pve3", "online", "1", "with-local-disks", "1")).
		wantStatus(t, http.StatusInternalServerError, "Cannot live-migrate replicated VM to node 'pve3' - not a replication target. Use 'force' to override.")
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/migrate", form("target", "pve2", "online", "1", "with-local-disks", "1")))
	got := e.replJob(t, "100-0")
	if got["target"] != "pve1" || got["source"] != "pve2" {
		t.Errorf("job after the migration: %v", got)
	}
}
