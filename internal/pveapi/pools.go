package pveapi

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// PoolSummary is one entry of GET /pools.
type PoolSummary struct {
	PoolID  string `json:"poolid"`
	Comment string `json:"comment,omitempty"`
}

// PoolMember is a guest or storage in a pool.
type PoolMember struct {
	ID       string         `json:"id"`
	Type     string         `json:"type"` // qemu, lxc, storage
	Node     string         `json:"node"`
	VMID     IntOrString    `json:"vmid,omitempty"`
	Storage  string         `json:"storage,omitempty"`
	Name     StringOrNumber `json:"name,omitempty"`
	Status   string         `json:"status,omitempty"`
	Template Bool01         `json:"template,omitempty"`
}

// Pool is a pool with its members.
type Pool struct {
	PoolID  string       `json:"poolid"`
	Comment string       `json:"comment,omitempty"`
	Members []PoolMember `json:"members,omitempty"`
}

// PoolUpdate is PUT /pools (PVE 9; W48). Comment nil leaves the comment
// alone. VMs and Storage are added, or removed when Delete is set;
// AllowMove takes guests out of another pool.
type PoolUpdate struct {
	PoolID    string
	Comment   *string
	VMs       []int
	Storage   []string
	Delete    bool
	AllowMove bool
}

// Pools lists the pools the caller may audit.
func (c *Client) Pools(ctx context.Context) ([]PoolSummary, error) {
	var out []PoolSummary
	if err := c.Get(ctx, "/pools", nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// GetPool reads one pool with GET /pools?poolid=X (PVE 9), which answers a
// one-element array. found is false only for PVE's answer for a missing
// pool, 500 "pool 'X' does not exist"; every other failure is an error.
// It always asks PVE; its answer also serves later PoolGuests and
// PoolExists calls.
func (c *Client) GetPool(ctx context.Context, poolid string) (pool *Pool, found bool, err error) {
	generation := c.pools.currentGeneration()
	pool, found, err = c.getPoolAndKeepExistence(ctx, poolid)
	if err == nil {
		c.pools.seed(poolid, poolGuestsOf(pool, found), generation)
	}
	return pool, found, err
}

func (c *Client) getPool(ctx context.Context, poolid string) (pool *Pool, found bool, err error) {
	var out []Pool
	err = c.Get(ctx, "/pools", url.Values{"poolid": {poolid}}, &out)
	if err != nil {
		if apiErr, ok := AsError(err); ok && apiErr.StatusCode == 500 {
			if m := poolMissingPattern.FindStringSubmatch(firstLine(apiErr.Message)); m != nil && m[1] == poolid {
				return nil, false, nil
			}
		}
		return nil, false, err
	}
	for i := range out {
		if out[i].PoolID == poolid {
			return &out[i], true, nil
		}
	}
	if len(out) == 1 && out[0].PoolID == "" {
		out[0].PoolID = poolid
		return &out[0], true, nil
	}
	// PVE raises an error for a missing pool; an answer without the pool
	// is unexpected (permissions?) and must not be mistaken for absence.
	return nil, false, fmt.Errorf("pve: GET /pools?poolid=%s returned %d entries and none for that pool", poolid, len(out))
}

// CreatePool creates a pool; comment may be empty.
func (c *Client) CreatePool(ctx context.Context, poolid, comment string) error {
	form := url.Values{"poolid": {poolid}}
	if comment != "" {
		form.Set("comment", comment)
	}
	return c.Post(ctx, "/pools", form, nil)
}

// UpdatePool changes a pool's comment or membership.
func (c *Client) UpdatePool(ctx context.Context, update PoolUpdate) error {
	form := url.Values{"poolid": {update.PoolID}}
	if update.Comment != nil {
		form.Set("comment", *update.Comment)
	}
	if len(update.VMs) > 0 {
		ids := make([]string, len(update.VMs))
		for i, id := range update.VMs {
			ids[i] = strconv.Itoa(id)
		}
		form.Set("vms", strings.Join(ids, ","))
	}
	if len(update.Storage) > 0 {
		form.Set("storage", strings.Join(update.Storage, ","))
	}
	if update.Delete {
		form.Set("delete", FormBool(true))
	}
	if update.AllowMove {
		form.Set("allow-move", FormBool(true))
	}
	return c.Put(ctx, "/pools", form, nil)
}

// DeletePool deletes an empty pool (DELETE /pools?poolid=X).
func (c *Client) DeletePool(ctx context.Context, poolid string) error {
	return c.Delete(ctx, "/pools", url.Values{"poolid": {poolid}}, nil)
}

// FormBool spells a boolean parameter the only way PVE accepts at top
// level: 1 or 0 (W6).
func FormBool(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// Pool membership answers that say the wanted state already holds
// (pve-manager PVE/API2/Pool.pm create_pool, update_pool, inside
// lock_user_config, which prefixes "create pool failed: " or "update pools
// failed: ").
var (
	poolExistsPattern        = regexp.MustCompile(`pool '[^']*' already exists$`)
	alreadyPoolMemberPattern = regexp.MustCompile(`(?:VM [0-9]+|Storage '[^']*') is already a pool member$`)
)

// IsPoolExists reports PVE's refusal to create a pool that exists.
func IsPoolExists(err error) bool {
	apiErr, ok := AsError(err)
	return ok && apiErr.StatusCode == 500 && poolExistsPattern.MatchString(firstLine(apiErr.Message))
}

// IsAlreadyPoolMember reports PVE's refusal to add a guest or storage to
// the pool it is in already.
func IsAlreadyPoolMember(err error) bool {
	apiErr, ok := AsError(err)
	return ok && apiErr.StatusCode == 500 && alreadyPoolMemberPattern.MatchString(firstLine(apiErr.Message))
}
