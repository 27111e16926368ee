package pvesim

import (
	"net/http"
	"strconv"
)

// A node's replication status, log and schedule_now: pve-manager
// PVE/API2/Replication.pm (status, index, job_status, read_job_log,
// schedule_now), over pve-guest-common src/PVE/ReplicationState.pm.

func (s *Sim) registerReplicationNodeRoutes() {
	s.handle(http.MethodGet, "/nodes/{node}/replication", route{handle: listReplicationStatus})
	s.handle(http.MethodGet, "/nodes/{node}/replication/{id}", route{handle: func(*call) (any, error) {
		return []map[string]any{{"name": "schedule_now"}, {"name": "log"}, {"name": "status"}}, nil
	}})
	s.handle(http.MethodGet, "/nodes/{node}/replication/{id}/status", route{handle: readReplicationStatus})
	s.handle(http.MethodGet, "/nodes/{node}/replication/{id}/log", route{handle: readReplicationLog})
	s.handle(http.MethodPost, "/nodes/{node}/replication/{id}/schedule_now", route{
		check: s.replicationWriteCheck84, handle: s.scheduleReplicationNow,
	})
}

// statusEntry is Replication.pm $extract_job_status: the job's options
// with its state's last_sync, last_try, fail_count, error, duration, plus
// next_sync and vmtype from job_status.
func statusEntry(v replicationView) map[string]any {
	out := jobEntry(v.job)
	out["vmtype"] = string(v.guest.Type)
	out["next_sync"] = v.nextSync
	out["last_sync"] = v.run.LastSync
	out["last_try"] = v.run.LastTry
	out["fail_count"] = v.run.FailCount
	if v.run.Error != "" {
		out["error"] = v.run.Error
	}
	if v.run.HasDuration {
		out["duration"] = v.run.Duration
	}
	return out
}

// pve-manager PVE/API2/Replication.pm status
func listReplicationStatus(c *call) (any, error) {
	out := []map[string]any{}
	guest, filter := c.param("guest")
	for _, v := range c.cluster.jobStatus(c.str("node"), true) {
		if filter && strconv.Itoa(v.job.Guest) != guest {
			continue
		}
		if !c.can("/vms/"+strconv.Itoa(v.job.Guest), false, "VM.Audit") {
			continue
		}
		out = append(out, statusEntry(v))
	}
	return out, nil
}

// pve-manager PVE/API2/Replication.pm job_status: only a job this node
// runs has a status here.
func readReplicationStatus(c *call) (any, error) {
	id := c.str("id")
	for _, v := range c.cluster.jobStatus(c.str("node"), true) {
		if v.job.ID != id {
			continue
		}
		if err := c.check("/vms/"+strconv.Itoa(v.job.Guest), false, "VM.Audit"); err != nil {
			return nil, err
		}
		return statusEntry(v), nil
	}
	return nil, errorf("no such replication job '%s'", id)
}

// pve-manager PVE/API2/Replication.pm read_job_log: VM.Audit on the guest
// or Sys.Audit on the node; lines numbered from 1 (PVE::Tools
// dump_logfile: limit 0 reads to the end), with the total.
func readReplicationLog(c *call) (any, error) {
	id := c.str("id")
	rs := c.cluster.Replication
	j := rs.Jobs[id]
	if j == nil {
		return nil, errorf("no such replication job '%s'", id)
	}
	if !c.can("/vms/"+strconv.Itoa(j.Guest), false, "VM.Audit") && !c.can("/nodes/"+c.str("node"), false, "Sys.Audit") {
		return nil, permError("")
	}
	lines, ran := rs.Logs[id]
	if !ran {
		// No run yet: the log file does not exist.
		total := 1
		c.total = &total
		return []map[string]any{{"n": 1, "t": "unable to open file - No such file or directory"}}, nil
	}
	start := c.intParam("start", 0)
	limit := c.intParam("limit", 50)
	out := []map[string]any{}
	for i := start; i < len(lines) && (limit == 0 || len(out) < limit); i++ {
		out = append(out, map[string]any{"n": i + 1, "t": lines[i]})
	}
	total := len(lines)
	c.total = &total
	return out, nil
}

// pve-manager PVE/API2/Replication.pm schedule_now over
// ReplicationState.pm schedule_job_now: a job that has run before gets
// last_try 0, so its next sync is due at the scheduler's next pass; a
// job without state is left alone (it is due already).
func (s *Sim) scheduleReplicationNow(c *call) (any, error) {
	guest, _, id, err := parseReplicationJobID(c.str("id"))
	if err != nil {
		return nil, err
	}
	if err := s.checkReplicate(c, guest); err != nil {
		return nil, err
	}
	rs := c.cluster.Replication
	if rs.Jobs[id] == nil {
		return nil, errorf("no such replication job '%s'", id)
	}
	if run := rs.Runs[id]; run != nil {
		run.LastTry = 0
	}
	return nil, nil
}
