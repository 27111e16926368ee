package pveapi

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
)

// Version is GET /version.
type Version struct {
	Version string `json:"version"` // e.g. 9.1.1
	Release string `json:"release"` // e.g. 9.1
	RepoID  string `json:"repoid"`
	Console string `json:"console,omitempty"`
}

// Version returns the PVE version of the endpoint.
func (c *Client) Version(ctx context.Context) (*Version, error) {
	var v Version
	if err := c.Get(ctx, "/version", nil, &v); err != nil {
		return nil, err
	}
	return &v, nil
}

// Resource is one entry of GET /cluster/resources. Which fields are set
// depends on Type (qemu, lxc, node, storage, pool, sdn, network).
type Resource struct {
	ID         string         `json:"id"`
	Type       string         `json:"type"`
	Node       string         `json:"node,omitempty"`
	VMID       IntOrString    `json:"vmid,omitempty"`
	Name       StringOrNumber `json:"name,omitempty"`
	Status     string         `json:"status,omitempty"`
	Lock       string         `json:"lock,omitempty"`
	Template   Bool01         `json:"template,omitempty"`
	Pool       string         `json:"pool,omitempty"`
	Tags       StringOrNumber `json:"tags,omitempty"`
	HAState    string         `json:"hastate,omitempty"`
	Storage    string         `json:"storage,omitempty"`
	Content    string         `json:"content,omitempty"`
	PluginType string         `json:"plugintype,omitempty"`
	Shared     Bool01         `json:"shared,omitempty"`
	Level      string         `json:"level,omitempty"`
	CPU        FloatOrString  `json:"cpu,omitempty"`
	MaxCPU     FloatOrString  `json:"maxcpu,omitempty"`
	Mem        IntOrString    `json:"mem,omitempty"`
	MaxMem     IntOrString    `json:"maxmem,omitempty"`
	Disk       IntOrString    `json:"disk,omitempty"`
	MaxDisk    IntOrString    `json:"maxdisk,omitempty"`
	Uptime     IntOrString    `json:"uptime,omitempty"`
}

// IsGuest reports a qemu or lxc entry.
func (r Resource) IsGuest() bool { return r.Type == "qemu" || r.Type == "lxc" }

// InProgress reports a guest that is being created, cloned, migrated or
// backed up: it carries a lock (other than "suspended") or, mid-clone, no
// name at all (W10, W11). Such an entry is never "absent".
func (r Resource) InProgress() bool {
	if !r.IsGuest() {
		return false
	}
	return (r.Lock != "" && r.Lock != lockSuspended) || r.Name == ""
}

// ClusterResources lists GET /cluster/resources; typ filters by "vm",
// "storage", "node" or "sdn" and may be empty.
func (c *Client) ClusterResources(ctx context.Context, typ string) ([]Resource, error) {
	var query url.Values
	if typ != "" {
		query = url.Values{"type": {typ}}
	}
	var out []Resource
	if err := c.Get(ctx, "/cluster/resources", query, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// ClusterStatusEntry is one entry of GET /cluster/status: one "cluster"
// entry (absent on a standalone node) and one per node.
type ClusterStatusEntry struct {
	ID      string      `json:"id"`
	Name    string      `json:"name"`
	Type    string      `json:"type"`
	IP      string      `json:"ip,omitempty"`
	Level   string      `json:"level,omitempty"`
	Local   Bool01      `json:"local,omitempty"`
	NodeID  IntOrString `json:"nodeid,omitempty"`
	Online  Bool01      `json:"online,omitempty"`
	Quorate Bool01      `json:"quorate,omitempty"`
	Version IntOrString `json:"version,omitempty"`
	Nodes   IntOrString `json:"nodes,omitempty"`
}

// ClusterStatus returns GET /cluster/status.
func (c *Client) ClusterStatus(ctx context.Context) ([]ClusterStatusEntry, error) {
	var out []ClusterStatusEntry
	if err := c.Get(ctx, "/cluster/status", nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// NextID returns the VMID PVE proposes. It only proposes: two creators can
// get the same id (W13).
func (c *Client) NextID(ctx context.Context) (int, error) {
	var id IntOrString
	if err := c.Get(ctx, "/cluster/nextid", nil, &id); err != nil {
		return 0, err
	}
	return int(id), nil
}

// IsVMIDFree asks GET /cluster/nextid?vmid=N, which answers 400 with
// errors.vmid "VM N already exists" when N is taken by a VM or container.
// Any other error is returned as is.
func (c *Client) IsVMIDFree(ctx context.Context, vmid int) (bool, error) {
	err := c.Get(ctx, "/cluster/nextid", url.Values{"vmid": {strconv.Itoa(vmid)}}, nil)
	if err == nil {
		return true, nil
	}
	if apiErr, ok := AsError(err); ok && apiErr.StatusCode == 400 {
		if firstLine(apiErr.Errors["vmid"]) == fmt.Sprintf("VM %d already exists", vmid) {
			return false, nil
		}
	}
	return false, err
}
