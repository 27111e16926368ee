package pvesim

import "net/http"

// Container API (pve-container PVE/API2/LXC.pm, LXC/Config.pm,
// LXC/Status.pm). The route permissions are the methods' "permissions" in
// PVE's API schema and in those files.

func (s *Sim) registerLXCRoutes() {
	ct := func(privs ...string) permission { return permission{path: "/vms/{vmid}", privs: privs} }
	anyConfig := permission{path: "/vms/{vmid}", any: true, privs: []string{
		"VM.Config.Disk", "VM.Config.CPU", "VM.Config.Memory", "VM.Config.Network", "VM.Config.Options",
	}}
	base := "/nodes/{node}/lxc"
	one := base + "/{vmid}"

	s.handle(http.MethodGet, base, route{handle: s.listLXC})
	s.handle(http.MethodPost, base, route{handle: s.createLXC})
	s.handle(http.MethodGet, one, route{handle: lxcIndex})
	s.handle(http.MethodDelete, one, route{perm: ct("VM.Allocate"), handle: s.destroyLXC})

	s.handle(http.MethodGet, one+"/config", route{perm: ct("VM.Audit"), handle: getLXCConfig})
	s.handle(http.MethodGet, one+"/pending", route{perm: ct("VM.Audit"), handle: getLXCPending})
	// update_vm checks its parameters, then takes lock_config around the
	// change (src/PVE/API2/LXC/Config.pm): updateLXC waits for the flock
	// itself, after those checks.
	s.handle(http.MethodPut, one+"/config", route{perm: anyConfig, handle: s.updateLXC})

	s.handle(http.MethodGet, one+"/status", route{handle: lxcStatusIndex})
	s.handle(http.MethodGet, one+"/status/current", route{perm: ct("VM.Audit"), handle: s.lxcStatusCurrent})
	power := ct("VM.PowerMgmt")
	s.handle(http.MethodPost, one+"/status/start", route{perm: power, handle: s.startLXC})
	s.handle(http.MethodPost, one+"/status/stop", route{perm: power, handle: s.stopLXC})
	s.handle(http.MethodPost, one+"/status/shutdown", route{perm: power, handle: s.shutdownLXC})
	s.handle(http.MethodPost, one+"/status/reboot", route{perm: power, handle: s.rebootLXC})
	s.handle(http.MethodPost, one+"/status/suspend", route{perm: power, handle: s.suspendLXC})
	s.handle(http.MethodPost, one+"/status/resume", route{perm: power, handle: s.resumeLXC})

	disk := permission{path: "/vms/{vmid}", any: true, privs: []string{"VM.Config.Disk"}}
	s.handle(http.MethodPut, one+"/resize", route{perm: disk, handle: s.resizeLXC})
	s.handle(http.MethodPost, one+"/move_volume", route{perm: ct("VM.Config.Disk"), handle: s.moveLXCVolume})
	// template checks and forks under lock_config in the handler
	// (src/PVE/API2/LXC.pm template).
	s.handle(http.MethodPost, one+"/template", route{perm: ct("VM.Allocate"), configLock: true, handle: s.templateLXC})
	s.handle(http.MethodPost, one+"/clone", route{perm: ct("VM.Clone"), handle: s.cloneLXC})
	s.handle(http.MethodGet, one+"/migrate", route{perm: ct("VM.Migrate"), handle: lxcMigratePrecondition})
	s.handle(http.MethodPost, one+"/migrate", route{perm: ct("VM.Migrate"), handle: s.migrateLXC})
}

// lxcIndex is vmdiridx, which loads the config first.
func lxcIndex(c *call) (any, error) {
	if _, err := loadGuest(c, LXC); err != nil {
		return nil, err
	}
	names := []string{
		"config", "pending", "status", "vncproxy", "termproxy", "vncwebsocket", "spiceproxy", "migrate",
		"clone", "rrd", "rrddata", "firewall", "snapshot", "resize", "interfaces",
	}
	out := make([]map[string]string, 0, len(names))
	for _, n := range names {
		out = append(out, map[string]string{"subdir": n})
	}
	return out, nil
}

// lxcStatusIndex is vmcmdidx, which loads the config first.
func lxcStatusIndex(c *call) (any, error) {
	if _, err := loadGuest(c, LXC); err != nil {
		return nil, err
	}
	out := []map[string]string{}
	for _, n := range []string{"current", "start", "stop", "shutdown", "reboot", "migrate"} {
		out = append(out, map[string]string{"subdir": n})
	}
	return out, nil
}
