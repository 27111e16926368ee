package pvesim

import (
	"crypto/sha1" //nolint:gosec // PVE's config digest is SHA-1 of the file text; no security use
	"encoding/hex"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
)

// ReplicationState is replication.cfg (the cluster-wide job configuration)
// with what the nodes keep beside it: each job's run state
// (/var/lib/pve-manager/pve-replication-state.json) and the log of its last
// run (/var/log/pve/replicate/JOBID).
// pve-guest-common src/PVE/ReplicationConfig.pm, ReplicationState.pm.
type ReplicationState struct {
	// Jobs are keyed by job id, "VMID-JOBNUM".
	Jobs map[string]*ReplicationJob
	// Runs are the jobs' run states, by job id. PVE keeps them per node
	// (by guest and target); the simulator keeps one per job, which is
	// what the guest's current node shows.
	Runs map[string]*ReplicationRun
	// Logs are the lines of each job's last run, by job id.
	Logs map[string][]string

	// lastPass is when the scheduler last ran the jobs.
	lastPass time.Time
}

// ReplicationJob is one section of replication.cfg.
type ReplicationJob struct {
	ID     string
	Guest  int
	JobNum int
	Type   string // "local", the only type PVE has
	// Props are the section's options as stored: target, schedule, rate,
	// comment, disable, source, remove_job.
	Props map[string]string
}

// ReplicationRun is a job's run state as ReplicationState.pm keeps it:
// times are epoch seconds, 0 when never.
type ReplicationRun struct {
	LastTry   int64
	LastSync  int64
	FailCount int
	Error     string
	Duration  float64
	// HasDuration tells whether a run has ended (duration is only then
	// reported).
	HasDuration bool
}

func newReplicationState() *ReplicationState {
	return &ReplicationState{
		Jobs: map[string]*ReplicationJob{},
		Runs: map[string]*ReplicationRun{},
		Logs: map[string][]string{},
	}
}

// replicationJobID is parse_replication_job_id: "GUEST-JOBNUM", with the
// numbers' integer forms making the canonical id.
// pve-guest-common src/PVE/ReplicationConfig.pm parse_replication_job_id
var replicationJobID = regexp.MustCompile(`^(\d+)-(\d+)$`)

func parseReplicationJobID(id string) (guest, jobnum int, canonical string, err error) {
	// pve-guest-common src/PVE/ReplicationConfig.pm parse_replication_job_id
	msg := fmt.Sprintf("invalid replication job id '%s'", id)
	m := replicationJobID.FindStringSubmatch(id)
	if m == nil {
		return 0, 0, "", errorf("%s", msg)
	}
	guest, err1 := strconv.Atoi(m[1])
	jobnum, err2 := strconv.Atoi(m[2])
	if err1 != nil || err2 != nil {
		return 0, 0, "", errorf("%s", msg)
	}
	if guest < 100 {
		return 0, 0, "", errorf("%s (guest IDs < 100 are reserved)", msg)
	}
	return guest, jobnum, fmt.Sprintf("%d-%d", guest, jobnum), nil
}

// sortedJobIDs lists the job ids in PVE's order (sort keys: string order).
func (r *ReplicationState) sortedJobIDs() []string {
	return sortedKeys(r.Jobs)
}

// replicationCfgText renders replication.cfg as SectionConfig
// write_config does: "local: ID" then the options, each tab-indented,
// sections separated by a blank line. The digest is its SHA-1.
// pve-common src/PVE/SectionConfig.pm write_config
func (r *ReplicationState) cfgText() string {
	var b strings.Builder
	for _, id := range r.sortedJobIDs() {
		j := r.Jobs[id]
		fmt.Fprintf(&b, "%s: %s\n", j.Type, id)
		for _, k := range sortedKeys(j.Props) {
			fmt.Fprintf(&b, "\t%s %s\n", k, j.Props[k])
		}
		b.WriteString("\n")
	}
	return b.String()
}

func (r *ReplicationState) digest() string {
	sum := sha1.Sum([]byte(r.cfgText())) //nolint:gosec // see the import
	return hex.EncodeToString(sum[:])
}

// replicationTargetID is get_unique_target_id of the local type.
// pve-guest-common src/PVE/ReplicationConfig.pm
// PVE::ReplicationConfig::Cluster get_unique_target_id
func replicationTargetID(target string) string { return "local/" + target }

// checkUniqueTargets is write_config's refusal of two jobs of one guest to
// the same target.
// pve-guest-common src/PVE/ReplicationConfig.pm write_config
func (r *ReplicationState) checkUniqueTargets() error {
	seen := map[int]map[string]bool{}
	for _, id := range r.sortedJobIDs() {
		j := r.Jobs[id]
		tid := replicationTargetID(j.Props["target"])
		if seen[j.Guest] == nil {
			seen[j.Guest] = map[string]bool{}
		}
		if seen[j.Guest][tid] {
			return errorf("replication job for guest '%d' to target '%s' already exists", j.Guest, tid)
		}
		seen[j.Guest][tid] = true
	}
	return nil
}

// existingJobsError is check_for_existing_jobs: the first job (in hash
// order on PVE; the simulator takes the lowest id) of a guest.
// pve-guest-common src/PVE/ReplicationConfig.pm check_for_existing_jobs
func (r *ReplicationState) existingJobsError(vmid int) error {
	for _, id := range r.sortedJobIDs() {
		if r.Jobs[id].Guest == vmid {
			return errorf("There is a replication job '%s' for guest '%d' - Please remove that first.", id, vmid)
		}
	}
	return nil
}

// removeGuestJobs is remove_vmid_jobs: the guest's jobs leave the
// configuration at once, with no cleanup.
// pve-guest-common src/PVE/ReplicationConfig.pm remove_vmid_jobs
func (r *ReplicationState) removeGuestJobs(vmid int) {
	for id, j := range r.Jobs {
		if j.Guest == vmid {
			delete(r.Jobs, id)
			delete(r.Runs, id)
			delete(r.Logs, id)
		}
	}
}

// storageCanReplicate is volume_has_feature(..., 'replicate', ...): only
// ZFSPoolPlugin.pm lists the feature (for base and current volumes, any
// format); every other plugin's table lacks it.
// pve-storage src/PVE/Storage/ZFSPoolPlugin.pm volume_has_feature
func storageCanReplicate(st *Storage) bool { return st.Type == "zfspool" }

// replicatableVolumes is get_replicatable_volumes (cleanup and noerr
// off): the guest's own volumes on local storage, each of which must
// have the replicate feature. Drives with replicate=0 and CD-ROMs are left
// out; on shared storage, volumes of other guests (a linked clone's base)
// are skipped.
// qemu-server src/PVE/QemuConfig.pm get_replicatable_volumes (over
// QemuServer.pm foreach_volid: drives, unusedN, vmstate); pve-container
// src/PVE/LXC/Config.pm get_replicatable_volumes (rootfs, mpN, unusedN).
func replicatableVolumes(cl *Cluster, g *Guest) ([]string, error) {
	set := map[string]bool{}
	test := func(volid string, replicate bool, ct bool, mptype string) error {
		if volid == "" {
			return nil
		}
		if ct && mptype != "volume" {
			if !replicate {
				return nil
			}
			return errorf("unable to replicate mountpoint type '%s'", mptype)
		}
		if !ct && !replicate {
			return nil
		}
		if strings.HasPrefix(volid, "/") {
			return errorf("unable to replicate local file/device '%s'", volid)
		}
		st, info, err := parseVolume(cl, volid)
		if err != nil || st == nil {
			// parse_volume_id with noerr set by neither caller: a volid
			// PVE cannot parse fails earlier, at config write.
			return nil //nolint:nilerr // skipped as the storage layer would not hand it over
		}
		if st.Shared {
			return nil
		}
		if info.owner == 0 || info.owner != g.VMID {
			return nil
		}
		if info.vtype != "images" {
			return errorf("unable to replicate volume '%s', type '%s'", volid, info.vtype)
		}
		if ct && !replicate {
			return nil
		}
		if !storageCanReplicate(st) {
			return errorf("missing replicate feature on volume '%s'", volid)
		}
		set[volid] = true
		return nil
	}
	if g.Type == LXC {
		for _, k := range ctVolumeKeys(g.Config) {
			volid, replicate, mptype := g.Config[k], true, "volume"
			if !pvegrammar.IsLXCUnusedKey(k) {
				m, err := cl.conf.parseMountPoint(k, g.Config[k])
				if err != nil {
					continue
				}
				volid, replicate, mptype = m.volume(), m["replicate"] != "0", m.kind()
			}
			if err := test(volid, replicate, true, mptype); err != nil {
				return nil, err
			}
		}
	} else {
		for _, k := range volumeKeys(g.Config) {
			if k == "vmstate" {
				if err := test(g.Config[k], true, false, ""); err != nil {
					return nil, err
				}
				continue
			}
			d, ok := cl.conf.parseDrive(k, g.Config[k])
			if !ok || d.isCDROM() {
				continue
			}
			if err := test(d.file(), d["replicate"] != "0", false, ""); err != nil {
				return nil, err
			}
		}
	}
	out := sortedKeys(set)
	sort.Strings(out)
	return out, nil
}

// replicationNextEvent is compute_next_event for a job's schedule: the
// first event strictly after last, 0 when there is none. The nodes' time
// zone is UTC.
// pve-guest-common src/PVE/ReplicationState.pm job_status
// (parse_calendar_event, compute_next_event ... // 0)
func replicationNextEvent(schedule string, last int64) int64 {
	ev, msg := pvegrammar.ParseCalendarEvent(strings.TrimFunc(schedule, pvegrammar.IsPerlSpace))
	if msg != "" {
		return 0
	}
	next, ok := ev.NextEvent(last, time.UTC)
	if !ok {
		return 0
	}
	return next
}

// defaultReplicationSchedule is the schedule option's default.
// pve-guest-common src/PVE/ReplicationConfig.pm ($defaultData schedule)
const defaultReplicationSchedule = "*/15"
