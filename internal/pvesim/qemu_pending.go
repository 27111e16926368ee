package pvesim

import (
	"errors"
	"sort"
	"strings"
)

// Applying [PENDING]: vmconfig_apply_pending for a guest that is not
// running, vmconfig_hotplug_pending for one that is.

// applyPending is vmconfig_apply_pending, for a guest that is not running:
// pending deletions first (a disk detaches to unusedN, W24, or with force
// is destroyed), then the new values (a replaced disk becomes unusedN,
// W21).
// qemu-server src/PVE/QemuServer.pm vmconfig_apply_pending
func (s *Sim) applyPending(cl *Cluster, g *Guest, errs map[string]string) {
	defer cl.conf.writeConfig(g)
	dels := pendingDeletes(g)
	for _, opt := range sortedKeysOf(dels) {
		if v, ok := g.Config[opt]; ok && isDriveKey(opt) {
			if err := detachDrive(cl, g, opt, v, dels[opt]); err != nil {
				if errs != nil {
					errs[opt] = "unable to apply pending change " + opt + " : " + asAPIError(err).Error()
				}
				continue
			}
		}
		removePendingDelete(g, opt)
		delete(g.Config, opt)
	}
	cleanupPending(g)
	for _, opt := range sortedKeys(g.Pending) {
		if opt == deleteKey {
			continue
		}
		if old, ok := g.Config[opt]; ok && isDriveKey(opt) {
			if d, ok := cl.conf.parseDrive(opt, old); ok {
				registerUnused(cl, g, d)
			}
		}
		g.Config[opt] = g.Pending[opt]
		delete(g.Pending, opt)
	}
}

// detachDrive is vmconfig_delete_or_detach_drive.
// qemu-server src/PVE/QemuServer.pm vmconfig_delete_or_detach_drive
func detachDrive(cl *Cluster, g *Guest, opt, value string, force bool) error {
	d, ok := cl.conf.parseDrive(opt, value)
	if !ok {
		return nil
	}
	if force {
		return deallocate(cl, g, opt, d, true)
	}
	registerUnused(cl, g, d)
	return nil
}

// fastPlugOptions apply at once on a running guest; so do the cloud-init
// options.
var fastPlugOptions = map[string]bool{
	"description": true, "hookscript": true, "lock": true, "migrate_downtime": true, "migrate_speed": true,
	"name": true, "onboot": true, "protection": true, "shares": true, "startup": true, "tags": true,
	"vmstatestorage": true, "cicustom": true, "cipassword": true, "citype": true, "ciuser": true,
	"ciupgrade": true, "nameserver": true, "searchdomain": true, "sshkeys": true,
}

// qemu-server src/PVE/QemuServer.pm vmconfig_hotplug_pending ($fast_plug_option)
func isFastPlug(opt string) bool {
	return fastPlugOptions[opt] || strings.HasPrefix(opt, "ipconfig")
}

// hotplugPending is vmconfig_hotplug_pending at the level the simulator
// models devices: what PVE can change in a running guest applies now, the
// rest stays pending until the guest is stopped or rebooted.
//
// Modelled: fast-plug and cloud-init keys; NIC add/remove/change with
// "network" hotplug (bridge, tag, firewall, rate, link_down change in place
// even without it); disk add/remove with "disk" hotplug except on ide,
// sata, efidisk and tpmstate; disk option changes other than aio, discard,
// iothread, queues, product, cache, ssd, vendor and ro; CD-ROM media
// changes; cpuunits, cpulimit, balloon. memory and vcpus need their
// hotplug feature. Everything else (cpu, cores, sockets, bios, machine,
// scsihw, boot, ...) stays pending.
// qemu-server src/PVE/QemuServer.pm vmconfig_hotplug_pending
func (s *Sim) hotplugPending(cl *Cluster, g *Guest, selection map[string]bool, errs map[string]string) {
	defer cl.conf.writeConfig(g)
	for _, opt := range sortedKeys(g.Pending) {
		if opt != deleteKey && isFastPlug(opt) {
			g.Config[opt] = g.Pending[opt]
			delete(g.Pending, opt)
		}
	}
	features := hotplugFeatures(g.Config)
	dels := pendingDeletes(g)
	for _, opt := range sortedKeysOf(dels) {
		if !selection[opt] {
			continue
		}
		err := s.hotUnplug(cl, g, opt, dels[opt], features)
		if errors.Is(err, errSkipHotplug) {
			continue
		}
		if err != nil {
			errs[opt] = "hotplug problem - " + asAPIError(err).Error()
			continue
		}
		delete(g.Config, opt)
		removePendingDelete(g, opt)
	}
	for _, opt := range sortedKeys(g.Pending) {
		if opt == deleteKey || !selection[opt] {
			continue
		}
		err := s.hotPlug(cl, g, opt, g.Pending[opt], features)
		if errors.Is(err, errSkipHotplug) {
			continue
		}
		if err != nil {
			errs[opt] = "hotplug problem - " + asAPIError(err).Error()
			continue
		}
		g.Config[opt] = g.Pending[opt]
		delete(g.Pending, opt)
	}
}

// errSkipHotplug is qemu-server's die "skip\n": the change stays pending.
var errSkipHotplug = errorf("skip")

// qemu-server src/PVE/QemuServer.pm vmconfig_hotplug_pending (deletions) and
// vm_deviceunplug.
func (s *Sim) hotUnplug(cl *Cluster, g *Guest, opt string, force bool, features map[string]bool) error {
	switch {
	case isFastPlug(opt) || opt == "cpuunits" || opt == "cpulimit":
		return nil
	case opt == "balloon":
		if g.Config["balloon"] == "0" {
			return errSkipHotplug
		}
		return nil
	case strings.HasPrefix(opt, "net") && !isDriveKey(opt):
		if !features["network"] {
			return errSkipHotplug
		}
		return nil
	case isDriveKey(opt):
		if !features["disk"] || unpluggableBus(opt) {
			return errSkipHotplug
		}
		if err := cl.conf.checkUnplug(g, opt); err != nil {
			return err
		}
		return detachDrive(cl, g, opt, g.Config[opt], force)
	}
	return errSkipHotplug
}

// unpluggableBus is a slot PVE never hot(un)plugs.
// qemu-server src/PVE/QemuServer.pm vm_deviceunplug
func unpluggableBus(opt string) bool {
	for _, p := range []string{"efidisk", "ide", "sata", "tpmstate"} {
		if strings.HasPrefix(opt, p) {
			return true
		}
	}
	return false
}

// checkUnplug is vm_deviceunplug's refusal to pull a boot disk.
// qemu-server src/PVE/QemuServer.pm vm_deviceunplug
func (cs *guestSchema) checkUnplug(g *Guest, opt string) error {
	for _, dev := range cs.bootOrder(g.Config) {
		if dev == opt {
			return errorf("can't unplug bootdisk '%s'", opt)
		}
	}
	return nil
}

// qemu-server src/PVE/QemuServer.pm vmconfig_hotplug_pending (changes) and
// vm_deviceplug.
func (s *Sim) hotPlug(cl *Cluster, g *Guest, opt, value string, features map[string]bool) error {
	switch {
	case opt == "cpuunits" || opt == "cpulimit":
		return nil
	case opt == "balloon":
		oldOn := g.Config["balloon"] != "0"
		newOn := value != "0"
		if oldOn != newOn {
			return errSkipHotplug
		}
		return nil
	case opt == "memory":
		if !features["memory"] {
			return errSkipHotplug
		}
		return nil
	case opt == "vcpus":
		if !features["cpu"] {
			return errSkipHotplug
		}
		return nil
	case opt == "agent":
		return cl.conf.hotplugAgent(g, value)
	case strings.HasPrefix(opt, "net") && !isDriveKey(opt):
		return cl.conf.hotplugNet(g, opt, value, features["network"])
	case isDriveKey(opt):
		if opt == "efidisk0" || opt == "tpmstate0" {
			return errSkipHotplug
		}
		return hotplugDisk(cl, g, opt, value, features["disk"])
	}
	return errSkipHotplug
}

// hotplugAgent is vmconfig_update_agent: only fstrim_cloned_disks changes
// live.
// qemu-server src/PVE/QemuServer.pm vmconfig_hotplug_pending (agent)
func (cs *guestSchema) hotplugAgent(g *Guest, value string) error {
	old, ok := g.Config["agent"]
	if !ok {
		return errSkipHotplug
	}
	a, _ := cs.qemu.PropertyString("agent", old)
	b, _ := cs.qemu.PropertyString("agent", value)
	for _, k := range unionKeys(a, b) {
		if k != "fstrim_cloned_disks" && a[k] != b[k] {
			return errSkipHotplug
		}
	}
	return nil
}

// hotplugNet is vmconfig_update_net.
// qemu-server src/PVE/QemuServer.pm vmconfig_update_net
func (cs *guestSchema) hotplugNet(g *Guest, opt, value string, hotplug bool) error {
	if old, ok := g.Config[opt]; ok {
		a, _ := cs.qemu.PropertyString(opt, old)
		b, _ := cs.qemu.PropertyString(opt, value)
		if a["model"] != b["model"] || a["macaddr"] != b["macaddr"] || a["queues"] != b["queues"] ||
			a["mtu"] != b["mtu"] || a["bridge"] == "" || b["bridge"] == "" {
			if !hotplug {
				return errSkipHotplug
			}
		}
		return nil
	}
	if !hotplug {
		return errSkipHotplug
	}
	return nil
}

// hotplugDisk is vmconfig_update_disk.
// qemu-server src/PVE/QemuServer.pm vmconfig_update_disk ("unable to change
// media type").
func hotplugDisk(cl *Cluster, g *Guest, opt, value string, hotplug bool) error {
	nd, ok := cl.conf.parseDrive(opt, value)
	if !ok {
		return errSkipHotplug
	}
	if old, ok := g.Config[opt]; ok {
		od, _ := cl.conf.parseDrive(opt, old)
		if valueOr(nd["media"], "disk") != valueOr(od["media"], "disk") {
			return errorf("unable to change media type")
		}
		if od.isCDROM() {
			if nd.file() == "none" && od.isCloudInit() {
				registerUnused(cl, g, od)
			}
			return nil
		}
		if nd.file() != od.file() {
			if !hotplug {
				return errSkipHotplug
			}
			if err := cl.conf.checkUnplug(g, opt); err != nil {
				return err
			}
			registerUnused(cl, g, od)
			return nil
		}
		for _, k := range []string{"aio", "discard", "iothread", "queues", "product", "cache", "ssd", "vendor", "ro"} {
			if nd[k] != od[k] {
				return errSkipHotplug
			}
		}
		return nil
	}
	if !hotplug || strings.HasPrefix(opt, "ide") || strings.HasPrefix(opt, "sata") {
		return errSkipHotplug
	}
	return nil
}

func unionKeys(a, b map[string]string) []string {
	set := map[string]bool{}
	for k := range a {
		set[k] = true
	}
	for k := range b {
		set[k] = true
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
