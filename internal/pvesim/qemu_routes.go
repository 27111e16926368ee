package pvesim

import "net/http"

// QEMU guest API (qemu-server PVE/API2/Qemu.pm). The route permissions are
// the methods' "permissions" in PVE's API schema (the apidoc the schema
// tables come from) and in qemu-server src/PVE/API2/Qemu.pm.

func (s *Sim) registerQemuRoutes() {
	vm := func(privs ...string) permission { return permission{path: "/vms/{vmid}", privs: privs} }
	anyConfig := permission{path: "/vms/{vmid}", any: true, privs: []string{
		"VM.Config.Disk", "VM.Config.CDROM", "VM.Config.CPU", "VM.Config.Memory", "VM.Config.Network",
		"VM.Config.HWType", "VM.Config.Options", "VM.Config.Cloudinit",
	}}
	base := "/nodes/{node}/qemu"
	one := base + "/{vmid}"

	s.handle(http.MethodGet, base, route{handle: s.listQemu})
	s.handle(http.MethodPost, base, route{handle: s.createQemu})
	s.handle(http.MethodGet, one, route{handle: qemuIndex})
	s.handle(http.MethodDelete, one, route{perm: vm("VM.Allocate"), handle: s.destroyQemu})

	s.handle(http.MethodGet, one+"/config", route{perm: vm("VM.Audit"), handle: getQemuConfig})
	s.handle(http.MethodGet, one+"/pending", route{perm: vm("VM.Audit"), handle: getQemuPending})
	// update_vm_api (sync) checks first, then waits for lock_config itself
	// (updateQemu); unlink is update_vm with "delete" (Qemu.pm unlink).
	s.handle(http.MethodPut, one+"/config", route{perm: anyConfig, handle: func(c *call) (any, error) {
		return nil, s.updateQemu(c)
	}})
	s.handle(http.MethodPost, one+"/config", route{perm: anyConfig, handle: s.updateQemuAsync})
	s.handle(http.MethodPut, one+"/unlink", route{perm: vm("VM.Config.Disk"), handle: s.unlinkQemu})

	s.handle(http.MethodGet, one+"/status", route{handle: qemuStatusIndex})
	s.handle(http.MethodGet, one+"/status/current", route{perm: vm("VM.Audit"), handle: s.qemuStatusCurrent})
	power := vm("VM.PowerMgmt")
	s.handle(http.MethodPost, one+"/status/start", route{perm: power, handle: s.startQemu})
	s.handle(http.MethodPost, one+"/status/stop", route{perm: power, handle: s.stopQemu})
	s.handle(http.MethodPost, one+"/status/shutdown", route{perm: power, handle: s.shutdownQemu})
	s.handle(http.MethodPost, one+"/status/reboot", route{perm: power, handle: s.rebootQemu})
	s.handle(http.MethodPost, one+"/status/reset", route{perm: power, handle: s.resetQemu})
	s.handle(http.MethodPost, one+"/status/suspend", route{perm: power, handle: s.suspendQemu})
	s.handle(http.MethodPost, one+"/status/resume", route{perm: power, handle: s.resumeQemu})

	s.handle(http.MethodPut, one+"/resize", route{perm: vm("VM.Config.Disk"), handle: s.resizeQemu})
	s.handle(http.MethodPost, one+"/move_disk", route{perm: vm("VM.Config.Disk"), handle: s.moveQemuDisk})
	s.handle(http.MethodPost, one+"/template", route{perm: vm("VM.Allocate"), handle: s.templateQemu})
	s.handle(http.MethodPost, one+"/clone", route{perm: vm("VM.Clone"), handle: s.cloneQemu})
	s.handle(http.MethodGet, one+"/migrate", route{perm: vm("VM.Migrate"), handle: migratePrecondition})
	s.handle(http.MethodPost, one+"/migrate", route{perm: vm("VM.Migrate"), handle: s.migrateQemu})
}

// qemuIndex is vmdiridx; like PVE it does not look at the guest.
func qemuIndex(*call) (any, error) {
	names := []string{
		"config", "cloudinit", "pending", "status", "unlink", "vncproxy", "termproxy", "migrate", "resize",
		"move", "rrd", "rrddata", "monitor", "agent", "snapshot", "spiceproxy", "sendkey", "firewall",
		"mtunnel", "remote_migrate",
	}
	out := make([]map[string]string, 0, len(names))
	for _, n := range names {
		out = append(out, map[string]string{"subdir": n})
	}
	return out, nil
}

// qemuStatusIndex is vmcmdidx, which loads the config first.
func qemuStatusIndex(c *call) (any, error) {
	if _, err := loadQemu(c); err != nil {
		return nil, err
	}
	out := []map[string]string{}
	for _, n := range []string{"current", "start", "stop", "reset", "shutdown", "suspend", "reboot"} {
		out = append(out, map[string]string{"subdir": n})
	}
	return out, nil
}
