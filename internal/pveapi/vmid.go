package pveapi

import (
	"context"
	"fmt"
	"sync"

	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// VMID bounds of PVE's pve-vmid format, defined in wire.
const (
	MinVMID = wire.MinVMID
	MaxVMID = wire.MaxVMID
)

// vmidReservations holds the VMIDs this client has handed out, so guests
// created in parallel by one client never receive the same id. The zero
// value is ready to use.
type vmidReservations struct {
	mu       sync.Mutex
	reserved map[int]bool
}

// tryReserve reserves id unless it is already reserved.
func (r *vmidReservations) tryReserve(id int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.reserved[id] {
		return false
	}
	if r.reserved == nil {
		r.reserved = make(map[int]bool)
	}
	r.reserved[id] = true
	return true
}

func (r *vmidReservations) isReserved(id int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reserved[id]
}

func (r *vmidReservations) release(id int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.reserved, id)
}

// VMIDRangeExhaustedError is AllocateVMID finding no free id in its range.
type VMIDRangeExhaustedError struct {
	Low, High int
}

func (e *VMIDRangeExhaustedError) Error() string {
	return fmt.Sprintf("pve: no free VMID in the range %d-%d: every id is taken by a guest, reserved by this run or excluded; widen the range or remove guests", e.Low, e.High)
}

// AllocateVMID picks a VMID for a new guest and reserves it in this client
// until ReleaseVMID.
//
// With low == 0 (no range) PVE proposes the id (GET /cluster/nextid); when
// that id is already reserved here or excluded, the next ids are probed
// upward. With a range [low, high] the guests are listed once (GET
// /cluster/resources?type=vm) and the lowest id in the range that no guest
// uses, that this client has not handed out and that exclude (may be nil)
// does not reject is taken and confirmed with GET /cluster/nextid?vmid=N;
// an id PVE reports as existing is skipped. Ids probed past PVE's proposal
// are confirmed the same way.
//
// The id is only proposed: another creator may take it first (W13). When
// the create or clone then fails with IsAlreadyExists, nothing was made:
// keep the id reserved (do not call ReleaseVMID, so this client never hands
// it out again) and call AllocateVMID again. Never retry the create on the
// same id blindly. Call ReleaseVMID only when a create failed before PVE
// made anything.
func (c *Client) AllocateVMID(ctx context.Context, low, high int, exclude func(int) bool) (int, error) {
	if exclude == nil {
		exclude = func(int) bool { return false }
	}
	if low == 0 && high == 0 {
		return c.allocateNextVMID(ctx, exclude)
	}
	if low < MinVMID || high > MaxVMID || low > high {
		return 0, fmt.Errorf("pve: invalid VMID range %d-%d: want %d <= low <= high <= %d", low, high, MinVMID, MaxVMID)
	}
	return c.allocateVMIDInRange(ctx, low, high, exclude)
}

// ReleaseVMID returns an id from AllocateVMID, for a create that failed
// before anything was made.
func (c *Client) ReleaseVMID(vmid int) { c.vmids.release(vmid) }

func (c *Client) allocateVMIDInRange(ctx context.Context, low, high int, exclude func(int) bool) (int, error) {
	guests, err := c.ClusterResources(ctx, "vm")
	if err != nil {
		return 0, err
	}
	unavailable := make(map[int]bool, len(guests))
	for _, g := range guests {
		if g.IsGuest() {
			unavailable[g.VMID.Int()] = true
		}
	}
	for {
		id, ok := c.reserveLowest(low, high, func(id int) bool { return unavailable[id] || exclude(id) })
		if !ok {
			return 0, &VMIDRangeExhaustedError{Low: low, High: high}
		}
		free, err := c.IsVMIDFree(ctx, id)
		if err != nil {
			c.vmids.release(id)
			return 0, err
		}
		if free {
			return id, nil
		}
		// Made after the listing: not ours to keep reserved.
		c.vmids.release(id)
		unavailable[id] = true
	}
}

// reserveLowest reserves the lowest id in [low, high] that skip does not
// reject and no one reserved. skip runs without the lock held, so it may
// call back into the client.
func (c *Client) reserveLowest(low, high int, skip func(int) bool) (int, bool) {
	for id := low; id <= high; id++ {
		if c.vmids.isReserved(id) || skip(id) {
			continue
		}
		if c.vmids.tryReserve(id) {
			return id, true
		}
	}
	return 0, false
}

func (c *Client) allocateNextVMID(ctx context.Context, exclude func(int) bool) (int, error) {
	proposed, err := c.NextID(ctx)
	if err != nil {
		return 0, err
	}
	if proposed < MinVMID || proposed > MaxVMID {
		return 0, fmt.Errorf("pve: GET /cluster/nextid proposed %d, outside %d-%d", proposed, MinVMID, MaxVMID)
	}
	if !exclude(proposed) && c.vmids.tryReserve(proposed) {
		return proposed, nil
	}
	// PVE proposes the same id until a guest uses it, so parallel creates
	// by this client probe past the ids it has already handed out.
	for id := proposed + 1; id <= MaxVMID; id++ {
		if c.vmids.isReserved(id) || exclude(id) {
			continue
		}
		if !c.vmids.tryReserve(id) {
			continue
		}
		free, err := c.IsVMIDFree(ctx, id)
		if err != nil {
			c.vmids.release(id)
			return 0, err
		}
		if free {
			return id, nil
		}
		c.vmids.release(id)
	}
	return 0, &VMIDRangeExhaustedError{Low: proposed, High: MaxVMID}
}
