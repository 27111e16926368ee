package pvesim

import (
	"fmt"
	"sort"
)

// Test helpers for guests: read what PVE would hold, and change it
// "outside the API" the way an operator on the node would.

// GuestConfig returns a copy of a guest's current config (without pending
// changes), as stored: cipassword is its hash, not the mask.
func (s *Sim) GuestConfig(vmid int) (map[string]string, bool) {
	var out map[string]string
	var ok bool
	s.View(func(c *Cluster) {
		if g := c.Guests[vmid]; g != nil {
			out, ok = copyMap(g.Config), true
		}
	})
	return out, ok
}

// PendingConfig returns a copy of a guest's pending changes; the "delete"
// key lists pending deletions.
func (s *Sim) PendingConfig(vmid int) map[string]string {
	var out map[string]string
	s.View(func(c *Cluster) {
		if g := c.Guests[vmid]; g != nil && g.Pending != nil {
			out = copyMap(g.Pending)
		}
	})
	return out
}

// VolumesOf returns copies of the volumes a vmid owns (its disks, not the
// backup archives named after it), on every storage and node, sorted by
// node and volid.
func (s *Sim) VolumesOf(vmid int) []Volume {
	var out []Volume
	s.View(func(c *Cluster) {
		for _, v := range c.volumes {
			if v.Owner == vmid && v.Content != "backup" {
				out = append(out, *v)
			}
		}
	})
	sort.Slice(out, func(i, j int) bool {
		if out[i].Node != out[j].Node {
			return out[i].Node < out[j].Node
		}
		return out[i].VolID < out[j].VolID
	})
	return out
}

// Power states a guest can be in (PowerState).
const (
	PowerStopped    = "stopped"
	PowerRunning    = "running"
	PowerPaused     = "paused"     // running, CPUs stopped (W18)
	PowerHibernated = "hibernated" // stopped with its RAM on disk, "lock: suspended"
)

// PowerState is the guest's power state, "" when there is no such guest.
func (s *Sim) PowerState(vmid int) string {
	var out string
	s.View(func(c *Cluster) {
		g := c.Guests[vmid]
		switch {
		case g == nil:
		case g.Status == "running" && g.Paused:
			out = PowerPaused
		case g.Status == "running":
			out = PowerRunning
		case g.Lock() == "suspended":
			out = PowerHibernated
		default:
			out = PowerStopped
		}
	})
	return out
}

// SetGuestConfig changes one key of a guest's current config directly, as
// an edit outside the API would ("drift"); an empty value removes the key.
func (s *Sim) SetGuestConfig(vmid int, key, value string) error {
	return s.Update(func(c *Cluster) error {
		g := c.Guests[vmid]
		if g == nil {
			return fmt.Errorf("no guest %d", vmid)
		}
		if value == "" {
			delete(g.Config, key)
		} else {
			g.Config[key] = value
		}
		return nil
	})
}

// DeleteGuest removes a guest as a destroy on the node would, whatever its
// state: its own referenced volumes are freed and it leaves its pool.
func (s *Sim) DeleteGuest(vmid int) error {
	return s.Update(func(c *Cluster) error {
		g := c.Guests[vmid]
		if g == nil {
			return fmt.Errorf("no guest %d", vmid)
		}
		g.Status, g.Paused = "stopped", false
		delete(g.Config, "protection")
		return destroyGuest(c, g, true, false, &Task{})
	})
}
