package pveapi

import (
	"context"
	"net/url"
	"strconv"
)

// ActiveTask is a task still running on a node.
type ActiveTask struct {
	UPID string `json:"upid"`
	// Type is the task type, such as qmcreate or vzcreate.
	Type string `json:"type"`
	// ID is the task's object, a VMID for guest tasks.
	ID string `json:"id"`
	// User started the task: USER@REALM, or USER@REALM!TOKENID for a token.
	User string `json:"user"`
}

// ActiveTasks lists the tasks running on node for the guest vmid.
func (c *Client) ActiveTasks(ctx context.Context, node string, vmid int) ([]ActiveTask, error) {
	query := url.Values{"source": {"active"}, "vmid": {strconv.Itoa(vmid)}}
	var tasks []ActiveTask
	if err := c.Get(ctx, "/nodes/"+url.PathEscape(node)+"/tasks", query, &tasks); err != nil {
		return nil, err
	}
	return tasks, nil
}
