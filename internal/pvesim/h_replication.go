package pvesim

import (
	"net/http"
	"strconv"
	"strings"
)

// Replication job configuration: pve-manager PVE/API2/ReplicationConfig.pm,
// over pve-guest-common src/PVE/ReplicationConfig.pm.
//
// Permissions changed with PVE 9.0 ("add VM.Replicate privilege"): PVE 8.4's
// create, update and delete check Datastore.Allocate on /storage (its
// schema), PVE 9 checks VM.Replicate on the guest in the handler.

func (s *Sim) registerReplicationRoutes() {
	write := route{check: s.replicationWriteCheck84}
	s.handle(http.MethodGet, "/cluster/replication", route{handle: listReplicationJobs})
	s.handle(http.MethodGet, "/cluster/replication/{id}", route{handle: readReplicationJob})
	create := write
	create.handle = s.createReplicationJob
	s.handle(http.MethodPost, "/cluster/replication", create)
	update := write
	update.handle = s.updateReplicationJob
	s.handle(http.MethodPut, "/cluster/replication/{id}", update)
	del := write
	del.handle = s.deleteReplicationJob
	s.handle(http.MethodDelete, "/cluster/replication/{id}", del)
	s.registerReplicationNodeRoutes()
}

// replicationWriteCheck84 is PVE 8.4's schema check ["perm", "/storage",
// ["Datastore.Allocate"]]; PVE 9 has none there (user => 'all').
func (s *Sim) replicationWriteCheck84(c *call) error {
	if s.pve.release != "8.4" {
		return nil
	}
	return c.check("/storage", false, "Datastore.Allocate")
}

// checkReplicate is PVE 9's check of VM.Replicate on the job's guest.
func (s *Sim) checkReplicate(c *call, guest int) error {
	if s.pve.release == "8.4" {
		return nil
	}
	return c.check("/vms/"+strconv.Itoa(guest), false, "VM.Replicate")
}

// jobEntry is a job as the configuration read returns it: its options
// with type, id, guest and jobnum.
func jobEntry(j *ReplicationJob) map[string]any {
	out := map[string]any{"id": j.ID, "type": j.Type, "guest": j.Guest, "jobnum": j.JobNum}
	for k, v := range j.Props {
		switch k {
		case "disable":
			out[k] = boolInt(v == "1")
		case "rate":
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				out[k] = f
				continue
			}
			out[k] = v
		default:
			out[k] = v
		}
	}
	return out
}

// pve-manager PVE/API2/ReplicationConfig.pm index: jobs of guests the
// caller may audit.
func listReplicationJobs(c *call) (any, error) {
	rs := c.cluster.Replication
	out := []map[string]any{}
	for _, id := range rs.sortedJobIDs() {
		j := rs.Jobs[id]
		if !c.can("/vms/"+strconv.Itoa(j.Guest), false, "VM.Audit") {
			continue
		}
		out = append(out, jobEntry(j))
	}
	return out, nil
}

// pve-manager PVE/API2/ReplicationConfig.pm read
func readReplicationJob(c *call) (any, error) {
	rs := c.cluster.Replication
	id := c.str("id")
	j := rs.Jobs[id]
	if j == nil {
		return nil, errorf("no such replication job '%s'", id)
	}
	if err := c.check("/vms/"+strconv.Itoa(j.Guest), false, "VM.Audit"); err != nil {
		return nil, err
	}
	out := jobEntry(j)
	out["digest"] = rs.digest()
	return out, nil
}

// replicationOptions are the local type's options other than target (the
// fixed one) and their storage forms.
var replicationOptions = []string{"comment", "disable", "rate", "schedule", "remove_job", "source"}

// pve-manager PVE/API2/ReplicationConfig.pm create
func (s *Sim) createReplicationJob(c *call) (any, error) {
	cl := c.cluster
	guest, jobnum, id, err := parseReplicationJobID(c.str("id"))
	if err != nil {
		return nil, err
	}
	if err := s.checkReplicate(c, guest); err != nil {
		return nil, err
	}
	g := cl.Guests[guest]
	if g == nil {
		return nil, errorf("Guest '%d' does not exist.", guest)
	}
	target := c.str("target")
	if cl.Node(target) == nil {
		return nil, errorf("Target '%s' does not exist.", target)
	}
	source := g.Node
	if src, ok := c.param("source"); ok && src != source {
		return nil, errorf("Source '%s' does not match current node of guest '%d' (%s)", src, guest, source)
	}
	if target == source {
		return nil, errorf("Source and target must not be identical")
	}
	vols, err := replicatableVolumes(cl, g)
	if err != nil {
		return nil, err
	}
	if len(vols) == 0 {
		return nil, errorf("No replicatable volumes found")
	}
	rs := cl.Replication
	if rs.Jobs[id] != nil {
		return nil, errorf("replication job '%s' already exists", id)
	}
	j := &ReplicationJob{ID: id, Guest: guest, JobNum: jobnum, Type: c.str("type"), Props: map[string]string{
		"target": target, "source": source,
	}}
	for _, k := range replicationOptions {
		if v, ok := c.param(k); ok {
			j.Props[k] = v
		}
	}
	rs.Jobs[id] = j
	if err := rs.checkUniqueTargets(); err != nil {
		delete(rs.Jobs, id)
		return nil, err
	}
	return nil, nil
}

// pve-manager PVE/API2/ReplicationConfig.pm update: the digest is the
// whole replication.cfg's; delete refuses unknown, required and fixed
// options.
func (s *Sim) updateReplicationJob(c *call) (any, error) {
	rs := c.cluster.Replication
	guest, _, id, err := parseReplicationJobID(c.str("id"))
	if err != nil {
		return nil, err
	}
	if err := s.checkReplicate(c, guest); err != nil {
		return nil, err
	}
	if err := assertFirewallDigest(rs.digest(), c.str("digest")); err != nil {
		return nil, err
	}
	j := rs.Jobs[id]
	if j == nil {
		return nil, errorf("no such job '%s'", id)
	}
	props := copyMap(j.Props)
	for _, k := range replicationOptions {
		if v, ok := c.param(k); ok {
			props[k] = v
		}
	}
	if del := c.str("delete"); del != "" {
		for _, k := range strings.FieldsFunc(del, func(r rune) bool { return r == ',' || r == ';' || r == ' ' || r == 0 }) {
			switch {
			case k == "target":
				return nil, errorf("unable to delete required option '%s'", k)
			case !containsString(replicationOptions, k):
				return nil, errorf("no such option '%s'", k)
			}
			delete(props, k)
		}
	}
	j.Props = props
	return nil, nil
}

// pve-manager PVE/API2/ReplicationConfig.pm delete: force drops the
// section at once without any cleanup (a missing job is no error then);
// otherwise the job is marked for removal ('full': also the replicated
// volumes on the target; 'local' with keep) and the next run of the job
// removes it (replication_run.go).
func (s *Sim) deleteReplicationJob(c *call) (any, error) {
	rs := c.cluster.Replication
	guest, _, id, err := parseReplicationJobID(c.str("id"))
	if err != nil {
		return nil, err
	}
	if err := s.checkReplicate(c, guest); err != nil {
		return nil, err
	}
	if c.boolParam("force") {
		if c.boolParam("keep") {
			return nil, paramError(map[string]string{"keep": "conflicts with parameter 'force'"})
		}
		delete(rs.Jobs, id)
		delete(rs.Runs, id)
		return nil, nil
	}
	j := rs.Jobs[id]
	if j == nil {
		return nil, errorf("no such job '%s'", id)
	}
	if !c.boolParam("keep") && j.Type == "local" {
		j.Props["remove_job"] = "full"
	} else {
		j.Props["remove_job"] = "local"
	}
	return nil, nil
}
