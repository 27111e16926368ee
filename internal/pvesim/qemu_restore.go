package pvesim

import (
	"strings"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
)

// VM restore (qemu-server PVE/API2/Qemu.pm create_vm with "archive",
// QemuServer restore_vma_archive). The synchronous part checks the
// parameters (no drive may be given with an archive), the permissions and
// the archive, then reserves the vmid with "lock: create" (W10, W11); a
// taken vmid is refused unless "force" asks to overwrite a VM on this node
// (W13). The qmrestore task recreates every backed-up disk as a new volume
// (vm-VMID-disk-N) on "storage" or the disk's original storage, writes the
// archive's config with the overrides on top (a disk left out of the
// backup becomes a line of the description), lists the VM's unreferenced
// disks as unusedN, and joins the pool.

// qemuRestore is one restore request after its synchronous checks.
type qemuRestore struct {
	node, archive, storage, pool string
	vmid                         int
	force, unique, start, live   bool
	overrides                    map[string]string
	// existed is set when force overwrites an existing VM.
	existed bool
}

// qemu-server src/PVE/API2/Qemu.pm create_vm (the archive branch): pool,
// storage and VM.Allocate/VM.Backup checks, "option conflicts with option
// 'archive'", the archive's access (pve-storage src/PVE/Storage.pm
// check_volume_access, abs_filesystem_path), then create_and_lock_config
// with the "$emsg" prefix.
func (s *Sim) restoreQemu(c *call) (any, error) {
	cl := c.cluster
	req := &qemuRestore{
		node: c.str("node"), vmid: c.intParam("vmid", 0), archive: c.str("archive"),
		storage: c.str("storage"), pool: c.str("pool"),
		force: c.boolParam("force"), unique: c.boolParam("unique"), start: c.boolParam("start"),
		live: c.boolParam("live-restore"),
	}
	if req.pool != "" && cl.Pools[req.pool] == nil {
		return nil, permError("pool '" + req.pool + "' does not exist")
	}
	if req.storage != "" {
		if err := c.check("/storage/"+req.storage, false, "Datastore.AllocateSpace"); err != nil {
			return nil, err
		}
	}
	old := cl.Guests[req.vmid]
	ownVM := old != nil && old.Type == QEMU && old.Node == req.node
	switch {
	case c.can("/vms/"+itoa(req.vmid), false, "VM.Allocate"):
	case req.pool != "" && c.can("/pool/"+req.pool, false, "VM.Allocate"):
	case req.force && ownVM && c.can("/vms/"+itoa(req.vmid), false, "VM.Backup"):
	default:
		return nil, permError("")
	}
	params := configParams(c, createControlParams)
	for _, k := range sortedKeys(params) {
		if isDriveKey(k) {
			return nil, paramError(map[string]string{k: "option conflicts with option 'archive'"})
		}
	}
	if err := checkVolumeAccess(c, req.vmid, req.archive, "backup"); err != nil {
		return nil, err
	}
	if cl.Volume(req.node, req.archive) == nil {
		return nil, errorf("can't find file '%s'", req.archive)
	}
	if err := checkSSHKeys(params); err != nil {
		return nil, err
	}
	for _, k := range sortedKeys(params) {
		if err := checkModifyPerm(c, req.vmid, req.pool, k); err != nil {
			return nil, err
		}
		if strings.HasPrefix(k, "net") {
			v, err := s.normalizeNet(k, params[k])
			if err != nil {
				return nil, err
			}
			params[k] = v
		}
	}
	req.overrides = params
	// qemu-server src/PVE/API2/Qemu.pm create_vm: create_and_lock_config
	// (pve-guest-common src/PVE/AbstractConfig.pm) dies with "$emsg $@".
	existed, err := c.createAndLockConfig(req.vmid, req.node, req.force, "unable to restore VM ")
	if err != nil {
		return nil, err
	}
	req.existed = existed
	t := s.startQemuWorker(req.node, "qmrestore", req.vmid, c.user, func(t *Task) error {
		return qemuRestoreChecks(cl, t, req)
	}, func(t *Task) error {
		return s.runQemuRestore(cl, t, req)
	})
	return t.UPID, nil
}

// qemuRestoreChecks are the checks at the start of the qmrestore worker:
// $restorefn's load_config, check_protection and check_running, then
// $realcmd's live-restore refusal. On PVE the first three run just before
// the worker takes the config flock (lock_config_full with 1 s), the
// simulator runs them once it holds it.
// qemu-server src/PVE/API2/Qemu.pm create_vm $restorefn
func qemuRestoreChecks(cl *Cluster, t *Task, req *qemuRestore) error {
	emsg := "unable to restore VM " + itoa(req.vmid) + " - "
	g := cl.Guests[req.vmid]
	if g == nil || g.Node != req.node || g.Lock() != "create" {
		return errorf("%sConfiguration file '%s' does not exist", emsg, configPath(req.node, QEMU, req.vmid))
	}
	var err error
	switch {
	// check_protection($conf, $emsg) appends " - protection mode enabled"
	// to an $emsg that already ends in " -" (pve-guest-common
	// src/PVE/AbstractConfig.pm check_protection).
	case g.Config["protection"] == "1":
		err = errorf("%s - protection mode enabled", strings.TrimSuffix(emsg, " "))
	case g.Status == "running":
		err = errorf("%svm is running", emsg)
	case req.live:
		err = errorf("live-restore is only compatible with backup images from a Proxmox Backup Server")
	}
	if err != nil {
		return restoreFailed(cl, t, req, nil, err)
	}
	return nil
}

// restoreFailed is the qmrestore worker's error handling: any failure
// frees what it made, drops the create lock and warns that the state is
// not cleaned up.
// qemu-server src/PVE/API2/Qemu.pm create_vm (the qmrestore $code; a plain warn)
func restoreFailed(cl *Cluster, t *Task, req *qemuRestore, made []*Volume, err error) error {
	freeMade(cl, made)
	cl.UnlockGuest(req.vmid, "create")
	t.Note("error before or during data restore, some or all disks were not completely restored. VM %d state is NOT cleaned up.", req.vmid)
	return errorf("%s", strings.TrimSuffix(asAPIError(err).message, "\n"))
}

// runQemuRestore is the qmrestore worker. A failure frees the volumes it
// made and drops the lock, but, as on PVE, leaves the VM config behind
// ("VM N state is NOT cleaned up"): empty for a new VM, the old one when
// an overwrite failed before its disks went.
// qemu-server src/PVE/API2/Qemu.pm create_vm $restorefn and
// src/PVE/QemuServer.pm restore_file_archive, restore_update_config_line.
func (s *Sim) runQemuRestore(cl *Cluster, t *Task, req *qemuRestore) error {
	emsg := "unable to restore VM " + itoa(req.vmid) + " - "
	g := cl.Guests[req.vmid]
	if g == nil || g.Node != req.node || g.Lock() != "create" {
		return errorf("%sConfiguration file '%s' does not exist", emsg, configPath(req.node, QEMU, req.vmid))
	}
	var made []*Volume
	fail := func(err error) error { return restoreFailed(cl, t, req, made, err) }
	backup, err := archiveConfig(cl, req.node, req.archive, QEMU)
	if err != nil {
		return fail(err)
	}
	t.Log("restore vma archive: %s", req.archive)
	restored := restoredSlots(cl.conf, backup)
	if req.existed {
		// $restore_cleanup_oldconf frees only the old disks whose slots the
		// archive restores; any other disk the VM owns (one excluded from
		// the backup, one added since, an unused one) is kept, and the
		// rescan below lists it as unusedN.
		var kept []string
		for _, key := range guestDrives(g.Config) {
			d, ok := cl.conf.parseDrive(key, g.Config[key])
			if !ok || d.isCDROMNotCloudInit() || !ownsVolume(cl, g, d.file()) || cl.Volume(g.Node, d.file()) == nil {
				continue
			}
			if restored[key] {
				_ = freeVolume(cl, g.Node, d.file())
			} else {
				kept = append(kept, d.file())
			}
		}
		g.Config = map[string]string{"lock": "create"}
		// "after the restore we have no snapshots anymore": the snapshots'
		// RAM state volumes go, and the kept disks lose their snapshots.
		for _, name := range sortedKeys(g.Snapshots) {
			if state := g.Snapshots[name][snapVMState]; state != "" && cl.Volume(g.Node, state) != nil {
				_ = freeVolume(cl, g.Node, state)
			}
			for _, volid := range kept {
				volumeSnapshotDelete(cl, g.Node, volid, name)
			}
		}
		g.Snapshots = nil
	}
	conf := map[string]string{}
	// A disk excluded from the backup is written back as a comment line,
	// "#KEY: VALUE", which parse_vm_config adds to the description after
	// the archive's own description lines, in the file's (sorted) order.
	var excluded []string
	for _, key := range sortedKeys(backup) {
		value := backup[key]
		switch {
		case key == "lock" || key == "parent" || key == "digest" || pvegrammar.IsQemuUnusedKey(key):
		case key != "description" && !isDriveKey(key) && cl.conf.storedValueError(key, value) != "":
			// restore_merge_config parses the restored file with this
			// release's schema (parse_vm_config, not strict): a key or a
			// property it does not know is dropped with a plain warning.
			t.Note("vm %d - unable to parse value of '%s' - %s", req.vmid, key, cl.conf.storedValueError(key, value))
		case isDriveKey(key):
			d, ok := cl.conf.parseDrive(key, value)
			if !ok {
				// The text of qemu-server src/PVE/API2/Qemu.pm clone_vm for a drive
				// parse_drive cannot read.
				return fail(errorf("unable to parse drive options for '%s'", key))
			}
			if d.isCDROMNotCloudInit() {
				conf[key] = value
				continue
			}
			if !restored[key] {
				excluded = append(excluded, key+": "+value)
				continue
			}
			nd, v, err := s.restoreDisk(cl, req, key, d)
			if err != nil {
				return fail(err)
			}
			made = append(made, v)
			t.Log("new volume ID is '%s'", v.VolID)
			conf[key] = nd.print()
		case strings.HasPrefix(key, "net") && req.unique:
			// restore_update_config_line: a new MAC where one was set.
			n, msg := cl.conf.qemu.PropertyString(key, value)
			if msg != "" || n["macaddr"] == "" {
				conf[key] = value
				continue
			}
			n["macaddr"] = s.randomMAC()
			conf[key] = printNet(n)
		case key == "vmgenid" && value != "0":
			conf[key] = s.newUUID()
		case key == "smbios1" && req.unique:
			smbios, _ := cl.conf.qemu.PropertyString(key, value)
			if smbios == nil {
				smbios = map[string]string{}
			}
			smbios["uuid"] = s.newUUID()
			conf[key] = printSorted(smbios)
		default:
			conf[key] = value
		}
	}
	if len(excluded) > 0 {
		lines := descriptionLines(conf["description"])
		conf["description"] = strings.Join(append(lines, excluded...), "\n")
	}
	// restore_merge_config: the overrides replace the parsed keys, so a
	// description given with the restore replaces the comment lines too.
	for k, v := range req.overrides {
		conf[k] = v
	}
	if tags, ok := conf["tags"]; ok {
		conf["tags"] = pvegrammar.UniqueTags(tags)
	}
	g.Config = conf
	rescanVolumes(cl, g, t)
	cl.conf.writeConfig(g)
	if req.pool != "" && cl.Pools[req.pool] != nil {
		cl.addPoolMember(req.pool, req.vmid)
	}
	if req.start {
		t.Log("Execute autostart")
		if err := s.vmStart(cl, g, t, false); err != nil {
			// qemu-server src/PVE/API2/Qemu.pm create_vm: warn $@ after
			// the autostart; the task still ends OK.
			t.Note("%s", strings.TrimSuffix(asAPIError(err).message, "\n"))
		}
	}
	return nil
}

// restoreDisk allocates the new volume of one backed-up drive (restore's
// parse_backup_hints and vdisk_alloc): on the requested storage or the
// drive's own, which must hold images; cloud-init, EFI vars and TPM state
// have their fixed sizes, a disk the size the archive recorded.
// qemu-server src/PVE/QemuServer.pm $parse_backup_hints and
// $restore_allocate_devices.
func (s *Sim) restoreDisk(cl *Cluster, req *qemuRestore, key string, d drive) (drive, *Volume, error) {
	sid, _, _ := strings.Cut(d.file(), ":")
	storeID := valueOr(req.storage, sid)
	st, err := usableStorage(cl, storeID, req.node)
	if err != nil {
		return nil, nil, err
	}
	if !st.hasContent("images") {
		return nil, nil, errorf("Content type 'images' is not available on storage '%s'", storeID)
	}
	a := allocation{storage: storeID, node: req.node, vmid: req.vmid, format: st.resolveFormat(d["format"])}
	switch {
	case d.isCloudInit():
		a.name = "vm-" + itoa(req.vmid) + "-cloudinit"
		if st.fileStorage() {
			a.name += "." + a.format
		}
		a.size = cloudInitSize
	case key == "efidisk0":
		a.size = efiVars2M
		if d["efitype"] == "4m" {
			a.size = efiVars4M
		}
	case key == "tpmstate0":
		a.format, a.size = "raw", tpmStateSize
	default:
		size, ok := pvegrammar.ParseSize(valueOr(d["size"], "0"))
		if !ok || size == 0 {
			return nil, nil, errorf("got no size for '%s'", key) // qemu-server src/PVE/QemuServer.pm $restore_allocate_devices
		}
		a.size = size
	}
	v, err := s.allocVolume(cl, a)
	if err != nil {
		return nil, nil, err
	}
	nd := drive(copyMap(d))
	delete(nd, "format")
	nd["file"] = v.VolID
	if !d.isCloudInit() {
		nd["size"] = itoa64(v.Size)
	}
	return nd, v, nil
}

// restoredSlots are the drive slots whose disks an archive holds
// (restore's virtdev_hash): every drive but a CD-ROM and a disk marked
// backup=0, which vzdump leaves out (PVE::QemuConfig get_backup_volumes,
// "exclude disk ... (backup=no)").
// qemu-server src/PVE/VZDump/QemuServer.pm prepare and
// src/PVE/QemuServer.pm restore_update_config_line (a drive with backup=0
// becomes a comment line).
func restoredSlots(conf *guestSchema, backup map[string]string) map[string]bool {
	out := map[string]bool{}
	for key, value := range backup {
		if !isDriveKey(key) {
			continue
		}
		if d, ok := conf.parseDrive(key, value); ok && d["backup"] != "0" && !d.isCDROMNotCloudInit() {
			out[key] = true
		}
	}
	return out
}

// rescanVolumes is the rescan after a restore: every image the VM owns on
// a storage of its node that the new config does not use (a disk a forced
// restore kept) becomes an unusedN entry; RAM state volumes are left out.
// qemu-server src/PVE/QemuServer.pm rescan and update_disk_config (its
// "add unreferenced volume" line).
func rescanVolumes(cl *Cluster, g *Guest, t *Task) {
	t.Log("rescan volumes...")
	used := map[string]bool{}
	for _, key := range volumeKeys(g.Config) {
		if d, ok := cl.conf.parseDrive(key, g.Config[key]); ok {
			used[d.file()] = true
		} else {
			used[g.Config[key]] = true
		}
	}
	state := "vm-" + itoa(g.VMID) + "-state-"
	for _, v := range ownedVolumes(cl, g.Node, g.VMID) {
		if v.Content != "images" || used[v.VolID] || strings.Contains(v.VolID, state) {
			continue
		}
		key, err := addUnused(g.Config, v.VolID)
		if err != nil {
			return
		}
		t.Log("VM %d add unreferenced volume '%s' as '%s' to config", g.VMID, v.VolID, key)
	}
}
