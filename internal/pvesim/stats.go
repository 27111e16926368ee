package pvesim

import "time"

// pvestatd's cycle (pve-manager PVE/Service/pvestatd.pm run, update_status,
// update_qemu_status, update_lxc_status): every $updatetime seconds it
// reads every local guest's status and broadcasts it as RRD data; GET
// /cluster/resources reads that data back (PVE/API2/Cluster.pm resources,
// PVE/API2Tools.pm extract_vm_stats over PVE::Cluster::rrd_dump). The
// config-derived fields it lists besides (lock, tags from
// get_guest_config_properties, pool from user.cfg) and the vm list itself
// are read live from the cluster file system.

// statsTickBefore is the latest cycle tick that comes before the next task
// event (at, when t is not nil) and by now, if one is due that has not been
// taken yet. Call with the model locked.
func (s *Sim) statsTickBefore(now time.Time, t *Task, at time.Time) (time.Time, bool) {
	step := s.opts.StatsInterval
	if step <= 0 {
		return time.Time{}, false
	}
	limit := now
	if t != nil {
		limit = at.Add(-time.Nanosecond)
	}
	if limit.Before(s.statsEpoch) {
		return time.Time{}, false
	}
	tick := s.statsEpoch.Add(limit.Sub(s.statsEpoch) / step * step)
	if !tick.After(s.statsAt) {
		return time.Time{}, false
	}
	return tick, true
}

// takeStats is one pvestatd cycle at time at: every guest's statistics are
// replaced; a vmid that no longer exists keeps none. Call with the model
// locked.
func (s *Sim) takeStats(at time.Time) {
	s.stats = make(map[int]map[string]any, len(s.cluster.Guests))
	for _, g := range s.cluster.Guests {
		s.reportGuest(g, at)
	}
	s.statsAt = at
}

// reportGuest records one guest's statistics as pvestatd reports them at
// time at. Call with the model locked.
func (s *Sim) reportGuest(g *Guest, at time.Time) {
	if s.stats == nil {
		s.stats = map[int]map[string]any{}
	}
	s.stats[g.VMID] = s.guestStats(s.cluster, g, at)
}
