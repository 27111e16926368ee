package pveapi

import (
	"context"
	"encoding/json"
	"net/url"
	"regexp"
	"strconv"
)

// SDN fabrics and their nodes (PVE 9; pve-network
// src/PVE/API2/Network/SDN/Fabrics/Fabric.pm, FabricNode.pm). GET of one
// fabric or node reads the staged configuration (fabrics.cfg), so it is
// what the next SDN apply makes running; an object whose deletion is
// staged is missing there.

// SDNFabric is one fabric: its protocol and its options (ip_prefix,
// ip6_prefix, hello_interval, csnp_interval, area) as strings.
type SDNFabric struct {
	ID       string
	Protocol string
	Options  map[string]string
}

// SDNFabricNode is one node of a fabric.
type SDNFabricNode struct {
	Fabric, Node, Protocol string
	IP, IP6                string
	// Interfaces are PVE's interface property strings.
	Interfaces []string
}

// sdnFabricMissingPattern is the Rust config's answer for a missing fabric
// or node (proxmox-ve-config src/sdn/fabric/mod.rs FabricConfigError:
// "fabric 'ID' does not exist in configuration", "node 'N' does not exist
// in fabric 'F'"), after the API's "... failed: " prefix on writes.
var sdnFabricMissingPattern = regexp.MustCompile(`(fabric '[^']*' does not exist in configuration|node '[^']*' does not exist in fabric '[^']*')`)

// IsSDNFabricMissing reports PVE's error for a missing fabric or fabric
// node.
func IsSDNFabricMissing(err error) bool {
	apiErr, ok := AsError(err)
	return ok && apiErr.StatusCode == 500 && sdnFabricMissingPattern.MatchString(firstLine(apiErr.Message))
}

func sdnFabricPath(id string) string { return "/cluster/sdn/fabrics/fabric/" + url.PathEscape(id) }
func sdnFabricNodesPath(fabric string) string {
	return "/cluster/sdn/fabrics/node/" + url.PathEscape(fabric)
}
func sdnFabricNodePath(fabric, node string) string {
	return sdnFabricNodesPath(fabric) + "/" + url.PathEscape(node)
}

// sdnFabricOptionKeys are a fabric's options besides id and protocol.
var sdnFabricOptionKeys = []string{"ip_prefix", "ip6_prefix", "hello_interval", "csnp_interval", "area"}

// GetSDNFabric reads the staged fabric id; found is false when there is
// none (or its deletion is staged).
func (c *Client) GetSDNFabric(ctx context.Context, id string) (f SDNFabric, found bool, err error) {
	var raw map[string]any
	if err := c.Get(ctx, sdnFabricPath(id), nil, &raw); err != nil {
		if IsSDNFabricMissing(err) {
			return SDNFabric{}, false, nil
		}
		return SDNFabric{}, false, err
	}
	f = SDNFabric{ID: id, Options: map[string]string{}}
	f.Protocol, _ = raw["protocol"].(string)
	for _, k := range sdnFabricOptionKeys {
		if v, ok := raw[k]; ok && v != nil {
			f.Options[k] = sdnText(v)
		}
	}
	return f, true, nil
}

// sdnText is a JSON scalar as the form would carry it.
func sdnText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		if x {
			return "1"
		}
		return "0"
	}
	return ""
}

// CreateSDNFabric stages fabric id of protocol with options.
func (c *Client) CreateSDNFabric(ctx context.Context, id, protocol string, options map[string]string, lockToken string) error {
	form := url.Values{"id": {id}, "protocol": {protocol}}
	for k, v := range options {
		form.Set(k, v)
	}
	return c.Post(ctx, "/cluster/sdn/fabrics/fabric", formWithSDNLock(form, lockToken), nil)
}

// UpdateSDNFabric stages a change of fabric id: the options set, the ones
// in del removed. PVE needs the fabric's protocol with every update.
func (c *Client) UpdateSDNFabric(ctx context.Context, id, protocol string, set map[string]string, del []string, lockToken string) error {
	form := url.Values{"protocol": {protocol}}
	for k, v := range set {
		form.Set(k, v)
	}
	for _, k := range del {
		form.Add("delete", k)
	}
	return c.Put(ctx, sdnFabricPath(id), formWithSDNLock(form, lockToken), nil)
}

// DeleteSDNFabric stages the deletion of fabric id (with its nodes). A
// fabric already gone is not an error.
func (c *Client) DeleteSDNFabric(ctx context.Context, id, lockToken string) error {
	err := c.Delete(ctx, sdnFabricPath(id), formWithSDNLock(url.Values{}, lockToken), nil)
	if err != nil && IsSDNFabricMissing(err) {
		return nil
	}
	return err
}

// GetSDNFabricNode reads the staged node of fabric; found is false when
// there is none.
func (c *Client) GetSDNFabricNode(ctx context.Context, fabric, node string) (n SDNFabricNode, found bool, err error) {
	var raw map[string]any
	if err := c.Get(ctx, sdnFabricNodePath(fabric, node), nil, &raw); err != nil {
		if IsSDNFabricMissing(err) {
			return SDNFabricNode{}, false, nil
		}
		return SDNFabricNode{}, false, err
	}
	n = SDNFabricNode{Fabric: fabric, Node: node}
	n.Protocol, _ = raw["protocol"].(string)
	n.IP, _ = raw["ip"].(string)
	n.IP6, _ = raw["ip6"].(string)
	if list, ok := raw["interfaces"].([]any); ok {
		for _, item := range list {
			if s, ok := item.(string); ok {
				n.Interfaces = append(n.Interfaces, s)
			}
		}
	}
	return n, true, nil
}

// SDNFabricNodeWrite is what a create or update of a fabric node sends.
type SDNFabricNodeWrite struct {
	Protocol string
	// Set are ip and ip6 to set.
	Set map[string]string
	// Interfaces replace the node's interfaces when not nil.
	Interfaces []string
	// Delete lists ip, ip6 or interfaces to remove (updates only).
	Delete []string
}

func (w SDNFabricNodeWrite) form() url.Values {
	form := url.Values{"protocol": {w.Protocol}}
	for k, v := range w.Set {
		form.Set(k, v)
	}
	for _, s := range w.Interfaces {
		form.Add("interfaces", s)
	}
	for _, k := range w.Delete {
		form.Add("delete", k)
	}
	return form
}

// CreateSDNFabricNode stages node of fabric.
func (c *Client) CreateSDNFabricNode(ctx context.Context, fabric, node string, w SDNFabricNodeWrite, lockToken string) error {
	form := w.form()
	form.Set("node_id", node)
	return c.Post(ctx, sdnFabricNodesPath(fabric), formWithSDNLock(form, lockToken), nil)
}

// UpdateSDNFabricNode stages a change of node of fabric.
func (c *Client) UpdateSDNFabricNode(ctx context.Context, fabric, node string, w SDNFabricNodeWrite, lockToken string) error {
	return c.Put(ctx, sdnFabricNodePath(fabric, node), formWithSDNLock(w.form(), lockToken), nil)
}

// DeleteSDNFabricNode stages the deletion of node of fabric. A node (or
// fabric) already gone is not an error.
func (c *Client) DeleteSDNFabricNode(ctx context.Context, fabric, node, lockToken string) error {
	err := c.Delete(ctx, sdnFabricNodePath(fabric, node), formWithSDNLock(url.Values{}, lockToken), nil)
	if err != nil && IsSDNFabricMissing(err) {
		return nil
	}
	return err
}

// SDNFabricsPending lists the fabrics and fabric nodes with a staged
// change (GET /cluster/sdn/fabrics/all?pending=1; pve-network
// src/PVE/API2/Network/SDN/Fabrics.pm list_all runs SDN.pm pending_config
// over the fabrics and over the nodes keyed by section, so a node in two
// fabrics is listed twice, unlike /fabrics/node). Their sdn_ids are
// "fabric/<id>" and "fabric-node/<fabric>/<node>". PVE 8.4 has no fabrics:
// its 501 gives an empty list.
func (c *Client) SDNFabricsPending(ctx context.Context) ([]SDNEntry, error) {
	var raw struct {
		Fabrics []map[string]any `json:"fabrics"`
		Nodes   []map[string]any `json:"nodes"`
	}
	if err := c.Get(ctx, "/cluster/sdn/fabrics/all", pendingQuery, &raw); err != nil {
		if apiErr, ok := AsError(err); ok && apiErr.StatusCode == 501 {
			return nil, nil
		}
		return nil, err
	}
	var out []SDNEntry
	for _, item := range raw.Fabrics {
		e := sdnEntry(SDNKindFabric, "id", item)
		e.ID = sdnPendingKey(item, "id")
		if e.IsPending() {
			out = append(out, e)
		}
	}
	for _, item := range raw.Nodes {
		e := sdnEntry(SDNKindFabricNode, "node_id", item)
		e.ID = sdnPendingKey(item, "fabric_id") + "/" + sdnPendingKey(item, "node_id")
		if e.IsPending() {
			out = append(out, e)
		}
	}
	return out, nil
}

// sdnPendingKey is key of a pending-view entry: at top level, or only
// under pending for a new object (SDN.pm pending_config keeps only type
// and vnet at top level; Fabrics.pm list_all: "fabric_id //
// pending->fabric_id").
func sdnPendingKey(item map[string]any, key string) string {
	if s, ok := item[key].(string); ok && s != "" {
		return s
	}
	pending, _ := item["pending"].(map[string]any)
	s, _ := pending[key].(string)
	return s
}

// Fabrics and their nodes are compiled into the running configuration by
// PUT /cluster/sdn (pve-network src/PVE/Network/SDN.pm
// compile_running_cfg), so the check for someone else's pending changes
// must see them too.
func init() {
	SDNPendingSources = append(SDNPendingSources, func(ctx context.Context, c *Client) ([]SDNEntry, error) {
		return c.SDNFabricsPending(ctx)
	})
}
