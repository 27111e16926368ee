package pvesim

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
)

// Guest config reads and writes: GET config/pending, PUT (sync, W9) and
// POST (task qmconfig) config. Applying what lands in [PENDING] is in
// qemu_pending.go.

// qemu-server src/PVE/API2/Qemu.pm vm_config; a missing snapshot is
// pve-guest-common src/PVE/AbstractConfig.pm load_snapshot_config.
func getQemuConfig(c *call) (any, error) {
	if c.str("snapshot") != "" && c.boolParam("current") {
		msg := "cannot use 'snapshot' parameter with 'current'"
		return nil, paramError(map[string]string{"snapshot": msg, "current": msg})
	}
	g, err := loadQemu(c)
	if err != nil {
		return nil, err
	}
	if snap := c.str("snapshot"); snap != "" {
		// load_snapshot_config (pve-guest-common AbstractConfig.pm).
		return c.cluster.conf.snapshotConfigAnswer(g, snap)
	}
	cfg := currentConfig(g, c.boolParam("current"))
	if _, ok := cfg["cipassword"]; ok {
		cfg["cipassword"] = cipasswordMask // W31
	}
	out := make(map[string]any, len(cfg)+1)
	for k, v := range cfg {
		out[k] = c.cluster.conf.typedValue(k, v)
	}
	out["digest"] = guestDigest(g)
	return out, nil
}

// typedValue is how a config value reaches the JSON answer: parse_vm_config
// runs check_type, which makes integers, numbers and booleans Perl numbers,
// The key types are PVE's API schema (the config method's properties).
// so they are JSON numbers; everything else is a string (W5).
func (cs *guestSchema) typedValue(key, v string) any {
	info, ok := cs.qemu.Param(key)
	if !ok {
		return v
	}
	switch info.Type {
	case "integer", "boolean":
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return n
		}
	case "number":
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return f
		}
	}
	return v
}

// qemu-server src/PVE/API2/Qemu.pm vm_pending
// getQemuPending is vm_pending: config_with_pending_array.
func getQemuPending(c *call) (any, error) {
	g, err := loadQemu(c)
	if err != nil {
		return nil, err
	}
	cfg := copyMap(g.Config)
	pending := copyMap(g.Pending)
	if _, ok := cfg["cipassword"]; ok {
		cfg["cipassword"] = cipasswordMask
	}
	if _, ok := pending["cipassword"]; ok {
		pending["cipassword"] = cipasswordMask + " "
	}
	return pendingArray(g, cfg, pending, c.cluster.conf.typedValue), nil
}

func deleteFlag(force bool) int {
	if force {
		return 2
	}
	return 1
}

// updateRequest is one PUT or POST config call after its synchronous
// checks.
type updateRequest struct {
	node     string
	vmid     int
	digest   string
	skiplock bool
	force    bool
	set      map[string]string
	deletes  []string
	reverts  map[string]bool
	log      func(string, ...any)
	// tagPerm is assert_tag_permissions for the caller, run under the
	// config lock when tags are set or deleted.
	tagPerm func() error
}

func (s *Sim) updateQemuAsync(c *call) (any, error) {
	req, err := s.checkUpdate(c)
	if err != nil {
		return nil, err
	}
	cl := c.cluster
	// The worker runs $updatefn under lock_config: $load_and_check_config
	// and the tag permissions at its start, so they see what an earlier
	// worker left; the change shows when the task ends.
	// qemu-server src/PVE/API2/Qemu.pm $update_vm_api (fork_worker 'qmconfig')
	t := s.startQemuWorker(req.node, "qmconfig", req.vmid, c.user, func(*Task) error {
		_, err := req.checkLocked(cl)
		return taskError(err)
	}, func(t *Task) error {
		req.log = t.Log
		return taskError(s.applyUpdate(cl, req))
	})
	// qemu-server src/PVE/API2/Qemu.pm $update_vm_api: with background_delay
	// it waits for the worker and dies with its status.
	if c.intParam("background_delay", 0) > 0 && !t.Running() {
		if isTaskFailure(t.ExitStatus()) {
			return nil, errorf("failed to update VM %d: %s", req.vmid, t.ExitStatus())
		}
		return nil, nil
	}
	return t.UPID, nil
}

func isTaskFailure(status string) bool {
	return status != "OK" && !strings.HasPrefix(status, "WARNINGS: ")
}

// updateQemu is the synchronous update (PUT config, unlink): it answers
// null or PVE's error (W9).
func (s *Sim) updateQemu(c *call) error {
	req, err := s.checkUpdate(c)
	if err != nil {
		return err
	}
	req.log = func(string, ...any) {}
	// The early checks ran without the lock; $updatefn waits for it.
	// qemu-server src/PVE/API2/Qemu.pm $update_vm_api ($load_and_check_config
	// "early checks before forking/locking", then lock_config)
	if err := c.waitGuestFlock(QEMU, req.vmid, configLockTimeout); err != nil {
		return err
	}
	return s.applyUpdate(c.cluster, req)
}

// taskError turns an exception raised inside a worker into the text the
// task ends with. pve-common src/PVE/Exception.pm stringify puts the
// exception's code (raise_param_exc: 400, raise_perm_exc: 403) before the
// message, then one "param: text" line per error; a plain die has no code.
func taskError(err error) error {
	if err == nil {
		return nil
	}
	ae := asAPIError(err)
	if len(ae.params) == 0 && ae.status == http.StatusInternalServerError {
		return err
	}
	var b strings.Builder
	b.WriteString(itoa(ae.status) + " " + strings.TrimSuffix(ae.message, "\n"))
	for _, k := range sortedKeys(ae.params) {
		b.WriteString("\n" + k + ": " + ae.params[k])
	}
	return errorf("%s", b.String())
}

// checkUpdate is $update_vm_api up to the fork: the W16 and unknown-key
// checks, drive and NIC normalisation, storage access and the early
// config checks (W12, digest, W10 lock).
// qemu-server src/PVE/API2/Qemu.pm $update_vm_api (checks before the worker)
func (s *Sim) checkUpdate(c *call) (*updateRequest, error) {
	req := &updateRequest{
		node: c.str("node"), vmid: c.intParam("vmid", 0), digest: c.str("digest"),
		skiplock: c.boolParam("skiplock"), force: c.boolParam("force"),
		set: configParams(c, configControlParams), reverts: map[string]bool{},
	}
	if req.skiplock && c.user.String() != "root@pam" {
		return nil, paramError(map[string]string{"skiplock": "Only root may use this option."})
	}
	if err := checkSSHKeys(req.set); err != nil {
		return nil, err
	}
	deleteStr, revertStr := c.str("delete"), c.str("revert")
	if deleteStr == "" && revertStr == "" && len(req.set) == 0 {
		return nil, errorf("no options specified")
	}
	for _, opt := range splitList(revertStr) {
		if !c.cluster.conf.qemuOptionExists(opt) {
			return nil, paramError(map[string]string{"revert": "unknown option '" + opt + "'"})
		}
		if _, ok := req.set[opt]; ok {
			return nil, paramError(map[string]string{"delete": "you can't use '-" + opt + "' and -revert " + opt + "' at the same time"})
		}
		req.reverts[opt] = true
	}
	for _, opt := range splitList(deleteStr) {
		if opt == "cdrom" {
			opt = "ide2"
		}
		if _, ok := req.set[opt]; ok {
			// qemu-server src/PVE/API2/Qemu.pm update_vm_api, its text
			// with the unbalanced quote (W16).
			return nil, paramError(map[string]string{"delete": "you can't use '-" + opt + "' and -delete " + opt + "' at the same time"})
		}
		if req.reverts[opt] {
			return nil, paramError(map[string]string{"revert": "you can't use '-delete " + opt + "' and -revert " + opt + "' at the same time"})
		}
		if !c.cluster.conf.qemuOptionExists(opt) {
			return nil, paramError(map[string]string{"delete": "unknown option '" + opt + "'"})
		}
		req.deletes = append(req.deletes, opt)
	}
	if err := checkDriveParams(c, req.set); err != nil {
		return nil, err
	}
	for _, k := range sortedKeys(req.set) {
		switch {
		case strings.HasPrefix(k, "net") && !isDriveKey(k):
			v, err := s.normalizeNet(k, req.set[k])
			if err != nil {
				return nil, err
			}
			req.set[k] = v
		// qemu-server src/PVE/API2/Qemu.pm $update_vm_api: vmgenid=1 asks for a new UUID
		case k == "vmgenid" && req.set[k] == "1":
			req.set[k] = s.newUUID()
		}
	}
	for _, k := range append(append([]string(nil), req.deletes...), sortedKeys(req.set)...) {
		if err := checkModifyPerm(c, req.vmid, "", k); err != nil {
			return nil, err
		}
	}
	// qemu-server src/PVE/API2/Qemu.pm $updatefn calls assert_tag_permissions
	// for tags set or deleted, under the config lock.
	_, setTags := req.set["tags"]
	if setTags || containsString(req.deletes, "tags") {
		req.tagPerm = func() error { return assertTagPermissions(c, req.vmid) }
	}
	if err := checkStorageAccess(c, req.set, ""); err != nil {
		return nil, err
	}
	// qemu-server src/PVE/API2/Qemu.pm $update_vm_api: check_bridge_access
	// on the given values (a deleted net's old value is checked under the
	// config lock in $updatefn; not simulated).
	if err := checkQemuBridgeAccess(c, req.set); err != nil {
		return nil, err
	}
	g, err := loadQemu(c)
	if err != nil {
		return nil, err
	}
	if err := checkVMUpdateDevicePerms(c, req.vmid, req.set, req.deletes, g); err != nil {
		return nil, err
	}
	if err := checkHostPCIPerms(c, req.vmid, "", req.set, req.deletes, g.Config); err != nil {
		return nil, err
	}
	if err := req.checkConfig(c.cluster.conf, g); err != nil {
		return nil, err
	}
	return req, nil
}

// checkConfig is load_and_check_config: digest, lock (a hibernated guest's
// "suspended" lock does not stop a vmstate removal) and balloon size.
// qemu-server src/PVE/API2/Qemu.pm $load_and_check_config; the lock text is
// pve-guest-common src/PVE/AbstractConfig.pm check_lock.
func (req *updateRequest) checkConfig(conf *guestSchema, g *Guest) error {
	if req.digest != "" && req.digest != guestDigest(g) {
		return errorf("checksum mismatch (file change by other user?)")
	}
	lock := g.Lock()
	if lock == "suspended" && containsString(req.deletes, "vmstate") {
		lock = ""
	}
	if !req.skiplock && lock != "" {
		return errorf("VM is locked (%s)", lock)
	}
	_, setMem := req.set["memory"]
	balloon, setBalloon := req.set["balloon"]
	if setMem || setBalloon {
		memCfg := map[string]string{}
		for _, cfg := range []map[string]string{g.Config, g.Pending, req.set} {
			if v, ok := cfg["memory"]; ok {
				memCfg["memory"] = v
			}
		}
		if !setBalloon {
			balloon = g.Pending["balloon"]
			if balloon == "" {
				balloon = g.Config["balloon"]
			}
		}
		if b := configInt(map[string]string{"b": balloon}, "b", 0); b > conf.memoryMiB(memCfg) {
			return errorf("balloon value too large (must be smaller than assigned memory)")
		}
	}
	return nil
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// configPrivileges is check_vm_modify_config_perm's map of keys to the
// privilege they need.
// qemu-server src/PVE/API2/Qemu.pm $check_vm_modify_config_perm and its
// option groups ($cpuoptions, $memoryoptions, ...).
func configPrivilege(key string) (string, bool) {
	switch key {
	case "cores", "cpu", "cpulimit", "cpuunits", "numa", "smp", "sockets", "vcpus":
		return "VM.Config.CPU", true
	case "memory", "balloon", "shares", "allow-ksm":
		return "VM.Config.Memory", true
	case "acpi", "hotplug", "kvm", "machine", "scsihw", "smbios1", "tablet", "vga", "watchdog", "audio0", "rng0":
		return "VM.Config.HWType", true
	case "agent", "autostart", "bios", "description", "keyboard", "localtime", "migrate_downtime", "migrate_speed",
		"name", "onboot", "ostype", "protection", "reboot", "startdate", "startup", "tdf", "template":
		return "VM.Config.Options", true
	case "freeze":
		return "VM.PowerMgmt", true
	case "boot", "bootdisk", "vmstatestorage":
		return "VM.Config.Disk", true
	case "cicustom", "cipassword", "citype", "ciuser", "ciupgrade", "nameserver", "searchdomain", "sshkeys":
		return "VM.Config.Cloudinit", true
	}
	switch {
	case strings.HasPrefix(key, "numa"):
		return "VM.Config.CPU", true
	case strings.HasPrefix(key, "net"):
		return "VM.Config.Network", true
	case strings.HasPrefix(key, "ipconfig"):
		return "VM.Config.Cloudinit", true
	}
	return "", false
}

// checkModifyPerm is check_vm_modify_config_perm for one key. pool is the
// pool a create or restore names (update_vm passes none): each
// check_vm_perm tries the privileges on /pool/POOL before /vms/ID.
// qemu-server src/PVE/API2/Qemu.pm $check_vm_modify_config_perm,
// pve-access-control src/PVE/RPCEnvironment.pm check_vm_perm
func checkModifyPerm(c *call, vmid int, pool, key string) error {
	if c.user.String() == "root@pam" || isDriveKey(key) || key == "tags" || key == "cdrom" {
		return nil
	}
	for _, p := range []string{"unused", "serial", "usb", "hostpci", "virtiofs"} {
		if strings.HasPrefix(key, p) {
			return nil
		}
	}
	priv, ok := configPrivilege(key)
	if !ok {
		if key == "vmstate" {
			return c.checkVMPerm(vmid, pool, "VM.Config.Disk", "VM.PowerMgmt")
		}
		return errorf("only root can set '%s' config", key)
	}
	if strings.HasPrefix(key, "ipconfig") || priv == "VM.Config.Cloudinit" {
		if (pool != "" && c.can("/pool/"+pool, true, "VM.Config.Cloudinit", "VM.Config.Network")) ||
			c.can("/vms/"+itoa(vmid), true, "VM.Config.Cloudinit", "VM.Config.Network") {
			return nil
		}
		return permError("/vms/" + itoa(vmid) + ", VM.Config.Cloudinit|VM.Config.Network")
	}
	if err := c.checkVMPerm(vmid, pool, priv); err != nil {
		return err
	}
	if key == "startup" {
		// startup changes the host's boot behaviour.
		return c.check("/", false, "Sys.Modify")
	}
	return nil
}

// applyUpdate is $updatefn: deletions, then new values go to [PENDING];
// then the pending changes apply at once on a stopped guest, or as far as
// hotplug allows on a running one.
// qemu-server src/PVE/API2/Qemu.pm $update_vm_api $updatefn; hotplug errors are
// collected per option and raised as a parameter exception
// (qemu-server src/PVE/QemuServer.pm vmconfig_hotplug_pending).
func (s *Sim) applyUpdate(cl *Cluster, req *updateRequest) error {
	g, err := req.checkLocked(cl)
	if err != nil {
		return err
	}
	defer cl.conf.writeConfig(g)
	req.log("update VM %d: %s", req.vmid, req.describe())
	for opt := range req.reverts {
		if v, ok := g.Config[opt]; ok {
			req.set[opt] = v
		} else if _, ok := g.Pending[opt]; ok {
			req.deletes = append(req.deletes, opt)
		}
	}
	order := cl.conf.bootOrder(g.Config)
	modified := map[string]bool{}
	for _, opt := range req.deletes {
		if err := s.deleteOption(cl, g, req, opt, &order, modified); err != nil {
			return err
		}
	}
	for _, opt := range sortedKeys(req.set) {
		if err := s.setOption(cl, g, req, opt, &order, modified); err != nil {
			return err
		}
	}
	cleanupPending(g)
	if len(g.Pending) == 0 {
		return nil
	}
	errs := map[string]string{}
	if g.Status == "running" {
		s.hotplugPending(cl, g, modified, errs)
	} else {
		s.applyPending(cl, g, errs)
	}
	if len(errs) > 0 {
		return paramError(errs)
	}
	return nil
}

// checkLocked is what $updatefn checks under the config lock before it
// writes: $load_and_check_config again, then assert_tag_permissions where
// the tags change (deletions come first, then the new values; the
// simulator checks the tags before any option is written).
// qemu-server src/PVE/API2/Qemu.pm $update_vm_api $updatefn
func (req *updateRequest) checkLocked(cl *Cluster) (*Guest, error) {
	g, err := lookupQemu(cl, req.node, req.vmid)
	if err != nil {
		return nil, err
	}
	if err := req.checkConfig(cl.conf, g); err != nil {
		return nil, err
	}
	if req.tagPerm != nil {
		if err := req.tagPerm(); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// describe is the "-key value" list PVE logs for an update, the password
// hidden.
// qemu-server src/PVE/API2/Qemu.pm $update_vm_api ("update VM $vmid: ...")
func (req *updateRequest) describe() string {
	var parts []string
	for _, k := range sortedKeys(req.set) {
		v := req.set[k]
		if k == "cipassword" {
			v = "<hidden>"
		}
		parts = append(parts, "-"+k, v)
	}
	if len(req.deletes) > 0 {
		parts = append(parts, "-delete", strings.Join(req.deletes, ","))
	}
	return strings.Join(parts, " ")
}

// deleteOption is $updatefn's handling of one "delete" entry.
// qemu-server src/PVE/API2/Qemu.pm $updatefn (the @delete loop); protection
// texts are pve-guest-common src/PVE/AbstractConfig.pm check_protection.
func (s *Sim) deleteOption(cl *Cluster, g *Guest, req *updateRequest, opt string, order *[]string, modified map[string]bool) error {
	modified[opt] = true
	val, ok := g.Config[opt]
	if !ok {
		val, ok = g.Pending[opt]
	}
	if !ok {
		req.log("cannot delete '%s' - not set in current configuration!", opt)
		modified[opt] = false
		return nil
	}
	pendingVal, isPending := g.Pending[opt]
	delete(g.Pending, opt)
	if i := indexOf(*order, opt); i >= 0 {
		*order = append((*order)[:i:i], (*order)[i+1:]...)
		g.ensurePending()["boot"] = printBootOrder(*order)
		modified["boot"] = true
	}
	switch {
	case pvegrammar.IsQemuUnusedKey(opt):
		d, _ := cl.conf.parseDrive(opt, val)
		if g.Config["protection"] == "1" {
			return errorf("can't remove unused disk '%s' - protection mode enabled", d.file())
		}
		if err := deallocate(cl, g, opt, d, true); err != nil {
			return err
		}
		delete(g.Config, opt)
	case opt == "vmstate":
		if g.Config["protection"] == "1" {
			return errorf("can't remove vmstate '%s' - protection mode enabled", val)
		}
		if ownsVolume(cl, g, val) && cl.Volume(g.Node, val) != nil {
			if err := freeVolume(cl, g.Node, val); err != nil {
				return err
			}
		}
		delete(g.Config, opt)
		if g.Config["lock"] == "suspended" {
			delete(g.Config, "lock")
		}
		for _, k := range []string{"runningmachine", "runningcpu", "running-nets-host-mtu"} {
			delete(g.Config, k)
		}
	case isDriveKey(opt):
		if g.Config["protection"] == "1" {
			return errorf("can't remove drive '%s' - protection mode enabled", opt)
		}
		if isPending {
			if d, ok := cl.conf.parseDrive(opt, pendingVal); ok {
				registerUnused(cl, g, d)
			}
		}
		addPendingDelete(g, opt, req.force)
	case opt == "tags":
		delete(g.Config, opt)
	default:
		addPendingDelete(g, opt, req.force)
	}
	return nil
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// setOption is $updatefn's handling of one new value.
// qemu-server src/PVE/API2/Qemu.pm $updatefn (the add/change loop): tags are
// PVE::GuestHelpers::get_unique_tags (pve-guest-common
// src/PVE/GuestHelpers.pm), cipassword is encrypted unless hashed or
// Windows, description is read back right-trimmed (qemu-server
// src/PVE/QemuServer.pm parse_vm_config).
func (s *Sim) setOption(cl *Cluster, g *Guest, req *updateRequest, opt string, order *[]string, modified map[string]bool) error {
	modified[opt] = true
	value := req.set[opt]
	if p, ok := g.Pending[opt]; ok && p == value {
		return nil
	}
	switch {
	case isDriveKey(opt):
		if err := s.setDrive(cl, g, req, opt, value, order, modified); err != nil {
			return err
		}
	case opt == "tags":
		g.ensurePending()[opt] = pvegrammar.UniqueTags(value) // update_vm_api: get_unique_tags
	case opt == "cipassword":
		if !windowsGuest(g.Config) && !hashedPassword.MatchString(value) {
			value = s.cryptPassword(value)
		}
		g.Config[opt] = value
	case opt == "boot":
		if err := cl.conf.setBoot(g, req, value); err != nil {
			return err
		}
	default:
		g.ensurePending()[opt] = value
	}
	removePendingDelete(g, opt)
	return nil
}

// setDrive writes a drive value to [PENDING]: a create form allocates a new
// volume even over an occupied slot (W21), and a CD-ROM joins an explicit
// boot order (W28).
// qemu-server src/PVE/API2/Qemu.pm $updatefn (drive branch) and
// prohibit_tpm_version_change.
func (s *Sim) setDrive(cl *Cluster, g *Guest, req *updateRequest, opt, value string, order *[]string, modified map[string]bool) error {
	if old, ok := g.Config[opt]; ok && opt == "tpmstate0" {
		od, _ := cl.conf.parseDrive(opt, old)
		nd, _ := cl.conf.parseDrive(opt, value)
		if od.file() == nd.file() && valueOr(od["version"], "v1.2") != valueOr(nd["version"], "v1.2") {
			return errorf("cannot change TPM state version after creation")
		}
	}
	if p, ok := g.Pending[opt]; ok {
		if d, ok := cl.conf.parseDrive(opt, p); ok {
			registerUnused(cl, g, d)
		}
	}
	job := &diskJob{s: s, cl: cl, g: g, node: g.Node, log: req.log}
	created, err := job.createDisks(map[string]string{opt: value})
	if err != nil {
		return err
	}
	g.ensurePending()[opt] = created[opt]
	if len(*order) > 0 {
		if d, ok := cl.conf.parseDrive(opt, value); ok && d.isCDROMNotCloudInit() && indexOf(*order, opt) < 0 {
			*order = append(*order, opt)
			g.ensurePending()["boot"] = printBootOrder(*order)
			modified["boot"] = true
		}
	}
	return nil
}

func valueOr(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// setBoot checks that every device of a new boot order exists and drops
// the legacy bootdisk.
// qemu-server src/PVE/API2/Qemu.pm $updatefn (boot branch)
func (cs *guestSchema) setBoot(g *Guest, req *updateRequest, value string) error {
	// qemu-server src/PVE/API2/Qemu.pm update_vm_api: parse_property_string
	// of pve-qm-boot, whose die is the request's error.
	props, msg := cs.qemu.PropertyString("boot", value)
	if msg != "" {
		return errorf("%s", strings.TrimSuffix(msg, "\n"))
	}
	if order, ok := props["order"]; ok {
		devs := splitList(order)
		for _, dev := range devs {
			_, inConf := g.Config[dev]
			_, inPending := g.Pending[dev]
			_, inSet := req.set[dev]
			if !inConf && !inPending && !inSet || containsString(req.deletes, dev) {
				return errorf("invalid bootorder: device '%s' does not exist'", dev)
			}
		}
		value = printBootOrder(devs)
		if _, ok := g.Config["bootdisk"]; ok {
			addPendingDelete(g, "bootdisk", false)
		}
	}
	g.ensurePending()["boot"] = value
	return nil
}

// unlinkQemu is PUT unlink: update_vm with delete=idlist (and force).
// qemu-server src/PVE/API2/Qemu.pm unlink
func (s *Sim) unlinkQemu(c *call) (any, error) {
	c.params["delete"] = c.params["idlist"]
	delete(c.params, "idlist")
	return nil, s.updateQemu(c)
}
