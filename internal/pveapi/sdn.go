package pveapi

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"
)

// SDN (/cluster/sdn): zones, vnets, subnets, controllers and fabrics are
// section configs whose writes are only staged ("pending") until
// PUT /cluster/sdn compiles them into the running config and reloads the
// nodes. GET ...?pending=1 lists each object with its running values at top
// level, a state (new, changed, deleted) and a "pending" object with the
// staged values that differ (pve-network src/PVE/Network/SDN.pm
// pending_config). Reads of the provider use that view, so state is what is
// staged.

// SDN object kinds, as the first part of an sdn_id.
const (
	SDNKindZone       = "zone"
	SDNKindVnet       = "vnet"
	SDNKindSubnet     = "subnet"
	SDNKindController = "controller"
	SDNKindIpam       = "ipam"
	SDNKindDNS        = "dns"
	SDNKindFabric     = "fabric"
	SDNKindFabricNode = "fabric-node"
)

// SDN pending states (SDN.pm pending_config, pve-sdn-config-state).
const (
	SDNStateNew     = "new"
	SDNStateChanged = "changed"
	SDNStateDeleted = "deleted"
)

// sdnDeletedValue is what pending_config puts under pending.KEY for a key
// the staged config no longer has.
const sdnDeletedValue = "deleted"

// SDNEntry is one object of a pending=1 listing.
type SDNEntry struct {
	// Kind is SDNKindZone, SDNKindVnet, ...
	Kind string
	// ID is PVE's id of the object (zone name, vnet name, subnet id
	// "<zone>-<ip>-<mask>", controller id).
	ID string
	// State is "" (nothing staged), new, changed or deleted.
	State string
	// Values are the top-level values: the running ones for an object PVE
	// has applied, only type (and vnet for subnets) for a new one.
	Values map[string]any
	// Pending holds the staged values that differ from the running ones;
	// a removed key has the value "deleted".
	Pending map[string]any
}

// sdnMetaKeys are top-level keys of a pending entry that are not options.
var sdnMetaKeys = map[string]bool{"state": true, "pending": true, "digest": true}

// Effective returns the staged values of the entry, which is what the next
// PUT /cluster/sdn would apply: the running values with the pending ones
// laid over them. ok is false when the object is staged for deletion.
func (e SDNEntry) Effective() (values map[string]any, ok bool) {
	if e.State == SDNStateDeleted {
		return nil, false
	}
	out := map[string]any{}
	for k, v := range e.Values {
		if !sdnMetaKeys[k] {
			out[k] = v
		}
	}
	if e.State == "" {
		return out, true
	}
	for k, v := range e.Pending {
		if s, isString := v.(string); isString && s == sdnDeletedValue {
			delete(out, k)
			continue
		}
		out[k] = v
	}
	return out, true
}

// IsPending reports whether the entry has a staged change.
func (e SDNEntry) IsPending() bool { return e.State != "" }

// SDNID is the entry's sdn_id: "zone/<zone>", "vnet/<vnet>",
// "subnet/<vnet>/<cidr>", "controller/<id>", ...
func (e SDNEntry) SDNID() string {
	if e.Kind == SDNKindSubnet {
		vnet, _ := e.Values["vnet"].(string)
		return SDNSubnetID(vnet, SubnetCIDR(e.ID))
	}
	return e.Kind + "/" + e.ID
}

// SDNSubnetID is the sdn_id of the subnet cidr of vnet.
func SDNSubnetID(vnet, cidr string) string { return SDNKindSubnet + "/" + vnet + "/" + cidr }

// SubnetCIDR returns the CIDR of PVE's subnet id "<zone>-<ip>-<mask>"
// (pve-network src/PVE/Network/SDN/SubnetPlugin.pm parse_sdn_subnet_id); an
// id that already is a CIDR is returned as is.
func SubnetCIDR(id string) string {
	if strings.Contains(id, "/") {
		return id
	}
	parts := strings.Split(id, "-")
	if len(parts) != 3 {
		return id
	}
	return parts[1] + "/" + parts[2]
}

// SubnetID is PVE's id of the subnet cidr in zone: "<zone>-<ip>-<mask>"
// (pve-network src/PVE/API2/Network/SDN/Subnets.pm create).
func SubnetID(zone, cidr string) string {
	return zone + "-" + strings.ReplaceAll(cidr, "/", "-")
}

// sdnListPaths are the collections whose objects a PUT /cluster/sdn
// applies (SDN.pm has_pending_changes), except subnets, listed per vnet.
var sdnListPaths = []struct{ kind, path, idKey string }{
	{SDNKindZone, "/cluster/sdn/zones", "zone"},
	{SDNKindVnet, "/cluster/sdn/vnets", "vnet"},
	{SDNKindController, "/cluster/sdn/controllers", "controller"},
}

var pendingQuery = url.Values{"pending": {"1"}}

// ListSDNPending lists the objects of one collection ("/cluster/sdn/zones")
// in the pending view; idKey is the key carrying each object's id.
func (c *Client) ListSDNPending(ctx context.Context, kind, path, idKey string) ([]SDNEntry, error) {
	var raw []map[string]any
	if err := c.Get(ctx, path, pendingQuery, &raw); err != nil {
		return nil, err
	}
	out := make([]SDNEntry, 0, len(raw))
	for _, item := range raw {
		out = append(out, sdnEntry(kind, idKey, item))
	}
	return out, nil
}

func sdnEntry(kind, idKey string, item map[string]any) SDNEntry {
	e := SDNEntry{Kind: kind, Values: item}
	e.ID, _ = item[idKey].(string)
	e.State, _ = item["state"].(string)
	if p, ok := item["pending"].(map[string]any); ok {
		e.Pending = p
	}
	return e
}

// SDNZonesPending lists the zones in the pending view.
func (c *Client) SDNZonesPending(ctx context.Context) ([]SDNEntry, error) {
	return c.ListSDNPending(ctx, SDNKindZone, "/cluster/sdn/zones", "zone")
}

// SDNVnetsPending lists the vnets in the pending view.
func (c *Client) SDNVnetsPending(ctx context.Context) ([]SDNEntry, error) {
	return c.ListSDNPending(ctx, SDNKindVnet, "/cluster/sdn/vnets", "vnet")
}

// SDNSubnetsPending lists the subnets of vnet in the pending view.
func (c *Client) SDNSubnetsPending(ctx context.Context, vnet string) ([]SDNEntry, error) {
	return c.ListSDNPending(ctx, SDNKindSubnet, sdnVnetPath(vnet)+"/subnets", "subnet")
}

// FindSDNEntry returns the entry with PVE id id, or false.
func FindSDNEntry(entries []SDNEntry, id string) (SDNEntry, bool) {
	for _, e := range entries {
		if e.ID == id {
			return e, true
		}
	}
	return SDNEntry{}, false
}

// SDNPending lists every object with a staged change that PUT /cluster/sdn
// would apply: zones, vnets, subnets (of every vnet, staged or running) and
// controllers, sorted by sdn_id.
func (c *Client) SDNPending(ctx context.Context) ([]SDNEntry, error) {
	var out []SDNEntry
	var vnets []string
	for _, l := range sdnListPaths {
		entries, err := c.ListSDNPending(ctx, l.kind, l.path, l.idKey)
		if err != nil {
			// A collection this PVE does not have holds nothing pending.
			if IsNotImplemented(err) {
				continue
			}
			return nil, err
		}
		for _, e := range entries {
			if e.IsPending() {
				out = append(out, e)
			}
			if l.kind == SDNKindVnet {
				vnets = append(vnets, e.ID)
			}
		}
	}
	for _, vnet := range vnets {
		entries, err := c.SDNSubnetsPending(ctx, vnet)
		if err != nil {
			if IsSDNNotFound(err) {
				continue
			}
			return nil, err
		}
		for _, e := range entries {
			if e.IsPending() {
				out = append(out, e)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].SDNID() < out[j].SDNID() })
	return out, nil
}

// IsSDNNotFound reports PVE's "sdn 'X' does not exist", "sdn vnet 'X' does
// not exist" and "sdn subnet 'X' does not exist" (pve-network
// src/PVE/Network/SDN/Zones.pm sdn_zones_config, Vnets.pm sdn_vnets_config,
// Subnets.pm sdn_subnets_config).
func IsSDNNotFound(err error) bool {
	apiErr, ok := AsError(err)
	if !ok {
		return false
	}
	msg := firstLine(apiErr.Message)
	return strings.HasPrefix(msg, "sdn ") && strings.Contains(msg, "does not exist")
}

func sdnZonePath(zone string) string { return "/cluster/sdn/zones/" + url.PathEscape(zone) }
func sdnVnetPath(vnet string) string { return "/cluster/sdn/vnets/" + url.PathEscape(vnet) }
func sdnSubnetPath(vnet, subnetID string) string {
	return sdnVnetPath(vnet) + "/subnets/" + url.PathEscape(subnetID)
}

// withLockToken adds lock-token to form when token is not empty.
func withLockToken(form url.Values, token string) url.Values {
	if form == nil {
		form = url.Values{}
	}
	if token != "" {
		form.Set("lock-token", token)
	}
	return form
}

// CreateSDNZone creates zone with form (type and options).
func (c *Client) CreateSDNZone(ctx context.Context, zone string, form url.Values, lockToken string) error {
	f := withLockToken(cloneForm(form), lockToken)
	f.Set("zone", zone)
	return c.Post(ctx, "/cluster/sdn/zones", f, nil)
}

// UpdateSDNZone changes zone; form may carry delete.
func (c *Client) UpdateSDNZone(ctx context.Context, zone string, form url.Values, lockToken string) error {
	return c.Put(ctx, sdnZonePath(zone), withLockToken(cloneForm(form), lockToken), nil)
}

// DeleteSDNZone stages the deletion of zone.
func (c *Client) DeleteSDNZone(ctx context.Context, zone, lockToken string) error {
	return c.Delete(ctx, sdnZonePath(zone), withLockToken(nil, lockToken), nil)
}

// CreateSDNVnet creates vnet with form (zone and options).
func (c *Client) CreateSDNVnet(ctx context.Context, vnet string, form url.Values, lockToken string) error {
	f := withLockToken(cloneForm(form), lockToken)
	f.Set("vnet", vnet)
	return c.Post(ctx, "/cluster/sdn/vnets", f, nil)
}

// UpdateSDNVnet changes vnet; form may carry delete.
func (c *Client) UpdateSDNVnet(ctx context.Context, vnet string, form url.Values, lockToken string) error {
	return c.Put(ctx, sdnVnetPath(vnet), withLockToken(cloneForm(form), lockToken), nil)
}

// DeleteSDNVnet stages the deletion of vnet.
func (c *Client) DeleteSDNVnet(ctx context.Context, vnet, lockToken string) error {
	return c.Delete(ctx, sdnVnetPath(vnet), withLockToken(nil, lockToken), nil)
}

// CreateSDNSubnet creates the subnet cidr of vnet.
func (c *Client) CreateSDNSubnet(ctx context.Context, vnet, cidr string, form url.Values, lockToken string) error {
	f := withLockToken(cloneForm(form), lockToken)
	f.Set("subnet", cidr)
	f.Set("type", "subnet")
	return c.Post(ctx, sdnVnetPath(vnet)+"/subnets", f, nil)
}

// UpdateSDNSubnet changes the subnet subnetID ("<zone>-<ip>-<mask>") of vnet.
func (c *Client) UpdateSDNSubnet(ctx context.Context, vnet, subnetID string, form url.Values, lockToken string) error {
	return c.Put(ctx, sdnSubnetPath(vnet, subnetID), withLockToken(cloneForm(form), lockToken), nil)
}

// DeleteSDNSubnet stages the deletion of the subnet subnetID of vnet.
func (c *Client) DeleteSDNSubnet(ctx context.Context, vnet, subnetID, lockToken string) error {
	return c.Delete(ctx, sdnSubnetPath(vnet, subnetID), withLockToken(nil, lockToken), nil)
}

func cloneForm(f url.Values) url.Values {
	out := url.Values{}
	for k, v := range f {
		out[k] = append([]string(nil), v...)
	}
	return out
}

// AcquireSDNLock takes PVE 9's SDN lock (POST /cluster/sdn/lock) and
// returns its token. allowPending takes it even while changes are staged.
func (c *Client) AcquireSDNLock(ctx context.Context, allowPending bool) (string, error) {
	f := url.Values{}
	if allowPending {
		f.Set("allow-pending", "1")
	}
	var token string
	if err := c.Post(ctx, "/cluster/sdn/lock", f, &token); err != nil {
		return "", err
	}
	if token == "" {
		return "", fmt.Errorf("PVE answered the SDN lock request without a token")
	}
	return token, nil
}

// ReleaseSDNLock releases the SDN lock held with token.
func (c *Client) ReleaseSDNLock(ctx context.Context, token string) error {
	return c.Delete(ctx, "/cluster/sdn/lock", url.Values{"lock-token": {token}}, nil)
}

// ApplySDN is PUT /cluster/sdn: it commits the staged configuration
// (releasing the lock held with lockToken, when given) and returns the
// UPID of the task that reloads the nodes' networks.
func (c *Client) ApplySDN(ctx context.Context, lockToken string) (string, error) {
	f := url.Values{}
	if lockToken != "" {
		f.Set("lock-token", lockToken)
		f.Set("release-lock", "1")
	}
	var upid string
	if err := c.Put(ctx, "/cluster/sdn", f, &upid); err != nil {
		return "", err
	}
	return upid, nil
}

// IsSDNLockHeld reports PVE's refusal of a write or of a lock request while
// someone else holds the SDN lock, or when the token is not the lock's:
// "invalid lock token provided!" (SDN.pm lock_sdn_config).
func IsSDNLockHeld(err error) bool {
	apiErr, ok := AsError(err)
	return ok && strings.Contains(apiErr.Message, "invalid lock token provided")
}

// IsNotImplemented reports PVE's 501 for an endpoint this version does not
// have ("Method 'POST /cluster/sdn/lock' not implemented" on PVE 8.4).
func IsNotImplemented(err error) bool {
	apiErr, ok := AsError(err)
	return ok && apiErr.StatusCode == 501
}

// SDNNodeStatus is one entry of a node's SDN status: a zone's
// (GET /nodes/{node}/sdn/zones) or a vnet's
// (GET /nodes/{node}/sdn/zones/{zone}/content).
type SDNNodeStatus struct {
	Zone      string `json:"zone,omitempty"`
	Vnet      string `json:"vnet,omitempty"`
	Status    string `json:"status"`
	StatusMsg string `json:"statusmsg,omitempty"`
}

// SDNZoneStatus lists the zones' status on node (available, pending,
// error).
func (c *Client) SDNZoneStatus(ctx context.Context, node string) ([]SDNNodeStatus, error) {
	var out []SDNNodeStatus
	err := c.Get(ctx, "/nodes/"+url.PathEscape(node)+"/sdn/zones", nil, &out)
	return out, err
}

// SDNVnetStatus lists the status of the vnets of zone on node.
func (c *Client) SDNVnetStatus(ctx context.Context, node, zone string) ([]SDNNodeStatus, error) {
	var out []SDNNodeStatus
	err := c.Get(ctx, "/nodes/"+url.PathEscape(node)+"/sdn/zones/"+url.PathEscape(zone)+"/content", nil, &out)
	return out, err
}

// SDNVnetUser is a guest NIC whose bridge is a vnet.
type SDNVnetUser struct {
	GuestType string // qemu or lxc
	VMID      int
	Node      string
	NIC       string // net0, net1, ...
}

func (u SDNVnetUser) String() string {
	kind := "VM"
	if u.GuestType == GuestTypeLXC {
		kind = "container"
	}
	return fmt.Sprintf("%s %d on %s (%s)", kind, u.VMID, u.Node, u.NIC)
}

// SDNVnetUsers lists the NICs of the cluster's guests whose bridge is
// vnet, sorted by VMID and NIC. Guests whose config cannot be read (gone
// meanwhile, a node offline) are left out: the answer covers what the
// provider can see.
func (c *Client) SDNVnetUsers(ctx context.Context, vnet string) ([]SDNVnetUser, error) {
	guests, err := c.ClusterResources(ctx, "vm")
	if err != nil {
		return nil, err
	}
	var out []SDNVnetUser
	for _, g := range guests {
		if !g.IsGuest() {
			continue
		}
		config, err := c.GuestConfig(ctx, g.Node, g.Type, g.VMID.Int())
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			continue
		}
		for key, value := range config {
			if !strings.HasPrefix(key, "net") || strings.TrimLeft(key[3:], "0123456789") != "" || key == "net" {
				continue
			}
			for _, part := range strings.Split(value, ",") {
				if k, v, _ := strings.Cut(part, "="); strings.TrimSpace(k) == "bridge" && v == vnet {
					out = append(out, SDNVnetUser{GuestType: g.Type, VMID: g.VMID.Int(), Node: g.Node, NIC: key})
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].VMID != out[j].VMID {
			return out[i].VMID < out[j].VMID
		}
		return out[i].NIC < out[j].NIC
	})
	return out, nil
}
