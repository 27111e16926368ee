package pvesim

import (
	"fmt"
	"time"
)

// The replication runner: pvescheduler runs `pvesr run` once a minute on
// every node (pve-manager PVE/Service/pvescheduler.pm), which runs the due
// jobs of the guests on that node (pve-manager PVE/API2/Replication.pm
// run_jobs, pve-guest-common src/PVE/ReplicationState.pm job_status and
// get_next_job, src/PVE/Replication.pm run_replication).
//
// The simulator plays the passes it owes whenever it settles its clock
// (before every request and model access), one pass per
// Options.ReplicationInterval. RunReplication runs a pass at once.

// defaultReplicationInterval is pvescheduler's cycle.
const defaultReplicationInterval = time.Minute

// maxReplicationPasses bounds the passes played at once after a long
// jump of the clock; the older ones change nothing the last would not.
const maxReplicationPasses = 100

// replicationInterval is the scheduler's cycle; 0 or less stops it.
func (s *Sim) replicationInterval() time.Duration {
	return s.opts.ReplicationInterval
}

// settleReplicationLocked plays the scheduler passes due by now.
func (s *Sim) settleReplicationLocked(now time.Time) {
	rs := s.cluster.Replication
	iv := s.replicationInterval()
	if rs.lastPass.IsZero() {
		rs.lastPass = now
		return
	}
	if iv <= 0 || len(rs.Jobs) == 0 {
		if now.After(rs.lastPass) {
			rs.lastPass = now
		}
		return
	}
	next := rs.lastPass.Truncate(iv).Add(iv)
	if n := now.Sub(next) / iv; n > maxReplicationPasses {
		next = next.Add((n - maxReplicationPasses) * iv)
	}
	for !next.After(now) {
		s.replicationPass(next)
		rs.lastPass = next
		next = next.Add(iv)
	}
}

// RunReplication runs one scheduler pass now on every online node, as
// `pvesr run` does, for tests that want a job's run without waiting for
// the scheduler.
func (s *Sim) RunReplication() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settleTasksLocked()
	now := s.now()
	s.replicationPass(now)
	s.cluster.Replication.lastPass = now
}

// SetReplicationInterval changes the scheduler's cycle (0 or less stops
// it; RunReplication still runs passes).
func (s *Sim) SetReplicationInterval(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settleTasksLocked()
	s.opts.ReplicationInterval = d
}

// replicationView is one job as job_status sees it on the guest's node.
type replicationView struct {
	job      *ReplicationJob
	guest    *Guest
	run      *ReplicationRun
	nextSync int64
}

// jobStatus is job_status(get_disabled) for one node: the jobs of the
// guests on that node, less those replicating to the node itself and
// (unless getDisabled) the disabled ones; a job marked for removal always
// shows. It first fixes jobs of a stolen guest (its node differs from
// the job's source): the job that targets the guest's new node turns back
// to the old one, and every job of the guest takes the new node as source.
// pve-guest-common src/PVE/ReplicationState.pm job_status;
// src/PVE/ReplicationConfig.pm switch_replication_job_target_nolock.
func (cl *Cluster) jobStatus(node string, getDisabled bool) []replicationView {
	rs := cl.Replication
	var out []replicationView
	for _, id := range rs.sortedJobIDs() {
		j := rs.Jobs[id]
		g := cl.Guests[j.Guest]
		if g == nil || g.Node != node {
			continue
		}
		if j.Props["source"] == "" {
			j.Props["source"] = node
		}
		if src := j.Props["source"]; src != node {
			cl.switchReplicationTarget(j.Guest, node, src)
		}
		remove := j.Props["remove_job"] != ""
		if !remove && j.Props["target"] == node {
			continue
		}
		if !remove && !getDisabled && j.Props["disable"] == "1" {
			continue
		}
		run := rs.Runs[id]
		if run == nil {
			run = &ReplicationRun{}
		}
		out = append(out, replicationView{job: j, guest: g, run: run, nextSync: cl.nextSync(j, run)})
	}
	return out
}

// switchReplicationTarget makes oldTarget the source of all the guest's
// jobs and newTarget the target of the one that targeted oldTarget.
// pve-guest-common src/PVE/ReplicationConfig.pm
// switch_replication_job_target_nolock
func (cl *Cluster) switchReplicationTarget(vmid int, oldTarget, newTarget string) {
	for _, j := range cl.Replication.Jobs {
		if j.Guest != vmid || j.Type != "local" {
			continue
		}
		if j.Props["target"] == oldTarget {
			j.Props["target"] = newTarget
		}
		j.Props["source"] = oldTarget
	}
}

// nextSync is job_status's next_sync: 1 for a job marked for removal; after
// failures the last try plus 5 minutes per failure (30 minutes from the
// fourth on), and never while the target is offline; else the schedule's
// next event after the last try.
// pve-guest-common src/PVE/ReplicationState.pm job_status
func (cl *Cluster) nextSync(j *ReplicationJob, run *ReplicationRun) int64 {
	if j.Props["remove_job"] != "" {
		return 1
	}
	if fc := run.FailCount; fc > 0 {
		if n := cl.Node(j.Props["target"]); n != nil && n.Online {
			wait := int64(30)
			if fc <= 3 {
				wait = int64(5 * fc)
			}
			return run.LastTry + 60*wait
		}
		return 0
	}
	schedule := j.Props["schedule"]
	if schedule == "" {
		schedule = defaultReplicationSchedule
	}
	return replicationNextEvent(schedule, run.LastTry)
}

// replicationPass is run_jobs on every online node: each due job runs
// once, in get_next_job's order (by next sync, then guest, then id).
func (s *Sim) replicationPass(at time.Time) {
	cl := s.cluster
	now := at.Unix()
	for _, n := range cl.Nodes {
		if !n.Online {
			continue
		}
		views := cl.jobStatus(n.Name, false)
		sortReplicationViews(views)
		for _, v := range views {
			if v.nextSync == 0 || now < v.nextSync {
				continue
			}
			s.runReplicationJob(v, n.Name, at)
		}
	}
}

func sortReplicationViews(views []replicationView) {
	for i := 1; i < len(views); i++ {
		for k := i; k > 0 && replicationBefore(views[k], views[k-1]); k-- {
			views[k], views[k-1] = views[k-1], views[k]
		}
	}
}

func replicationBefore(a, b replicationView) bool {
	if a.nextSync != b.nextSync {
		return a.nextSync < b.nextSync
	}
	if a.job.Guest != b.job.Guest {
		return a.job.Guest < b.job.Guest
	}
	return a.job.ID < b.job.ID
}

// replicationRunDuration is how long a simulated run takes (inferred: the
// simulator moves no data).
const replicationRunDuration = 1.5

// runReplicationJob is run_replication for one job on the guest's node:
// the log is rewritten, a job marked for removal leaves the configuration
// (its state too), a sync records last_sync or the failure.
// pve-guest-common src/PVE/Replication.pm run_replication_nolock and
// replicate; src/PVE/ReplicationState.pm record_job_start, record_job_end.
func (s *Sim) runReplicationJob(v replicationView, node string, at time.Time) {
	cl := s.cluster
	rs := cl.Replication
	j := v.job
	start := at.Unix()
	run := rs.Runs[j.ID]
	if run == nil {
		run = &ReplicationRun{}
		rs.Runs[j.ID] = run
	}
	run.LastTry = start
	var lines []string
	logf := func(format string, args ...any) {
		lines = append(lines, fmt.Sprintf("%s %s: %s", at.UTC().Format("2006-01-02 15:04:05"), j.ID, fmt.Sprintf(format, args...)))
	}
	logf("start replication job")
	err := s.replicate(v, node, start, logf)
	if err != nil {
		logf("end replication job with error: %s", trimNL(err.Error()))
	} else {
		logf("end replication job")
	}
	rs.Logs[j.ID] = lines
	if _, still := rs.Jobs[j.ID]; !still {
		// The job removed itself: record_job_end drops its state.
		delete(rs.Runs, j.ID)
		return
	}
	run.Duration, run.HasDuration = replicationRunDuration, true
	if err != nil {
		run.FailCount++
		run.Error = trimNL(err.Error())
		return
	}
	run.LastSync = start
	run.FailCount = 0
	run.Error = ""
}

// replicate is Replication.pm replicate at the level the simulator keeps:
// the checks and the outcome, no data.
// pve-guest-common src/PVE/Replication.pm replicate
func (s *Sim) replicate(v replicationView, node string, start int64, logf func(string, ...any)) error {
	cl := s.cluster
	j := v.job
	run := cl.Replication.Runs[j.ID]
	if start <= run.LastSync {
		return errorf("start time before last sync (%d <= %d) - abort sync", start, run.LastSync)
	}
	vols, err := replicatableVolumes(cl, v.guest)
	if err != nil && j.Props["remove_job"] == "" {
		return err
	}
	logf("guest => %s %d, running => %d", v.guest.kind(), v.guest.VMID, boolInt(v.guest.Status == "running"))
	logf("volumes => %s", joinComma(vols))
	target := j.Props["target"]
	if mode := j.Props["remove_job"]; mode != "" {
		logf("start job removal - mode '%s'", mode)
		if mode == "full" && target != node {
			if err := cl.replicationReach(target); err != nil {
				return err
			}
		}
		delete(cl.Replication.Jobs, j.ID)
		logf("job removed")
		return nil
	}
	if err := cl.replicationReach(target); err != nil {
		return err
	}
	rate := "none"
	if r := j.Props["rate"]; r != "" {
		rate = r + " MByte/s"
	}
	snap := fmt.Sprintf("__replicate_%s_%d__", j.ID, start)
	for _, vol := range vols {
		logf("create snapshot '%s' on %s", snap, vol)
	}
	logf("using secure transmission, rate limit: %s", rate)
	for _, vol := range vols {
		if run.LastSync > 0 {
			logf("incremental sync '%s' (__replicate_%s_%d__ => %s)", vol, j.ID, run.LastSync, snap)
		} else {
			logf("full sync '%s' (%s)", vol, snap)
		}
	}
	return nil
}

// replicationReach is the ssh connection to the target: an offline node
// fails it as ssh does (inferred: ssh's exit code 255 as pve-common
// PVE::Tools::run_command words it; the command line is shortened).
func (cl *Cluster) replicationReach(target string) error {
	n := cl.Node(target)
	if n == nil || !n.Online {
		return errorf("command '/usr/bin/ssh -e none -o 'BatchMode=yes' -o 'HostKeyAlias=%s' root@%s -- pvesr prepare-local-job' failed: exit code 255",
			target, nodeIP(n))
	}
	return nil
}

func nodeIP(n *Node) string {
	if n == nil {
		return ""
	}
	return n.IP
}

func joinComma(v []string) string {
	out := ""
	for i, s := range v {
		if i > 0 {
			out += ","
		}
		out += s
	}
	return out
}

func trimNL(s string) string {
	for len(s) > 0 && s[len(s)-1] == '\n' {
		s = s[:len(s)-1]
	}
	return s
}
