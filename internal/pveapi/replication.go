package pveapi

import (
	"context"
	"net/url"
	"strconv"
	"strings"
)

// Storage replication jobs: /cluster/replication (pve-manager
// PVE/API2/ReplicationConfig.pm) and a node's job status
// (PVE/API2/Replication.pm).

// ReplicationJob is a job of /cluster/replication as PVE stores it.
type ReplicationJob struct {
	ID       string      `json:"id"`
	Type     string      `json:"type"`
	Guest    IntOrString `json:"guest"`
	JobNum   IntOrString `json:"jobnum"`
	Target   string      `json:"target"`
	Source   string      `json:"source,omitempty"`
	Schedule string      `json:"schedule,omitempty"`
	// Rate and Disable are nil when the job does not set them.
	Rate    *FloatOrString `json:"rate,omitempty"`
	Comment string         `json:"comment,omitempty"`
	Disable *Bool01        `json:"disable,omitempty"`
	// RemoveJob is set on a job marked for removal ("local" or "full"):
	// the job's next run removes it.
	RemoveJob string `json:"remove_job,omitempty"`
	// Digest is replication.cfg's digest (the whole file's).
	Digest string `json:"digest,omitempty"`
}

// ReplicationStatus is a job's state on the guest's node.
type ReplicationStatus struct {
	ID        string        `json:"id"`
	LastSync  IntOrString   `json:"last_sync"`
	LastTry   IntOrString   `json:"last_try"`
	NextSync  IntOrString   `json:"next_sync"`
	FailCount IntOrString   `json:"fail_count"`
	Duration  FloatOrString `json:"duration,omitempty"`
	Error     string        `json:"error,omitempty"`
	RemoveJob string        `json:"remove_job,omitempty"`
}

func replicationPath(id string) string { return "/cluster/replication/" + url.PathEscape(id) }

// ReplicationJobs lists the jobs of the guests the caller may audit.
func (c *Client) ReplicationJobs(ctx context.Context) ([]ReplicationJob, error) {
	var out []ReplicationJob
	if err := c.Get(ctx, "/cluster/replication", nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// GetReplicationJob reads one job. A missing job is an error
// IsNoSuchReplicationJob recognises.
func (c *Client) GetReplicationJob(ctx context.Context, id string) (*ReplicationJob, error) {
	var out ReplicationJob
	if err := c.Get(ctx, replicationPath(id), nil, &out); err != nil {
		return nil, err
	}
	if out.ID == "" {
		out.ID = id
	}
	return &out, nil
}

// CreateReplicationJob creates job id (type local) to target with the
// other options in params (schedule, rate, comment, disable).
func (c *Client) CreateReplicationJob(ctx context.Context, id, target string, params url.Values) error {
	form := url.Values{"id": {id}, "type": {"local"}, "target": {target}}
	for k, v := range params {
		form[k] = v
	}
	return c.Post(ctx, "/cluster/replication", form, nil)
}

// UpdateReplicationJob sets params and deletes the options in remove. A
// non-empty digest makes PVE refuse the change when replication.cfg
// changed since it was read (IsReplicationConfigChanged).
func (c *Client) UpdateReplicationJob(ctx context.Context, id string, params url.Values, remove []string, digest string) error {
	form := url.Values{}
	for k, v := range params {
		form[k] = v
	}
	if len(remove) > 0 {
		form.Set("delete", strings.Join(remove, ","))
	}
	if digest != "" {
		form.Set("digest", digest)
	}
	return c.Put(ctx, replicationPath(id), form, nil)
}

// DeleteReplicationJob marks a job for removal: its next run removes the
// replication snapshots and, unless keep, the replicated volumes on the
// target, then the job itself. force removes the job from the
// configuration at once without any cleanup.
func (c *Client) DeleteReplicationJob(ctx context.Context, id string, keep, force bool) error {
	query := url.Values{}
	if keep {
		query.Set("keep", FormBool(true))
	}
	if force {
		query.Set("force", FormBool(true))
	}
	return c.Delete(ctx, replicationPath(id), query, nil)
}

// ReplicationJobStatus reads a job's state on node, the guest's node (only
// that node reports it).
func (c *Client) ReplicationJobStatus(ctx context.Context, node, id string) (*ReplicationStatus, error) {
	var out ReplicationStatus
	if err := c.Get(ctx, "/nodes/"+url.PathEscape(node)+"/replication/"+url.PathEscape(id)+"/status", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ScheduleReplicationNow makes a job due at the scheduler's next pass.
func (c *Client) ScheduleReplicationNow(ctx context.Context, node, id string) error {
	return c.Post(ctx, "/nodes/"+url.PathEscape(node)+"/replication/"+url.PathEscape(id)+"/schedule_now", nil, nil)
}

var (
	noSuchReplicationJob = []accessRefusal{
		// pve-manager PVE/API2/ReplicationConfig.pm read, and
		// PVE/API2/Replication.pm job_status, read_job_log, schedule_now.
		refusalText(`no such replication job '[^']*'`),
		// pve-manager PVE/API2/ReplicationConfig.pm update and delete.
		refusalText(`no such job '[^']*'`),
	}
	replicationJobExists = []accessRefusal{
		// pve-manager PVE/API2/ReplicationConfig.pm create.
		refusalText(`replication job '[^']*' already exists`),
	}
	replicationConfigChanged = []accessRefusal{
		// pve-common src/PVE/SectionConfig.pm assert_if_modified.
		refusalText(`detected modified configuration - file changed by other user\? Try again\.`),
	}
)

// IsNoSuchReplicationJob reports PVE's answer for a job that does not
// exist.
func IsNoSuchReplicationJob(err error) bool { return matchesRefusal(err, noSuchReplicationJob) }

// IsReplicationJobExists reports PVE's refusal to create a job whose id
// is taken (a job marked for removal still holds its id until its run).
func IsReplicationJobExists(err error) bool { return matchesRefusal(err, replicationJobExists) }

// IsReplicationConfigChanged reports PVE's refusal of an update whose
// digest no longer matches replication.cfg.
func IsReplicationConfigChanged(err error) bool {
	return matchesRefusal(err, replicationConfigChanged)
}

// FormatReplicationRate writes a rate in MB/s as PVE's number parameter
// takes it.
func FormatReplicationRate(rate float64) string {
	return strconv.FormatFloat(rate, 'f', -1, 64)
}

// WaitReplicationJobGone waits until job id no longer exists, as after
// DeleteReplicationJob: the job's next run on the guest's node (PVE's
// scheduler runs due jobs every minute) removes it. last is the job as
// last read, still marked for removal, when ctx ends first.
func (c *Client) WaitReplicationJobGone(ctx context.Context, id string) (last *ReplicationJob, err error) {
	for {
		job, err := c.GetReplicationJob(ctx, id)
		if IsNoSuchReplicationJob(err) {
			return nil, nil
		}
		if err != nil {
			return last, err
		}
		last = job
		if err := sleepCtx(ctx, 4*c.pollInterval); err != nil {
			return last, err
		}
	}
}
