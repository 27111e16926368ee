package pvesim

import (
	"strings"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
)

// Who may change what in a container: PVE::LXC::check_ct_modify_config_perm
// and the storage and bridge checks it calls. The only identity that skips
// them is root@pam itself; an API token of root@pam ("root@pam!name") is
// another identity and is checked like any user (W33, W36).

func isRootPam(c *call) bool { return c.user.String() == "root@pam" }

// ctModifyCheck is one check_ct_modify_config_perm run: the config before
// (nil at create), the new values and the deletions.
type ctModifyCheck struct {
	vmid         int
	pool         string
	oldConf      map[string]string
	newConf      map[string]string
	deletes      []string
	unprivileged bool
}

// checkCTModifyPerm is check_ct_modify_config_perm (pve-container
// src/PVE/LXC.pm). Keys are checked in sorted order so that the first
// refusal is deterministic (PVE walks a hash: its order is random).
func checkCTModifyPerm(c *call, m ctModifyCheck) error {
	if isRootPam(c) {
		return nil
	}
	for _, k := range sortedKeys(m.newConf) {
		if err := m.check(c, k, false); err != nil {
			return err
		}
	}
	for _, k := range m.deletes {
		if err := m.check(c, k, true); err != nil {
			return err
		}
	}
	return nil
}

// check is check_ct_modify_config_perm's $check for one option (pve-container
// src/PVE/LXC.pm).
func (m ctModifyCheck) check(c *call, opt string, isDelete bool) error {
	switch {
	case opt == "cores" || opt == "cpuunits" || opt == "cpulimit":
		return c.checkVMPerm(m.vmid, m.pool, "VM.Config.CPU")
	case isMountKey(opt):
		if err := c.checkVMPerm(m.vmid, m.pool, "VM.Config.Disk"); err != nil || isDelete {
			return err
		}
		mp, err := c.cluster.conf.parseMountPoint(opt, m.newConf[opt])
		if err != nil {
			return err
		}
		if !mp.isVolume() {
			return permError("mount point type " + mp.kind() + " is only allowed for root@pam") // W36
		}
		if sm := newDiskRE.FindStringSubmatch(mp.volume()); sm != nil {
			return c.check("/storage/"+sm[1], false, "Datastore.AllocateSpace")
		}
		return checkVolumeAccess(c, m.vmid, mp.volume(), "rootdir")
	case opt == "memory" || opt == "swap":
		return c.checkVMPerm(m.vmid, m.pool, "VM.Config.Memory")
	case isCTNetKey(opt):
		if err := c.checkVMPerm(m.vmid, m.pool, "VM.Config.Network"); err != nil {
			return err
		}
		for _, raw := range []string{m.oldConf[opt], m.newConf[opt]} {
			if err := checkBridgeAccess(c, opt, raw); err != nil {
				return err
			}
		}
		return nil
	case strings.HasPrefix(opt, "dev"):
		return permError("configuring device passthrough is only allowed for root@pam")
	case opt == "nameserver" || opt == "searchdomain" || opt == "hostname":
		return c.checkVMPerm(m.vmid, m.pool, "VM.Config.Network")
	case opt == "features":
		return m.checkFeatures(c, isDelete)
	case opt == "hookscript":
		return permError("changing the hookscript is only allowed for root@pam")
	case opt == "tags":
		return m.checkTags(c)
	}
	return c.checkVMPerm(m.vmid, m.pool, "VM.Config.Options")
}

// checkFeatures is the features branch (W33): a privileged container's
// flags are root@pam's alone; otherwise only nesting may change, and that
// needs VM.Allocate. A features value that is being created or deleted
// counts as a nesting change when nesting is its only key, whatever its
// value: pve-container 651478e ("api: config: permission checks: fix check
// for 'nesting' feature", in 5.2.4) made both checks exists($features->
// {nesting}), so a lone nesting=0 is no longer taken for other flags.
func (m ctModifyCheck) checkFeatures(c *call, isDelete bool) error {
	if !m.unprivileged {
		return permError("changing feature flags for privileged container is only allowed for root@pam")
	}
	nestingChanged, otherChanged := false, false
	classify := func(features map[string]string) {
		_, hasNesting := features["nesting"]
		if len(features) == 1 && hasNesting {
			nestingChanged = true
		} else if len(features) > 0 {
			otherChanged = true
		}
	}
	if isDelete {
		old, err := c.cluster.conf.parseFeatures(m.oldConf["features"])
		if err != nil {
			return err
		}
		classify(old)
	} else {
		features, err := c.cluster.conf.parseFeatures(m.newConf["features"])
		if err != nil {
			return err
		}
		if m.oldConf["features"] == "" {
			classify(features)
		} else {
			old, err := c.cluster.conf.parseFeatures(m.oldConf["features"])
			if err != nil {
				return err
			}
			for _, k := range unionKeys(old, features) {
				if old[k] == features[k] {
					continue
				}
				if k != "nesting" {
					otherChanged = true
					break
				}
				nestingChanged = true
			}
		}
	}
	if otherChanged {
		return permError("changing feature flags (except nesting) is only allowed for root@pam")
	}
	if nestingChanged {
		return c.checkVMPerm(m.vmid, m.pool, "VM.Allocate")
	}
	return nil
}

// checkTags is pve-guest-common src/PVE/GuestHelpers.pm
// assert_tag_permissions: VM.Config.Options on the VM (never the pool),
// whether or not the tags change. The per-tag checks follow datacenter.cfg's
// tag-style, whose default (free-form tags) allows every tag; the simulator
// has no datacenter.cfg.
func (m ctModifyCheck) checkTags(c *call) error {
	return c.checkVMPerm(m.vmid, "", "VM.Config.Options")
}

func isCTNetKey(key string) bool {
	return pvegrammar.IsLXCNetKey(key)
}

// checkBridgeAccess is check_bridge_access: SDN.Use on the bridge's
// zone (a vnet's zone, else localnetwork), on its VLAN or trunks if any
// (pve-container src/PVE/LXC.pm check_bridge_access, pve-guest-common
// src/PVE/GuestHelpers.pm check_vnet_access).
func checkBridgeAccess(c *call, key, raw string) error {
	if raw == "" || isRootPam(c) {
		return nil
	}
	n, msg := c.cluster.conf.lxc.PropertyString(key, raw)
	if msg != "" || n["bridge"] == "" {
		return nil
	}
	return checkVnetAccess(c, n["bridge"], n["tag"], n["trunks"])
}

// checkVolumeAccess is pve-storage src/PVE/Storage.pm check_volume_access: the volume's
// content must be ctype ("rootdir" also takes images); then root@pam,
// a Datastore.Allocate holder or the owner may use it; templates need
// read access to the storage; another guest's backup needs
// Datastore.AllocateSpace and VM.Backup on that guest, its image
// VM.Config.Disk. A host path is root@pam's alone.
func checkVolumeAccess(c *call, vmid int, volid, ctype string) error {
	sid, _, found := strings.Cut(volid, ":")
	if !found || sid == "" || strings.HasPrefix(volid, "/") {
		if !isRootPam(c) {
			return errorf("Only root can pass arbitrary filesystem paths.")
		}
		return nil
	}
	_, info, err := parseVolume(c.cluster, volid)
	if err != nil {
		return err
	}
	if ctype != "" && info.vtype != ctype && (ctype != "rootdir" || info.vtype != "images") {
		return errorf("unable to use volume %s - content type needs to be '%s'", volid, ctype)
	}
	if isRootPam(c) || c.can("/storage/"+sid, false, "Datastore.Allocate") {
		return nil
	}
	switch {
	case info.vtype == "iso" || info.vtype == "vztmpl" || info.vtype == "import":
		return c.check("/storage/"+sid, true, "Datastore.AllocateSpace", "Datastore.Audit")
	case info.owner != 0 && info.owner == vmid:
		return nil
	case info.vtype == "backup" && info.owner != 0:
		if err := c.check("/storage/"+sid, false, "Datastore.AllocateSpace"); err != nil {
			return err
		}
		return c.check("/vms/"+itoa(info.owner), false, "VM.Backup")
	case info.vtype == "images" && info.owner != 0:
		if err := c.check("/storage/"+sid, false, "Datastore.Audit"); err != nil {
			return err
		}
		return c.check("/vms/"+itoa(info.owner), false, "VM.Config.Disk")
	}
	return errorf("missing privileges to access %s", volid)
}
