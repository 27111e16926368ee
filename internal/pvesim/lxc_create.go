package pvesim

import (
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Container create (PVE::API2::LXC create_vm, PVE::LXC create_disks).

// lxcCreateControlParams are create_vm's parameters that are not config
// keys.
var lxcCreateControlParams = map[string]bool{
	"node": true, "vmid": true, "ostemplate": true, "password": true, "storage": true, "force": true,
	"restore": true, "unique": true, "pool": true, "ignore-unpack-errors": true, "ssh-public-keys": true,
	"bwlimit": true, "start": true, "ha-managed": true, "unprivileged": true,
}

// ctCreate is one create request after its synchronous checks.
type ctCreate struct {
	node, ostemplate, storage, pool string
	vmid                            int
	unprivileged, start             bool
	password, sshKeys               string
	mounts                          map[string]string // rootfs, mpN: create or live form
	conf                            map[string]string // everything else, normalised
}

// createLXC is create_vm; a restore is restoreLXC. The checks up to the
// vmid reservation answer synchronously; the vmid is then held with "lock:
// create" (W10, W11: nameless while the task runs) and the vzcreate task
// allocates the volumes, unpacks the template and writes the config.
// pve-container src/PVE/API2/LXC.pm create_vm; a taken vmid dies in
// create_and_lock_config with the "$emsg" prefix.
func (s *Sim) createLXC(c *call) (any, error) {
	if c.boolParam("restore") {
		return s.restoreLXC(c)
	}
	req, err := s.checkCTCreate(c)
	if err != nil {
		return nil, err
	}
	cl := c.cluster
	// create_and_lock_config waits 5 s for the flock, then checks the vmid
	// again under it (pve-guest-common src/PVE/AbstractConfig.pm
	// create_and_lock_config).
	if err := c.waitGuestFlock(LXC, req.vmid, createLockTimeout); err != nil {
		return nil, errorf("unable to create CT %d - %s", req.vmid, strings.TrimSuffix(asAPIError(err).message, "\n"))
	}
	if err := cl.AddGuest(&Guest{VMID: req.vmid, Node: req.node, Type: LXC, Config: map[string]string{"lock": "create"}}); err != nil {
		return nil, errorf("unable to create CT %d - %s", req.vmid, strings.TrimSuffix(asAPIError(err).message, "\n"))
	}
	t := s.startWorker(req.node, "vzcreate", itoa(req.vmid), c.user, workerSpec{
		locks: s.guestTaskLocks("vzcreate", itoa(req.vmid)),
		begin: ctCreateBegin(cl, req.node, req.vmid),
		work: func(t *Task) error {
			return s.finishCTCreate(cl, t, req)
		},
	})
	return t.UPID, nil
}

// ctCreateBegin is the start of the vzcreate worker (beginCTRestore is
// vzrestore's): under lock_config it loads the reserved config, outside
// the eval that adds the "unable to create CT" prefix, so a config that is
// gone fails the task with load_config's own text. The handler has just
// taken and released the flock, so in the simulator the worker always
// finds the config.
// pve-container src/PVE/API2/LXC.pm create_vm $code (load_config first);
// pve-guest-common src/PVE/AbstractConfig.pm load_config.
func ctCreateBegin(cl *Cluster, node string, vmid int) func(*Task) error {
	return func(*Task) error {
		_, err := lookupGuest(cl, LXC, node, vmid)
		return err
	}
}

// checkCTCreate is create_vm up to create_and_lock_config, in PVE's order.
// pve-container src/PVE/API2/LXC.pm create_vm (before create_and_lock_config):
// check_vmid_unused (pve-cluster src/PVE/Cluster.pm), validate_ssh_public_keys,
// check_pool_exist and the VM.Allocate checks (raise_perm_exc() bare), the
// mount point walk and $check_and_activate_storage.
func (s *Sim) checkCTCreate(c *call) (*ctCreate, error) {
	cl := c.cluster
	req := &ctCreate{
		node: c.str("node"), vmid: c.intParam("vmid", 0), ostemplate: c.str("ostemplate"),
		storage: valueOr(c.str("storage"), "local"), pool: c.str("pool"), start: c.boolParam("start"),
		password: c.str("password"), sshKeys: c.str("ssh-public-keys"),
		mounts: map[string]string{}, conf: map[string]string{},
	}
	params := map[string]string{}
	for k, v := range c.params {
		if !lxcCreateControlParams[k] {
			params[k] = v
		}
	}
	// pve-container src/PVE/API2/LXC.pm create_vm: since 6.0.6 (PVE 9.0)
	// an omitted "unprivileged" means 1 at create, and a privileged
	// container needs Sys.Modify; PVE 8 leaves it unset, which is a
	// privileged container, and checks nothing more. A restore takes the
	// archive's value unless one is given (runCTRestore).
	restore := c.boolParam("restore")
	_, given := c.param("unprivileged")
	req.unprivileged = c.boolParam("unprivileged")
	if !given && !restore {
		req.unprivileged = c.sim.pve.unprivilegedDefault
	}
	if !req.unprivileged && !restore && c.sim.pve.privilegedNeedsSysModify {
		if err := c.check("/", false, "Sys.Modify"); err != nil {
			return nil, err
		}
	}
	if old := cl.Guests[req.vmid]; old != nil && !restoresOver(c, old) {
		return nil, errorf("%s %d already exists on node '%s'", old.kind(), req.vmid, old.Node) // W13
	}
	if _, ok := c.param("ssh-public-keys"); ok {
		if err := checkPublicKeyLines(req.sshKeys); err != nil {
			return nil, err
		}
	}
	if req.pool != "" && cl.Pools[req.pool] == nil {
		return nil, permError("pool '" + req.pool + "' does not exist")
	}
	if !c.can("/vms/"+itoa(req.vmid), false, "VM.Allocate") &&
		(req.pool == "" || !c.can("/pool/"+req.pool, false, "VM.Allocate")) && !restoreByBackupPrivilege(c) {
		return nil, permError("") // W49: create_vm raises it without a path
	}
	if err := checkCTModifyPerm(c, ctModifyCheck{
		vmid: req.vmid, pool: req.pool, newConf: params, unprivileged: req.unprivileged,
	}); err != nil {
		return nil, err
	}
	if err := checkVolumeAccess(c, req.vmid, req.ostemplate, ostemplateContent(c)); err != nil {
		return nil, err
	}
	for _, k := range sortedKeys(params) {
		v := params[k]
		switch {
		case isMountKey(k):
			if bareDiskSize.MatchString(v) {
				v = req.storage + ":" + v
			}
			req.mounts[k] = v
		case strings.HasPrefix(k, "unused"):
			// create_vm warns and drops unusedN.
		default:
			req.conf[k] = v
		}
	}
	// pve-container src/PVE/API2/LXC.pm create_vm: the mount point walk; a
	// volume id without storage dies in pve-storage src/PVE/Storage.pm
	// parse_volume_id.
	if len(req.mounts) > 0 && req.mounts["rootfs"] == "" {
		return nil, errorf("mount points configured, but 'rootfs' not set - aborting")
	}
	for _, k := range mountKeys(req.mounts) {
		mp, err := c.cluster.conf.parseMountPoint(k, req.mounts[k])
		if err != nil {
			return nil, err
		}
		if !mp.isVolume() {
			if !isRootPam(c) {
				return nil, errorf("Only root can pass arbitrary filesystem paths.")
			}
			continue
		}
		sid, _, found := strings.Cut(mp.volume(), ":")
		if !found || sid == "" {
			return nil, errorf("unable to parse volume ID '%s'", mp.volume())
		}
		if err := checkRootdirStorage(c, sid, req.node); err != nil {
			return nil, err
		}
	}
	if req.mounts["rootfs"] == "" {
		if err := checkRootdirStorage(c, req.storage, req.node); err != nil {
			return nil, err
		}
	}
	if err := s.normalizeCTParams(req.conf, nil); err != nil {
		return nil, err
	}
	return req, nil
}

// bareDiskSize is a size without a storage, which create_vm puts on the
// default storage.
var bareDiskSize = regexp.MustCompile(`^\d+(\.\d+)?$`)

// checkRootdirStorage is create_vm's $check_and_activate_storage.
// pve-container src/PVE/API2/LXC.pm create_vm $check_and_activate_storage
func checkRootdirStorage(c *call, sid, node string) error {
	st, err := usableStorage(c.cluster, sid, node)
	if err != nil {
		return err
	}
	if !st.hasContent("rootdir") {
		return paramError(map[string]string{"storage": "storage '" + sid + "' does not support container directories"})
	}
	return c.check("/storage/"+sid, false, "Datastore.AllocateSpace")
}

// checkPublicKeyLines is validate_ssh_public_keys: every non-blank line
// must be a public key.
// pve-common src/PVE/Tools.pm validate_ssh_public_keys
func checkPublicKeyLines(keys string) error {
	for _, line := range strings.Split(keys, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if !validPublicKey(line) {
			return errorf("SSH public key validation error")
		}
	}
	return nil
}

// normalizeCTParams is update_pct_config's per-key processing of new
// values, in place: DNS lists joined, tags normalised, NICs checked and
// printed with type and MAC (W38), cpuunits clamped. old is the config the
// values apply to (nil at create).
// pve-container src/PVE/LXC/Config.pm update_pct_config (add/change loop);
// cpuunits: pve-common src/PVE/CGroup.pm clamp_cpu_shares.
func (s *Sim) normalizeCTParams(set, old map[string]string) error {
	for _, k := range sortedKeys(set) {
		v := set[k]
		switch {
		case k == "nameserver" || k == "searchdomain":
			set[k] = joinList(v)
		case k == "tags":
			set[k] = normalizedTags(v)
		case k == "cpuunits":
			// clamp_cpu_shares under cgroup v2.
			if n, err := strconv.Atoi(v); err == nil && n > 10000 {
				set[k] = "10000"
			}
		case isCTNetKey(k):
			n, msg := s.cluster.conf.lxc.PropertyString(k, v)
			if msg != "" {
				return paramError(map[string]string{k: "invalid format - " + msg})
			}
			if mtu, err := strconv.Atoi(n["mtu"]); err == nil && mtu > bridgeMTU {
				return errorf("%s: MTU size '%d' is bigger than bridge MTU '%d'", k, mtu, bridgeMTU)
			}
			// pve-container src/PVE/LXC/Config.pm update_pct_config: SLAAC
			// is refused on a NIC whose addresses the host manages (its
			// own host-managed flag, a boolean of PVE's property strings).
			if !ctNetFlag(n["link_down"]) && ctNetFlag(n["host-managed"]) && n["ip6"] == "auto" {
				return errorf("%s: SLAAC is not supported for host-managed network configuration.", k)
			}
			nv, err := s.normalizeCTNet(k, v)
			if err != nil {
				return err
			}
			set[k] = nv
		}
	}
	return nil
}

// ctNetFlag reads a boolean of a NIC property string as pve-common
// src/PVE/JSONSchema.pm check_type does: 1, on, yes or true, any case.
func ctNetFlag(v string) bool {
	switch strings.ToLower(v) {
	case "1", "on", "yes", "true":
		return true
	}
	return false
}

// finishCTCreate is the vzcreate worker: allocate the volumes, unpack the
// template (ostemplate is not kept, W35), detect the OS, set the defaults,
// write the config, set root's password and keys, join the pool and start
// the container if asked. A failure frees what it made and removes the
// reserved config.
// pve-container src/PVE/API2/LXC.pm create_vm $code: the defaults
// (hostname CT$vmid, memory 512, swap 512) and "$emsg $err" on failure.
func (s *Sim) finishCTCreate(cl *Cluster, t *Task, req *ctCreate) error {
	g := cl.Guests[req.vmid]
	if g == nil || g.Node != req.node || g.Lock() != "create" {
		return errorf("unable to create CT %d - Configuration file '%s' does not exist",
			req.vmid, configPath(req.node, LXC, req.vmid))
	}
	var made []*Volume
	fail := func(err error) error {
		for _, v := range made {
			cl.RemoveVolume(v.Node, v.VolID)
		}
		cl.RemoveGuest(req.vmid)
		return errorf("unable to create CT %d - %s", req.vmid, strings.TrimSuffix(asAPIError(err).message, "\n"))
	}
	conf := copyMap(req.conf)
	mounts := copyMap(req.mounts)
	if mounts["rootfs"] == "" {
		mounts["rootfs"] = req.storage + ":" + strconv.Itoa(defaultCTRootGiB)
	}
	for _, k := range mountKeys(mounts) {
		value, v, err := s.createMountPoint(cl, g.Node, req.vmid, k, mounts[k])
		if v != nil {
			made = append(made, v)
		}
		if err != nil {
			return fail(err)
		}
		conf[k] = value
		if v != nil {
			t.Log("%s: allocated volume '%s'", k, v.VolID)
		}
	}
	if err := checkTemplateArchive(cl, req.node, req.ostemplate); err != nil {
		return fail(err)
	}
	t.Log("extracting archive '%s'", req.ostemplate)
	// inferred: PVE::LXC::Setup detects the distribution and architecture
	// from the unpacked root filesystem (pve-container src/PVE/LXC/Setup.pm);
	// the simulator has no files, so the template's name and amd64 stand in.
	if _, ok := conf["ostype"]; !ok {
		conf["ostype"] = detectOSType(req.ostemplate)
	}
	if _, ok := conf["arch"]; !ok {
		conf["arch"] = "amd64"
	}
	if conf["hostname"] == "" {
		conf["hostname"] = "CT" + itoa(req.vmid)
	}
	if conf["memory"] == "" || conf["memory"] == "0" {
		conf["memory"] = strconv.Itoa(defaultCTMemoryMiB)
	}
	if _, ok := conf["swap"]; !ok {
		conf["swap"] = strconv.Itoa(defaultCTSwapMiB)
	}
	if req.unprivileged {
		conf["unprivileged"] = "1"
	}
	g.Config = conf
	cl.conf.writeCTConfig(g)
	if req.password != "" {
		g.PasswordHash = s.cryptPassword(req.password)
	}
	if req.sshKeys != "" {
		g.AuthorizedKeys = req.sshKeys
	}
	if req.pool != "" && cl.Pools[req.pool] != nil {
		cl.addPoolMember(req.pool, req.vmid)
	}
	if req.start {
		t.Log("starting CT %d", req.vmid)
		// pve-container src/PVE/API2/LXC.pm create_vm: the start after
		// create is no eval, so its failure fails the task.
		if err := s.ctStart(cl, g, false); err != nil {
			return err
		}
	}
	return nil
}

// createMountPoint is create_disks for one mount point: a create form gets
// a new volume (alloc_disk), anything else is printed as given. It returns
// the value to store and the volume it made, if any.
// pve-container src/PVE/LXC.pm create_disks (one mount point)
func (s *Sim) createMountPoint(cl *Cluster, node string, vmid int, key, value string) (string, *Volume, error) {
	mp, err := cl.conf.parseMountPoint(key, value)
	if err != nil {
		return "", nil, err
	}
	if sm := newDiskRE.FindStringSubmatch(mp.volume()); sm != nil && mp.isVolume() {
		gib, _ := strconv.ParseFloat(sm[2], 64)
		sizeKiB := int64(math.Floor(gib*1024)) * 1024
		v, err := s.allocCTDisk(cl, node, vmid, sm[1], sizeKiB*kib)
		if err != nil {
			return "", nil, err
		}
		mp["volume"] = v.VolID
		mp["size"] = strconv.FormatInt(sizeKiB*kib, 10)
		return mp.print(key), v, nil
	}
	return mp.print(key), nil, nil
}

// allocCTDisk is alloc_disk: a raw image on a storage with rootdir content
// (a directory storage keeps it as a file, which is formatted ext4).
// pve-container src/PVE/LXC.pm alloc_disk
func (s *Sim) allocCTDisk(cl *Cluster, node string, vmid int, storeID string, size int64) (*Volume, error) {
	st, err := usableStorage(cl, storeID, node)
	if err != nil {
		return nil, err
	}
	if !st.hasContent("rootdir") {
		return nil, errorf("content type 'rootdir' is not available or configured on storage '%s'", storeID)
	}
	if size == 0 {
		return nil, errorf("size 0 (subvol) container volumes are not supported by the simulator") // not simulated: PVE makes a subvol here (pve-container src/PVE/LXC.pm alloc_disk)
	}
	return s.allocVolume(cl, allocation{storage: storeID, node: node, vmid: vmid, format: "raw", size: size, content: "rootdir"})
}

// checkTemplateArchive is what unpacking the ostemplate needs: the
// volume exists on the node (activate_volumes), or a host file does.
// The archive must exist for pve-container src/PVE/LXC/Create.pm restore_archive;
// a path that is not there dies in pve-storage src/PVE/Storage.pm abs_filesystem_path.
// A missing template volume fails the task as a captured PVE 6.2 answer
// shows: "unable to create CT N - volume 'ID' does not exist".
func checkTemplateArchive(cl *Cluster, node, volid string) error {
	if strings.HasPrefix(volid, "/") {
		return errorf("can't find file '%s'", volid)
	}
	if cl.Volume(node, volid) == nil {
		return errorf("volume '%s' does not exist", volid)
	}
	return nil
}

// ctOSTypes are the distributions PVE::LXC::Setup knows, by the name their
// templates start with.
var ctOSTypes = []string{
	"debian", "devuan", "ubuntu", "centos", "fedora", "opensuse", "archlinux", "alpine", "gentoo", "nixos",
}

// detectOSType stands in for PVE::LXC::Setup's detection: the template's
// file name tells the distribution; an unknown one is left unmanaged.
func detectOSType(ostemplate string) string {
	name := ostemplate
	if i := strings.LastIndexAny(name, ":/"); i >= 0 {
		name = name[i+1:]
	}
	for _, os := range ctOSTypes {
		if strings.HasPrefix(name, os) {
			return os
		}
	}
	return "unmanaged"
}
