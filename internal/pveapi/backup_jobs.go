package pveapi

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// BackupJob is one cluster backup job (/cluster/backup): its id, its
// options in the form a write sends (wire.BackupJobOptionsFromAPI) and,
// in the listing only, when it runs next (Unix time, 0 when unknown).
type BackupJob struct {
	ID      string
	Options map[string]string
	NextRun int64
}

func backupJobFromAPI(raw map[string]any) BackupJob {
	j := BackupJob{Options: wire.BackupJobOptionsFromAPI(raw)}
	if id, ok := raw["id"].(string); ok {
		j.ID = id
	}
	if n, ok := raw["next-run"]; ok {
		// W5: a number or a numeric string.
		if v, err := strconv.ParseInt(fmt.Sprint(n), 10, 64); err == nil {
			j.NextRun = v
		}
	}
	return j
}

// BackupJobs lists the cluster's backup jobs with their next run.
func (c *Client) BackupJobs(ctx context.Context) ([]BackupJob, error) {
	var raw []map[string]any
	if err := c.Get(ctx, "/cluster/backup", nil, &raw); err != nil {
		return nil, err
	}
	out := make([]BackupJob, 0, len(raw))
	for _, r := range raw {
		out = append(out, backupJobFromAPI(r))
	}
	return out, nil
}

// GetBackupJob reads one job. found is false only for PVE's answer for a
// missing job: 400 with "No such job 'ID'" on the id parameter
// (pve-manager PVE/API2/Backup.pm read_job).
func (c *Client) GetBackupJob(ctx context.Context, id string) (job BackupJob, found bool, err error) {
	var raw map[string]any
	if err := c.Get(ctx, "/cluster/backup/"+url.PathEscape(id), nil, &raw); err != nil {
		if IsBackupJobNotFound(err) {
			return BackupJob{}, false, nil
		}
		return BackupJob{}, false, err
	}
	return backupJobFromAPI(raw), true, nil
}

// IsBackupJobNotFound reports PVE's answers for a job that does not exist:
// read_job's and delete_job's 400 "No such job 'ID'" on id, and
// update_job's 500 "no such vzdump job".
func IsBackupJobNotFound(err error) bool {
	apiErr, ok := AsError(err)
	if !ok {
		return false
	}
	switch apiErr.StatusCode {
	case http.StatusBadRequest:
		return strings.HasPrefix(apiErr.Errors["id"], "No such job ")
	case http.StatusInternalServerError:
		return firstLine(apiErr.Message) == "no such vzdump job"
	}
	return false
}

// CreateBackupJob creates job id with the options (POST /cluster/backup).
func (c *Client) CreateBackupJob(ctx context.Context, id string, options map[string]string) error {
	form := url.Values{"id": {id}}
	for k, v := range options {
		form.Set(k, v)
	}
	return c.Post(ctx, "/cluster/backup", form, nil)
}

// UpdateBackupJob applies a delta to job id (PUT /cluster/backup/{id}).
// An empty delta sends nothing: PVE refuses it ("no options specified").
func (c *Client) UpdateBackupJob(ctx context.Context, id string, delta *wire.ConfigDelta) error {
	if delta.IsEmpty() {
		return nil
	}
	return c.Put(ctx, "/cluster/backup/"+url.PathEscape(id), delta.Values(), nil)
}

// DeleteBackupJob deletes job id; a job that is already gone is not an
// error.
func (c *Client) DeleteBackupJob(ctx context.Context, id string) error {
	err := c.Delete(ctx, "/cluster/backup/"+url.PathEscape(id), nil, nil)
	if err != nil && IsBackupJobNotFound(err) {
		return nil
	}
	return err
}

// UnbackedGuest is one entry of GET /cluster/backup-info/not-backed-up.
type UnbackedGuest struct {
	VMID IntOrString    `json:"vmid"`
	Name StringOrNumber `json:"name,omitempty"`
	Type string         `json:"type"`
}

// GuestsNotBackedUp lists the guests no backup job covers.
func (c *Client) GuestsNotBackedUp(ctx context.Context) ([]UnbackedGuest, error) {
	var out []UnbackedGuest
	if err := c.Get(ctx, "/cluster/backup-info/not-backed-up", nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}
