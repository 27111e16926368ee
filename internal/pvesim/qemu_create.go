package pvesim

import (
	"encoding/base64"
	"encoding/binary"
	"regexp"
	"strings"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
)

// createControlParams are create_vm's parameters that are not config keys
// (qemu-server src/PVE/API2/Qemu.pm create_vm extracts these).
var createControlParams = map[string]bool{
	"node": true, "vmid": true, "archive": true, "storage": true, "force": true, "unique": true,
	"live-restore": true, "pool": true, "bwlimit": true, "start": true, "ha-managed": true,
	"import-working-storage": true,
}

// configParams returns the request's config keys (without the method's
// control parameters), with qemu's "cdrom" alias resolved to ide2.
func configParams(c *call, control map[string]bool) map[string]string {
	out := map[string]string{}
	for k, v := range c.params {
		if !control[k] {
			out[k] = v
		}
	}
	if v, ok := out["cdrom"]; ok {
		if !strings.Contains(v, "media=") {
			v += ",media=cdrom"
		}
		out["ide2"] = v
		delete(out, "cdrom")
	}
	return out
}

// createQemu is create_vm; a restore ("archive") is restoreQemu.
// Parameter, permission and storage checks answer synchronously; the vmid
// is reserved with "lock: create" (W10, W11: nameless while the task
// runs); the disks are made in the qmcreate task, which removes the guest
// again when it fails.
// qemu-server src/PVE/API2/Qemu.pm create_vm: pool, storage, VM.PowerMgmt with
// start, VM.Allocate (raised bare), sshkeys, $check_storage_access,
// $check_vm_modify_config_perm, hostpci, $check_drive_param, NICs, then
// create_and_lock_config with "$emsg" (pve-cluster src/PVE/Cluster.pm
// check_vmid_unused words the taken id).
func (s *Sim) createQemu(c *call) (any, error) {
	cl := c.cluster
	node, vmid := c.str("node"), c.intParam("vmid", 0)
	if _, ok := c.param("archive"); ok {
		return s.restoreQemu(c)
	}
	pool, storage, start := c.str("pool"), c.str("storage"), c.boolParam("start")
	if pool != "" && cl.Pools[pool] == nil {
		return nil, permError("pool '" + pool + "' does not exist")
	}
	if storage != "" {
		if err := c.check("/storage/"+storage, false, "Datastore.AllocateSpace"); err != nil {
			return nil, err
		}
	}
	if start {
		if err := c.checkVMPerm(vmid, pool, "VM.PowerMgmt"); err != nil {
			return nil, err
		}
	}
	if !c.can("/vms/"+itoa(vmid), false, "VM.Allocate") && (pool == "" || !c.can("/pool/"+pool, false, "VM.Allocate")) {
		return nil, permError("")
	}
	params := configParams(c, createControlParams)
	if err := checkSSHKeys(params); err != nil {
		return nil, err
	}
	if err := checkStorageAccess(c, params, storage); err != nil {
		return nil, err
	}
	for _, k := range sortedKeys(params) {
		if err := checkModifyPerm(c, vmid, pool, k); err != nil {
			return nil, err
		}
	}
	if err := checkVMCreateDevicePerms(c, vmid, pool, params); err != nil {
		return nil, err
	}
	if err := checkHostPCIPerms(c, vmid, pool, params, nil, nil); err != nil {
		return nil, err
	}
	// qemu-server src/PVE/API2/Qemu.pm create_vm: check_bridge_access
	if err := checkQemuBridgeAccess(c, params); err != nil {
		return nil, err
	}
	if err := checkDriveParams(c, params); err != nil {
		return nil, err
	}
	for _, k := range sortedKeys(params) {
		if strings.HasPrefix(k, "net") && !isDriveKey(k) {
			v, err := s.normalizeNet(k, params[k])
			if err != nil {
				return nil, err
			}
			params[k] = v
		}
	}
	if _, err := c.createAndLockConfig(vmid, node, false, "unable to create VM "); err != nil {
		return nil, err
	}
	t := s.startTask(node, "qmcreate", itoa(vmid), c.user, func(t *Task) error {
		return s.finishCreate(cl, t, node, vmid, params, storage, pool, start, func() error {
			return assertTagPermissions(c, vmid)
		})
	})
	return t.UPID, nil
}

// createAndLockConfig is create_and_lock_config in create_vm's synchronous
// part: it waits up to 5 s for the config flock (a worker of the same vmid
// may hold it, a destroy that is about to end, say), then, under it,
// refuses a vmid that is taken (unless force lets a restore overwrite the
// VM on this node) and writes "lock: create"; a failure is "$emsg $err".
// It reports whether a VM existed. The handler must not have changed the
// model before (the wait lets other calls run).
// pve-guest-common src/PVE/AbstractConfig.pm create_and_lock_config
// (lock_config_full with 5 s, check_lock); pve-cluster src/PVE/Cluster.pm
// check_vmid_unused; qemu-server src/PVE/API2/Qemu.pm create_vm ($emsg).
func (c *call) createAndLockConfig(vmid int, node string, overwrite bool, emsg string) (bool, error) {
	emsg += itoa(vmid) + " - "
	if err := c.waitGuestFlock(QEMU, vmid, createLockTimeout); err != nil {
		return false, errorf("%s%s", emsg, strings.TrimSuffix(asAPIError(err).message, "\n"))
	}
	cl := c.cluster
	old := cl.Guests[vmid]
	switch {
	case old != nil && (!overwrite || old.Type != QEMU || old.Node != node):
		return false, errorf("%s%s %d already exists on node '%s'", emsg, old.kind(), vmid, old.Node) // W13
	case old != nil:
		if err := cl.LockGuest(vmid, "create"); err != nil {
			return false, errorf("%s%s", emsg, strings.TrimSuffix(asAPIError(err).message, "\n"))
		}
		return true, nil
	}
	return false, cl.AddGuest(&Guest{VMID: vmid, Node: node, Type: QEMU, Config: map[string]string{"lock": "create"}})
}

// checkVMPerm is check_vm_perm: the privileges on the pool, else on the VM
// (pve-access-control src/PVE/RPCEnvironment.pm check_vm_perm; check names
// the first privilege missing on the VM).
func (c *call) checkVMPerm(vmid int, pool string, privs ...string) error {
	if pool != "" && c.can("/pool/"+pool, false, privs...) {
		return nil
	}
	for _, priv := range privs {
		if !c.can("/vms/"+itoa(vmid), false, priv) {
			return permError("/vms/" + itoa(vmid) + ", " + priv)
		}
	}
	return nil
}

// checkSSHKeys is the create and update handlers' validate_ssh_public_keys
// on the decoded sshkeys value (W30): every line must be a public key.
// qemu-server src/PVE/API2/Qemu.pm create_vm and update_vm_api decode with
// URI::Escape's uri_unescape, which never fails (a stray "%" stays), and
// pve-common src/PVE/Tools.pm validate_ssh_public_keys checks each line that
// is not blank.
func checkSSHKeys(params map[string]string) error {
	v, ok := params["sshkeys"]
	if !ok {
		return nil
	}
	for _, k := range pvegrammar.SSHKeyLines(pvegrammar.URIUnescape(v)) {
		if !validPublicKey(k) {
			return errorf("SSH public key validation error")
		}
	}
	return nil
}

// sshKeyLine is an authorized_keys line: optional options, a key type and
// the base64 key blob.
var sshKeyLine = regexp.MustCompile(`(?:^|\s)((?:ssh-(?:rsa|dss|ed25519)|ecdsa-sha2-nistp(?:256|384|521)|` +
	`sk-(?:ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com))\s+([A-Za-z0-9+/]+={0,2})(?:\s|$)`)

// validPublicKey checks what ssh-keygen -l would: the blob decodes and
// starts with its own key type; an ed25519 key has its fixed length.
// inferred: validate_ssh_public_keys asks ssh-keygen -l (OpenSSH); these are the
// checks ssh-keygen makes of a public key line, as far as a blob shows them.
func validPublicKey(line string) bool {
	m := sshKeyLine.FindStringSubmatch(line)
	if m == nil {
		return false
	}
	blob, err := base64.StdEncoding.DecodeString(m[2])
	if err != nil || len(blob) < 4 {
		return false
	}
	n := int(binary.BigEndian.Uint32(blob))
	if len(blob) < 4+n || string(blob[4:4+n]) != m[1] {
		return false
	}
	const ed25519Blob = 4 + len("ssh-ed25519") + 4 + 32
	return m[1] != "ssh-ed25519" || len(blob) == ed25519Blob
}

// finishCreate is the qmcreate worker: allocate the disks, complete the
// config PVE's way (meta, boot order, smbios1 uuid, vmgenid, tags), join
// the pool and start the guest if asked.
// qemu-server src/PVE/API2/Qemu.pm create_vm $createfn and $realcmd: on failure
// the volumes are freed, the config file unlinked, "$emsg $err".
func (s *Sim) finishCreate(cl *Cluster, t *Task, node string, vmid int, params map[string]string,
	storage, pool string, start bool, tagPerm func() error,
) error {
	fail := func(err error) error {
		if g := cl.Guests[vmid]; g != nil && g.Node == node && g.Lock() == "create" {
			cl.RemoveGuest(vmid)
		}
		// "$emsg $err" stringifies an exception with its code (a 403 of a
		// permission check) before the message.
		return errorf("unable to create VM %d - %s", vmid, taskError(err).Error())
	}
	g := cl.Guests[vmid]
	if g == nil || g.Node != node || g.Lock() != "create" {
		return fail(errorf("Configuration file '%s' does not exist", configPath(node, QEMU, vmid)))
	}
	conf := copyMap(params)
	conf["meta"] = "creation-qemu=" + qemuVersion + ",ctime=" + itoa(int(s.now().Unix()))
	job := &diskJob{s: s, cl: cl, g: &Guest{VMID: vmid, Node: node, Type: QEMU, Config: conf}, node: node,
		defStore: storage, log: t.Log}
	created, err := job.createDisks(params)
	if err != nil {
		return fail(err)
	}
	for k, v := range created {
		conf[k] = v
	}
	if _, ok := conf["boot"]; !ok {
		conf["boot"] = printBootOrder(cl.conf.defaultBootDevices(conf))
	}
	if _, ok := conf["smbios1"]; !ok {
		conf["smbios1"] = "uuid=" + s.newUUID()
	}
	if v, ok := conf["vmgenid"]; !ok || v == "1" {
		conf["vmgenid"] = s.newUUID()
	}
	if windowsGuest(conf) {
		conf["machine"] = pinMachine(conf["machine"])
	}
	if tags, ok := conf["tags"]; ok {
		// $realcmd checks the tags last, after the disks are made, and
		// frees them when the check fails.
		// qemu-server src/PVE/API2/Qemu.pm create_vm (assert_tag_permissions)
		if err := tagPerm(); err != nil {
			job.freeMade()
			return fail(err)
		}
		conf["tags"] = pvegrammar.UniqueTags(tags)
	}
	g.Config = conf
	cl.conf.writeConfig(g)
	if pool != "" && cl.Pools[pool] != nil {
		cl.addPoolMember(pool, vmid)
	}
	if start {
		t.Log("Execute autostart")
		if err := s.vmStart(cl, g, t, false); err != nil {
			// qemu-server src/PVE/API2/Qemu.pm create_vm: warn $@ after
			// the autostart; the task still ends OK.
			t.Note("%s", strings.TrimSuffix(asAPIError(err).message, "\n"))
		}
	}
	return nil
}

// pinMachine is check_and_pin_machine_string for Windows guests: an
// unversioned machine type gets the current version.
// qemu-server src/PVE/QemuServer/Machine.pm check_and_pin_machine_string, with
// the simulator's QEMU version.
func pinMachine(machine string) string {
	typ, rest, _ := strings.Cut(machine, ",")
	if rest != "" {
		rest = "," + rest
	}
	switch typ {
	case "", "pc", "i440fx":
		return "pc-i440fx-10.1" + rest
	case "q35":
		return "pc-q35-10.1" + rest
	}
	return machine
}
