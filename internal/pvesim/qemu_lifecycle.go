package pvesim

import (
	"sort"
	"strings"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
)

// Destroy, template and migrate (Qemu.pm destroy_vm, template,
// migrate_vm; QemuMigrate.pm).

// qemu-server src/PVE/API2/Qemu.pm destroy_vm ($early_checks before the fork
// and again in the worker, the purge line).
func (s *Sim) destroyQemu(c *call) (any, error) {
	if err := rootOnly(c, "skiplock"); err != nil {
		return nil, err
	}
	g, err := loadQemu(c)
	if err != nil {
		return nil, err
	}
	purge := c.boolParam("purge")
	cl := c.cluster
	if err := destroyEarlyChecks(cl, g, purge); err != nil {
		return nil, err
	}
	node, vmid := g.Node, g.VMID
	skiplock, unreferenced := c.boolParam("skiplock"), c.boolParam("destroy-unreferenced-disks")
	// The worker repeats the early checks under lock_config ("config might
	// have changed"), then destroy_vm checks the lock and the linked clones
	// before anything goes.
	t := s.startQemuWorker(node, "qmdestroy", vmid, c.user, func(*Task) error {
		g, err := lookupQemu(cl, node, vmid)
		if err != nil {
			return err
		}
		if err := destroyEarlyChecks(cl, g, purge); err != nil {
			return err
		}
		return destroyVMChecks(cl, g, skiplock)
	}, func(t *Task) error {
		g, err := lookupQemu(cl, node, vmid)
		if err != nil {
			return err
		}
		destroyVM(cl, g, unreferenced, t)
		// qemu-server src/PVE/API2/Qemu.pm destroy_vm: remove_vmfw_conf
		// after destroy_vm and remove_vm_access.
		removeGuestFirewall(cl, vmid)
		if purge {
			t.Log("purging VM %d from related configurations..", vmid)
			purgeGuestReferences(cl, vmid, t)
		}
		return nil
	})
	return t.UPID, nil
}

// destroyEarlyChecks are destroy_vm's checks before and again inside the
// task.
// qemu-server src/PVE/API2/Qemu.pm destroy_vm $early_checks (the protection text
// is pve-guest-common src/PVE/AbstractConfig.pm check_protection).
func destroyEarlyChecks(cl *Cluster, g *Guest, purge bool) error {
	if g.Config["protection"] == "1" {
		return errorf("can't remove VM %d - protection mode enabled", g.VMID)
	}
	if err := destroyReferenceChecks(cl, g, purge); err != nil {
		return err
	}
	if g.Status == "running" {
		return errorf("VM %d is running - destroy failed", g.VMID)
	}
	return nil
}

// destroyVMChecks are destroy_vm's refusals: the lock (unless skiplock or
// a hibernation's "suspended" lock), and a template whose base volume a
// linked clone still uses.
// qemu-server src/PVE/QemuServer.pm destroy_vm (the text says "linked cloned").
func destroyVMChecks(cl *Cluster, g *Guest, skiplock bool) error {
	if !skiplock && g.Lock() != "suspended" {
		if err := g.CheckLock(); err != nil {
			return err
		}
	}
	if !g.IsTemplate() {
		return nil
	}
	for _, key := range volumeKeys(g.Config) {
		d, ok := cl.conf.parseDrive(key, g.Config[key])
		if !ok || d.isCDROM() {
			continue
		}
		if v := cl.Volume(g.Node, d.file()); v != nil && linkedCloneOf(cl, v) != "" {
			return errorf("base volume '%s' is still in use by linked cloned", d.file())
		}
	}
	return nil
}

// destroyVM is QemuServer::destroy_vm plus remove_vm_access, once
// destroyVMChecks passed: the guest's own volumes referenced by its config
// (disks, unusedN, cloud-init, EFI and TPM state, vmstate, pending drives)
// are freed, with destroy-unreferenced-disks every image it owns; the guest
// leaves its pool (remove_vm_access does that whether or not purge is set)
// and its config is gone.
// qemu-server src/PVE/QemuServer.pm destroy_vm (log_warn on a failed free).
func destroyVM(cl *Cluster, g *Guest, unreferenced bool, t *Task) {
	for _, cfg := range []map[string]string{g.Config, g.Pending} {
		for _, key := range volumeKeys(cfg) {
			d, ok := cl.conf.parseDrive(key, cfg[key])
			if key == "vmstate" {
				d, ok = drive{"file": cfg[key]}, true
			}
			if !ok || d.isCDROMNotCloudInit() || !ownsVolume(cl, g, d.file()) {
				continue
			}
			if cl.Volume(g.Node, d.file()) == nil {
				continue
			}
			if err := freeVolume(cl, g.Node, d.file()); err != nil {
				// qemu-server src/PVE/QemuServer.pm destroy_vm: log_warn
				t.Warn("Could not remove disk '%s', check manually: %s", d.file(), asAPIError(err).Error())
			}
		}
	}
	// destroy_vm frees the RAM state volumes of the snapshots as well.
	for _, name := range sortedKeys(g.Snapshots) {
		state := g.Snapshots[name][snapVMState]
		if state == "" || !ownsVolume(cl, g, state) || cl.Volume(g.Node, state) == nil {
			continue
		}
		if err := freeVolume(cl, g.Node, state); err != nil {
			t.Warn("Could not remove disk '%s', check manually: %s", state, asAPIError(err).Error())
		}
	}
	dropGuest(cl, g, unreferenced, t)
}

// volumeKeys lists the config keys that may hold a volume: drives, unusedN
// and vmstate.
func volumeKeys(cfg map[string]string) []string {
	var out []string
	for _, k := range sortedKeys(cfg) {
		if isDriveKey(k) || pvegrammar.IsQemuUnusedKey(k) || k == "vmstate" {
			out = append(out, k)
		}
	}
	return out
}

// qemu-server src/PVE/API2/Qemu.pm template ($load_and_check before the fork
// and in the worker).
func (s *Sim) templateQemu(c *call) (any, error) {
	disk := c.str("disk")
	check := func(g *Guest) error {
		if err := g.CheckLock(); err != nil {
			return err
		}
		// qemu-server src/PVE/API2/Qemu.pm template ($load_and_check).
		if len(g.Snapshots) > 0 {
			return errorf("unable to create template, because VM contains snapshots")
		}
		if g.IsTemplate() && disk == "" {
			return errorf("you can't convert a template to a template")
		}
		if g.Status == "running" {
			return errorf("you can't convert a VM to template if VM is running")
		}
		return nil
	}
	g, err := loadQemu(c)
	if err != nil {
		return nil, err
	}
	if err := check(g); err != nil {
		return nil, err
	}
	node, vmid := g.Node, g.VMID
	cl := c.cluster
	// $load_and_check again under lock_config at the worker's start.
	t := s.startQemuWorker(node, "qmtemplate", vmid, c.user, func(*Task) error {
		g, err := lookupQemu(cl, node, vmid)
		if err != nil {
			return err
		}
		return check(g)
	}, func(*Task) error {
		g, err := lookupQemu(cl, node, vmid)
		if err != nil {
			return err
		}
		g.Config["template"] = "1"
		return templateCreate(cl, g, disk)
	})
	return t.UPID, nil
}

// templateCreate is template_create: every disk (not CD-ROMs, so not the
// cloud-init drive) on a storage with the template feature becomes a base
// volume, "vm-ID-disk-N" renamed to "base-ID-disk-N".
// qemu-server src/PVE/QemuServer.pm template_create
func templateCreate(cl *Cluster, g *Guest, only string) error {
	for _, key := range guestDrives(g.Config) {
		if only != "" && key != only {
			continue
		}
		d, ok := cl.conf.parseDrive(key, g.Config[key])
		if !ok || d.isCDROM() || !strings.Contains(d.file(), ":") {
			continue
		}
		st := cl.Storage(strings.SplitN(d.file(), ":", 2)[0])
		if st == nil || st.Type == "lvm" {
			continue // no template feature
		}
		base, err := createBase(cl, g.Node, d.file())
		if err != nil {
			return err
		}
		d["file"] = base
		g.Config[key] = d.print()
	}
	return nil
}

// qemu-server src/PVE/API2/Qemu.pm migrate_vm; the worker is
// qemu-server src/PVE/QemuMigrate.pm prepare, scan_local_volumes and phase1
// under pve-guest-common src/PVE/AbstractMigrate.pm migrate ("migration
// aborted").
func (s *Sim) migrateQemu(c *call) (any, error) {
	cl := c.cluster
	node, target := c.str("node"), c.str("target")
	if target == node {
		return nil, paramError(map[string]string{"target": "target is local node."})
	}
	if cl.Node(target) == nil {
		return nil, errorf("no such cluster node '%s'", target)
	}
	if err := rootOnly(c, "force", "migration_type", "migration_network"); err != nil {
		return nil, err
	}
	g, err := loadQemu(c)
	if err != nil {
		return nil, err
	}
	if err := g.CheckLock(); err != nil {
		return nil, err
	}
	running := g.Status == "running"
	if running && !c.boolParam("online") {
		return nil, errorf("can't migrate running VM without --online")
	}
	if running {
		if err := cl.replicatedLiveMigrationCheck(g.VMID, target, c.boolParam("force")); err != nil {
			return nil, err
		}
	}
	smap, err := checkMigrateStorages(c, g, target)
	if err != nil {
		return nil, err
	}
	if cl.haManaged(g.VMID) {
		return s.haMigrateTask(c, g, target), nil
	}
	withLocal, online := c.boolParam("with-local-disks"), c.boolParam("online")
	vmid := g.VMID
	// The worker runs prepare under lock_config (QemuMigrate.pm lock_vm):
	// load_config, check_lock and check_running again, so it sees what an
	// earlier worker left; a failure there is logged and the task dies
	// "migration aborted". phase1 then sets the "migrate" lock before it
	// scans and copies the volumes.
	// qemu-server src/PVE/QemuMigrate.pm prepare, phase1; pve-guest-common
	// src/PVE/AbstractMigrate.pm migrate.
	t := s.startQemuWorker(node, "qmigrate", vmid, c.user, func(t *Task) error {
		g, err := lookupQemu(cl, node, vmid)
		if err == nil {
			err = g.CheckLock()
		}
		if err == nil {
			running = g.Status == "running"
			if running && !online {
				err = errorf("can't migrate running VM without --online")
			}
		}
		if err != nil {
			t.Log("ERROR: migration aborted (duration 00:00:00): %s", strings.TrimSuffix(asAPIError(err).message, "\n"))
			return errorf("migration aborted")
		}
		t.Log("starting migration of VM %d to node '%s' (%s)", vmid, target, cl.Node(target).IP)
		g.Config["lock"] = "migrate"
		return nil
	}, func(t *Task) error {
		g := cl.Guests[vmid]
		if g == nil || g.Node != node {
			return errorf("migration aborted")
		}
		local, problems := scanLocalVolumes(cl, g, running, withLocal, target, smap)
		// qemu-server src/PVE/QemuMigrate.pm scan_local_volumes: "Problem found while
		// scanning volumes", then pve-guest-common src/PVE/AbstractMigrate.pm migrate.
		if len(problems) > 0 {
			for _, p := range problems {
				t.Log("WARN: %s", p)
			}
			cl.UnlockGuest(vmid, "migrate")
			t.Log("ERROR: Problem found while scanning volumes - can't migrate VM - check log")
			t.Log("ERROR: migration aborted (duration 00:00:00): Problem found while scanning volumes - can't migrate VM - check log")
			return errorf("migration aborted")
		}
		if err := checkMappedTargetSpace(cl, g, local, smap, target); err != nil {
			cl.UnlockGuest(vmid, "migrate")
			t.Log("ERROR: migration aborted (duration 00:00:00): %s", strings.TrimSuffix(asAPIError(err).message, "\n"))
			return errorf("migration aborted")
		}
		renamed, snapRefs := map[string]string{}, c.cluster.conf.snapshotDriveVolumes(g)
		attached, online := c.cluster.conf.attachedVolumes(g), map[string]bool{}
		for _, volid := range local {
			targetSID := targetStorageFor(cl, smap, volid)
			var nv string
			var err error
			if running && attached[volid] {
				nv, err = s.migrateOnlineVolume(cl, g, volid, targetSID, target)
				if err == nil {
					online[nv] = true
				}
			} else {
				nv, err = migrateMappedVolume(cl, g, volid, targetSID, target, snapRefs[volid])
			}
			if err != nil {
				// sync_offline_local_volumes
				cl.UnlockGuest(vmid, "migrate")
				t.Log("ERROR: migration aborted (duration 00:00:00): storage migration for '%s' to storage '%s' failed - %s",
					volid, targetSID, strings.TrimSuffix(asAPIError(err).message, "\n"))
				return errorf("migration aborted")
			}
			t.Log("volume '%s' is '%s' on the target", volid, nv)
			if nv != volid {
				renamed[volid] = nv
			}
		}
		c.cluster.conf.rewriteVolumeRefs(g, renamed)
		setMirroredDriveFormats(cl, g, online, target)
		g.Node = target
		cl.replicationFollowMigration(vmid, node, target)
		cl.UnlockGuest(vmid, "migrate")
		t.Log("migration finished successfully (duration 00:00:01)")
		return nil
	})
	return t.UPID, nil
}

// checkStorageAvailability is check_storage_availability: every storage a
// drive uses must be usable on the source and the target and offer the
// volume's content there.
// qemu-server src/PVE/QemuServer.pm check_storage_availability
func checkStorageAvailability(cl *Cluster, g *Guest, target string) error {
	for _, key := range guestDrives(g.Config) {
		d, ok := cl.conf.parseDrive(key, g.Config[key])
		if !ok || !strings.Contains(d.file(), ":") {
			continue
		}
		st, info, err := parseVolume(cl, d.file())
		if err != nil {
			return err
		}
		if _, err := usableStorage(cl, st.ID, g.Node); err != nil {
			return err
		}
		if _, err := usableStorage(cl, st.ID, target); err != nil {
			return err
		}
		if !st.hasContent(info.vtype) {
			return errorf("%s: content type '%s' is not available on storage '%s'", d.file(), info.vtype, st.ID)
		}
	}
	return nil
}

// scanLocalVolumes is scan_local_volumes: the volumes on node-local storage
// that move with the guest, and the reasons a volume cannot move.
// qemu-server src/PVE/QemuMigrate.pm scan_local_volumes
func scanLocalVolumes(cl *Cluster, g *Guest, running, withLocal bool, target string, smap *storageMap) ([]string, []string) {
	attached := map[string]bool{}
	cdrom := map[string]bool{}
	seen := map[string]bool{}
	var order []string
	note := func(key, file string, isCDROM bool) {
		if !seen[file] {
			seen[file] = true
			order = append(order, file)
			cdrom[file] = true
		}
		if !isCDROM {
			cdrom[file] = false
		}
		if isDriveKey(key) {
			attached[file] = true
		}
	}
	for _, cfg := range []map[string]string{g.Config, g.Pending} {
		for _, key := range volumeKeys(cfg) {
			if key == "vmstate" {
				note(key, cfg[key], false)
				continue
			}
			if d, ok := cl.conf.parseDrive(key, cfg[key]); ok {
				note(key, d.file(), d.isCDROM())
			}
		}
	}
	// foreach_volid walks the snapshots too, their RAM state included.
	snapRef, vmstate := map[string]bool{}, map[string]bool{}
	for _, name := range sortedKeys(g.Snapshots) {
		snap := g.Snapshots[name]
		for _, key := range volumeKeys(snap) {
			if key == "vmstate" {
				note(key, snap[key], false)
				vmstate[snap[key]] = true
				continue
			}
			if d, ok := cl.conf.parseDrive(key, snap[key]); ok {
				note("snapshot", d.file(), d.isCDROM())
				if !d.isCDROM() {
					snapRef[d.file()] = true
				}
			}
		}
	}
	var local, problems []string
	fail := func(volid, msg string) { problems = append(problems, "can't migrate local disk '"+volid+"': "+msg) }
	for _, volid := range order {
		switch {
		case volid == "none":
			continue
		case volid == "cdrom":
			problems = append(problems, "can't migrate local cdrom drive")
			continue
		case strings.HasPrefix(volid, "/"):
			fail(volid, "local file/device")
			continue
		}
		st, info, err := parseVolume(cl, volid)
		if err != nil {
			fail(volid, asAPIError(err).Error())
			continue
		}
		if err := targetStorageAvailable(cl, targetStorageFor(cl, smap, volid), target, volid); err != nil {
			fail(volid, asAPIError(err).Error())
			continue
		}
		if st.Shared {
			continue
		}
		if cdrom[volid] {
			if cloudInitFile.MatchString(volid) {
				local = append(local, volid)
			} else {
				fail(volid, "local cdrom image")
			}
			continue
		}
		v := cl.Volume(g.Node, volid)
		format := info.format
		if v != nil {
			format = v.Format
		}
		switch {
		case info.owner != g.VMID:
			fail(volid, "owned by other VM (owner = VM "+itoa(info.owner)+")")
		case vmstate[volid]:
			local = append(local, volid)
		case snapRef[volid] && snapshotMigratable(st, format, running) != "":
			fail(volid, snapshotMigratable(st, format, running))
		case v != nil && linkedCloneOf(cl, v) != "":
			fail(volid, "referenced by linked clone(s)")
		case attached[volid] && running && !withLocal:
			fail(volid, "can't live migrate attached local disks without with-local-disks option")
		case info.base != "":
			fail(volid, "can't migrate '"+volid+"' as it's a clone of '"+info.base+"'")
		default:
			local = append(local, volid)
		}
	}
	return local, problems
}

// migratePrecondition is migrate_vm_precondition: where the VM may go and
// which of its disks are local.
// qemu-server src/PVE/API2/Qemu.pm migrate_vm_precondition
func migratePrecondition(c *call) (any, error) {
	cl := c.cluster
	g, err := loadQemu(c)
	if err != nil {
		return nil, err
	}
	if err := g.CheckLock(); err != nil {
		return nil, err
	}
	allowed := []string{}
	notAllowed := map[string]any{}
	for _, n := range cl.Nodes {
		if n.Name == g.Node {
			continue
		}
		var missing []string
		for _, key := range guestDrives(g.Config) {
			d, ok := c.cluster.conf.parseDrive(key, g.Config[key])
			sid, _, found := strings.Cut(d.file(), ":")
			if !ok || !found {
				continue
			}
			// Only storages restricted to some nodes, or disabled, count
			// here (check_local_storage_availability).
			if st := cl.Storage(sid); st != nil && (st.Disabled || st.Nodes != nil && !st.availableOn(n.Name)) &&
				!containsString(missing, sid) {
				missing = append(missing, sid)
			}
		}
		if len(missing) > 0 {
			sort.Strings(missing)
			notAllowed[n.Name] = map[string]any{"unavailable_storages": missing}
			continue
		}
		allowed = append(allowed, n.Name)
	}
	disks := []map[string]any{}
	for _, key := range volumeKeys(g.Config) {
		file := g.Config[key]
		isCDROM := false
		if d, ok := c.cluster.conf.parseDrive(key, file); ok {
			file, isCDROM = d.file(), d.isCDROM()
		}
		if file == "none" || file == "cdrom" && isCDROM {
			continue
		}
		entry := map[string]any{"volid": file, "cdrom": boolInt(isCDROM), "is_unused": boolInt(pvegrammar.IsQemuUnusedKey(key))}
		if st, _, err := parseVolume(cl, file); err == nil {
			if st.Shared {
				continue
			}
			if v := cl.Volume(g.Node, file); v != nil {
				entry["size"] = v.Size
			}
		}
		if isDriveKey(key) {
			entry["drivename"] = key
		}
		disks = append(disks, entry)
	}
	return map[string]any{
		"running": boolInt(g.Status == "running"), "allowed_nodes": allowed, "not_allowed_nodes": notAllowed,
		"local_disks": disks, "local_resources": []string{}, "mapped-resources": []string{},
		"mapped-resource-info": map[string]any{}, "has-dbus-vmstate": 1,
	}, nil
}
