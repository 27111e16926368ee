package pveapi

import "context"

// HAStatusEntry is one entry of GET /cluster/ha/status/current; which
// fields are set depends on Type: quorum, master, lrm, service and (PVE
// 9) fencing.
type HAStatusEntry struct {
	ID           string       `json:"id"`
	Type         string       `json:"type"`
	Node         string       `json:"node,omitempty"`
	Status       string       `json:"status,omitempty"`
	Quorate      *Bool01      `json:"quorate,omitempty"`
	Timestamp    IntOrString  `json:"timestamp,omitempty"`
	SID          string       `json:"sid,omitempty"`
	State        string       `json:"state,omitempty"`
	CRMState     string       `json:"crm_state,omitempty"`
	RequestState string       `json:"request_state,omitempty"`
	Group        string       `json:"group,omitempty"`
	Comment      string       `json:"comment,omitempty"`
	MaxRestart   *IntOrString `json:"max_restart,omitempty"`
	MaxRelocate  *IntOrString `json:"max_relocate,omitempty"`
	Failback     *Bool01      `json:"failback,omitempty"`
	ArmedState   string       `json:"armed-state,omitempty"`
	ResourceMode string       `json:"resource_mode,omitempty"`
}

// HAStatus lists GET /cluster/ha/status/current.
func (c *Client) HAStatus(ctx context.Context) ([]HAStatusEntry, error) {
	var out []HAStatusEntry
	if err := c.Get(ctx, "/cluster/ha/status/current", nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// HAManagerStatus is GET /cluster/ha/status/manager_status: the CRM's
// manager status (empty before the HA stack first became active) and
// each node's LRM status.
type HAManagerStatus struct {
	ManagerStatus struct {
		MasterNode    string                   `json:"master_node,omitempty"`
		Timestamp     IntOrString              `json:"timestamp,omitempty"`
		NodeStatus    map[string]string        `json:"node_status,omitempty"`
		ServiceStatus map[string]HAServiceStat `json:"service_status,omitempty"`
	} `json:"manager_status"`
	Quorum struct {
		Node    string `json:"node"`
		Quorate Bool01 `json:"quorate"`
	} `json:"quorum"`
	LRMStatus map[string]HALRMStat `json:"lrm_status,omitempty"`
}

// HAServiceStat is one service in the manager status.
type HAServiceStat struct {
	State   string `json:"state"`
	Node    string `json:"node"`
	Target  string `json:"target,omitempty"`
	Running Bool01 `json:"running,omitempty"`
}

// HALRMStat is one node's LRM status.
type HALRMStat struct {
	Mode      string      `json:"mode,omitempty"`
	State     string      `json:"state,omitempty"`
	Timestamp IntOrString `json:"timestamp,omitempty"`
}

// GetHAManagerStatus reads GET /cluster/ha/status/manager_status.
func (c *Client) GetHAManagerStatus(ctx context.Context) (*HAManagerStatus, error) {
	var out HAManagerStatus
	if err := c.Get(ctx, "/cluster/ha/status/manager_status", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
