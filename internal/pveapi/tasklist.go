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
	// User started the task, USER@REALM; TokenID names the user's API
	// token when one did.
	User    string `json:"user"`
	TokenID string `json:"tokenid"`
}

// Principal is who started the task as Client.Principal names it:
// USER@REALM, or USER@REALM!TOKENID.
func (t ActiveTask) Principal() string {
	if t.TokenID == "" {
		return t.User
	}
	return t.User + "!" + t.TokenID
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
