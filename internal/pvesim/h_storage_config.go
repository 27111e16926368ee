package pvesim

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// storage.cfg writes: pve-storage src/PVE/API2/Storage/Config.pm create,
// update and delete. All three check Datastore.Allocate on /storage (their
// schema's permissions).

func (s *Sim) registerStorageConfigRoutes() {
	allocate := permission{path: "/storage", privs: []string{"Datastore.Allocate"}}
	s.handle(http.MethodPost, "/storage", route{perm: allocate, handle: s.createStorage})
	s.handle(http.MethodPut, "/storage/{storage}", route{perm: allocate, handle: s.updateStorage})
	s.handle(http.MethodDelete, "/storage/{storage}", route{perm: allocate, handle: s.deleteStorage})
}

// storageRequestOptions are the request's parameters other than the ones
// the handler takes out itself.
func storageRequestOptions(c *call, skip ...string) map[string]string {
	out := map[string]string{}
	for k, v := range c.params {
		if containsString(skip, k) {
			continue
		}
		out[k] = v
	}
	return out
}

// extractSensitive is PVE::Tools::extract_sensitive_params: the type's
// sensitive options leave the request; a deleted one is present with
// ok=false (undef), a given value overrides.
// pve-common src/PVE/Tools.pm extract_sensitive_params
func extractSensitive(t *storageType, params map[string]string, deleted []string) map[string]*string {
	out := map[string]*string{}
	for _, k := range t.sensitive {
		if containsString(deleted, k) {
			out[k] = nil
		}
		if v, ok := params[k]; ok {
			v := v
			out[k] = &v
			delete(params, k)
		}
	}
	return out
}

// createStorage is Config.pm create: check_config outside the lock (its
// errors come as they are), then under the storage.cfg lock the id check
// and the plugin's on_add_hook, whose errors come as "create storage
// failed: ...". Activating the new storage on the local node always works
// here (inferred: no hardware behind it).
// pve-storage src/PVE/API2/Storage/Config.pm create
func (s *Sim) createStorage(c *call) (any, error) {
	cl := c.cluster
	typ, id := c.str("type"), c.str("storage")
	params := storageRequestOptions(c, "type", "storage")
	// "prevent an empty nodelist": nodes with a false value is dropped.
	if !perlTruthy(params["nodes"]) {
		delete(params, "nodes")
	}
	t := s.storageTypesOf()[typ]
	if t == nil {
		// pve-common src/PVE/SectionConfig.pm lookup (not reached: the
		// schema's enum has the release's types).
		return nil, errorf("unknown section type '%s'", typ)
	}
	sensitive := extractSensitive(t, params, nil)
	if t.mountPath && !perlTruthy(params["path"]) {
		// pve-storage src/PVE/Storage/NFSPlugin.pm, CIFSPlugin.pm,
		// CephFSPlugin.pm check_config
		params["path"] = "/mnt/pve/" + id
	}
	set, err := checkStorageConfig(t, params, true)
	if err != nil {
		return nil, err
	}
	fail := func(err error) error { return wrapLockError("create storage failed", err) }
	if cl.Storage(id) != nil {
		return nil, fail(errorf("storage ID '%s' already defined", id))
	}
	st := &Storage{ID: id, Type: typ, Config: set.values, Secrets: map[string]string{}, Capacity: defaultStorageCapacity(typ)}
	applyStorageSettings(st, t, set)
	returned, err := s.storageAddHook(cl, st, sensitive)
	if err != nil {
		return nil, fail(err)
	}
	cl.insertStorage(st)
	res := map[string]any{"storage": id, "type": typ}
	if returned != nil {
		res["config"] = returned
	}
	return res, nil
}

// applyStorageSettings stores checked options: content (the type's
// default when none is set, parse_config), nodes, disable and shared (the
// types of @SHARED_STORAGE are always shared) live in the struct, the rest
// in Config.
// pve-storage src/PVE/Storage/Plugin.pm parse_config
func applyStorageSettings(st *Storage, t *storageType, set *storageSettings) {
	if set.hasContent {
		st.Content = set.content
	}
	if st.Content == nil {
		st.Content = append([]string(nil), t.defContent...)
	}
	if set.hasNodes {
		// An empty list is not written to storage.cfg: no restriction.
		st.Nodes = set.nodes
		if len(st.Nodes) == 0 {
			st.Nodes = nil
		}
	}
	if v, ok := set.values["disable"]; ok {
		st.Disabled = v == "1"
		delete(set.values, "disable")
	}
	for k, v := range set.values {
		st.Config[k] = v
	}
	st.Shared = t.shared || st.Config["shared"] == "1"
	if st.ID == "local" {
		// parse_config removes node restrictions of 'local'.
		st.Nodes = nil
	}
}

// storageAddHook is the plugin's on_add_hook, what can be seen of it
// without hardware: the secrets kept under priv/, the PBS encryption key
// and master key, the LVM base check, ZFS over iSCSI's zfs-base-path. It
// returns the "config" of the answer (PBS always returns one).
// pve-storage src/PVE/Storage/{PBS,CIFS,RBD,CephFS,ESXi,LVM,ZFS}Plugin.pm
// on_add_hook.
func (s *Sim) storageAddHook(cl *Cluster, st *Storage, sensitive map[string]*string) (map[string]any, error) {
	switch st.Type {
	case "pbs":
		res := map[string]any{}
		if p := sensitive["password"]; p != nil {
			st.Secrets["password"] = *p
		}
		if k := sensitive["encryption-key"]; k != nil {
			key, err := s.pbsEncryptionKey(st, st.Config, *k)
			if err != nil {
				return nil, err
			}
			res["encryption-key"] = key
		}
		if m := sensitive["master-pubkey"]; m != nil {
			if _, ok := st.Config["encryption-key"]; !ok {
				return nil, errorf("'master-pubkey' can only be used together with 'encryption-key'")
			}
			st.Secrets["master-pubkey"] = *m
			st.Config["master-pubkey"] = "1"
		}
		return res, nil
	case "cifs", "rbd", "cephfs":
		// CIFS keeps a password without a username too (it warns).
		for k, v := range sensitive {
			if v != nil {
				st.Secrets[k] = *v
			}
		}
	case "esxi":
		p := sensitive["password"]
		if p == nil {
			return nil, errorf("missing password")
		}
		st.Secrets["password"] = *p
	case "lvm":
		return nil, lvmBaseCheck(cl, st)
	case "zfs":
		return nil, zfsBasePath(st)
	}
	return nil, nil
}

// pbsEncryptionKey is on_add_hook's and on_update_hook's handling of
// encryption-key: 'autogen' has proxmox-backup-client create a key without
// passphrase, anything else must be a JSON key with a data member.
// storage.cfg keeps the key's fingerprint (or 1), priv/ the key. The key
// is returned to the caller.
// pve-storage src/PVE/Storage/PBSPlugin.pm on_add_hook, on_update_hook,
// $autogen_encryption_key.
// The fingerprint goes to opts: the new definition on create, the update's
// options on update (set after the deletions, so a key given with
// delete=encryption-key stays).
func (s *Sim) pbsEncryptionKey(st *Storage, opts map[string]string, given string) (string, error) {
	if given == "autogen" {
		var data, fp [32]byte
		randomBytes(data[:])
		randomBytes(fp[:])
		hexFP := hex.EncodeToString(fp[:])
		parts := make([]string, 0, 32)
		for i := 0; i < len(hexFP); i += 2 {
			parts = append(parts, hexFP[i:i+2])
		}
		now := s.now().UTC().Format(time.RFC3339)
		key, _ := json.Marshal(map[string]any{
			"kdf": nil, "created": now, "modified": now,
			"data": base64.StdEncoding.EncodeToString(data[:]), "fingerprint": strings.Join(parts, ":"),
		})
		st.Secrets["encryption-key"] = string(key)
		opts["encryption-key"] = strings.Join(parts, ":")
		return string(key), nil
	}
	var decoded map[string]any
	if err := json.Unmarshal([]byte(given), &decoded); err != nil || decoded == nil {
		return "", errorf("Value does not seems like a valid, JSON formatted encryption key!")
	}
	if _, ok := decoded["data"]; !ok {
		return "", errorf("Value does not seems like a valid, JSON formatted encryption key!")
	}
	st.Secrets["encryption-key"] = given
	fp, _ := decoded["fingerprint"].(string)
	if fp == "" {
		fp = "1"
	}
	opts["encryption-key"] = fp
	return given, nil
}

// lvmBaseCheck is LVMPlugin on_add_hook's check of base: the base
// volume's storage must exist and be an iSCSI storage.
// pve-storage src/PVE/Storage/LVMPlugin.pm on_add_hook
func lvmBaseCheck(cl *Cluster, st *Storage) error {
	base := st.Config["base"]
	if base == "" {
		return nil
	}
	baseID, _, _ := strings.Cut(base, ":")
	b := cl.Storage(baseID)
	if b == nil {
		return errorf("base storage ID '%s' does not exist", baseID)
	}
	if b.Type != "iscsi" {
		// A die without newline: Perl adds the location.
		return errorf("unsupported base type '%s' at /usr/share/perl5/PVE/Storage/LVMPlugin.pm line 489.", b.Type)
	}
	return nil
}

// zfsBasePath is ZFSPlugin on_add_hook: without zfs-base-path the
// provider's default is stored (comstar /dev/zvol/rdsk, istgt /dev/zvol;
// iet and LIO ask the target over ssh, which answers /dev/zvol here).
// pve-storage src/PVE/Storage/ZFSPlugin.pm on_add_hook,
// LunCmd/Comstar.pm and LunCmd/Istgt.pm get_base.
func zfsBasePath(st *Storage) error {
	if st.Config["zfs-base-path"] != "" {
		return nil
	}
	switch p := st.Config["iscsiprovider"]; p {
	case "comstar":
		st.Config["zfs-base-path"] = "/dev/zvol/rdsk"
	case "istgt", "iet", "LIO":
		st.Config["zfs-base-path"] = "/dev/zvol"
	default:
		return errorf("%s: unknown iscsi provider. Available [comstar, istgt, iet, LIO] at /usr/share/perl5/PVE/Storage/ZFSPlugin.pm line 35.", p)
	}
	return nil
}

// updateStorage is Config.pm update: all under the storage.cfg lock, so
// every error comes as "update storage failed: ...": the digest, the
// storage, check_config (fixed options refused even unchanged), the
// delete list's checks, the plugin's update hook, then deletions and new
// values.
// pve-storage src/PVE/API2/Storage/Config.pm update
func (s *Sim) updateStorage(c *call) (any, error) {
	cl := c.cluster
	id := c.str("storage")
	params := storageRequestOptions(c, "storage", "digest", "delete")
	var deleted []string
	if d := c.str("delete"); d != "" {
		deleted = splitList(d)
	}
	fail := func(err error) error { return wrapLockError("update storage failed", err) }
	if err := assertFirewallDigest(s.storageCfgDigest(cl), c.str("digest")); err != nil {
		return nil, fail(err)
	}
	st := cl.Storage(id)
	if st == nil {
		return nil, fail(errorf("storage '%s' does not exist", id))
	}
	t := s.storageTypesOf()[st.Type]
	if t == nil {
		return nil, fail(errorf("unknown section type '%s'", st.Type))
	}
	sensitive := extractSensitive(t, params, deleted)
	set, err := checkStorageConfig(t, params, false)
	if err != nil {
		return nil, fail(err)
	}
	for _, k := range deleted {
		o, ok := t.options[k]
		switch {
		case !ok:
			return nil, fail(errorf("no such option '%s'", k))
		case !o.optional:
			return nil, fail(errorf("unable to delete required option '%s'", k))
		case o.fixed:
			return nil, fail(errorf("unable to delete fixed option '%s'", k))
		}
		// Checked against check_config's result: a format it dropped is
		// not set.
		if _, given := params[k]; given && (k != "format" || !set.formatDropped) {
			return nil, fail(errorf("cannot set and delete property '%s' at the same time!", k))
		}
	}
	next := st.cloneConfig()
	returned, err := s.storageUpdateHook(cl, next, set, deleted, sensitive)
	if err != nil {
		return nil, fail(err)
	}
	for _, k := range deleted {
		switch k {
		case "content":
			next.Content = nil
		case "nodes":
			next.Nodes = nil
		case "disable":
			next.Disabled = false
		default:
			delete(next.Config, k)
		}
	}
	applyStorageSettings(next, t, set)
	*st = *next
	res := map[string]any{"storage": id, "type": st.Type}
	if returned != nil {
		res["config"] = returned
	}
	return res, nil
}

// cloneConfig copies a storage's definition for an update.
func (st *Storage) cloneConfig() *Storage {
	c := *st
	c.Content = append([]string(nil), st.Content...)
	if st.Nodes != nil {
		c.Nodes = append([]string(nil), st.Nodes...)
	}
	c.Config = copyMap(st.Config)
	if c.Config == nil {
		c.Config = map[string]string{}
	}
	c.Secrets = copyMap(st.Secrets)
	if c.Secrets == nil {
		c.Secrets = map[string]string{}
	}
	return &c
}

// storageUpdateHook is the plugin's on_update_hook(_full): secrets set or
// removed (a deleted sensitive option arrives undefined), PBS's keys, and
// LVM's refusal to turn off snapshot-as-volume-chain while a qcow2 image
// is on the storage.
// pve-storage src/PVE/Storage/{PBS,CIFS,RBD,CephFS,ESXi}Plugin.pm
// on_update_hook, LVMPlugin.pm on_update_hook_full.
func (s *Sim) storageUpdateHook(cl *Cluster, st *Storage, set *storageSettings, deleted []string,
	sensitive map[string]*string,
) (map[string]any, error) {
	switch st.Type {
	case "pbs":
		res := map[string]any{}
		if p, ok := sensitive["password"]; ok {
			setSecret(st, "password", p)
		}
		if k, ok := sensitive["encryption-key"]; ok {
			if k == nil {
				delete(st.Secrets, "encryption-key")
				delete(st.Config, "encryption-key")
			} else {
				key, err := s.pbsEncryptionKey(st, set.values, *k)
				if err != nil {
					return nil, err
				}
				res["encryption-key"] = key
			}
		}
		if m, ok := sensitive["master-pubkey"]; ok {
			setSecret(st, "master-pubkey", m)
			if m != nil {
				set.values["master-pubkey"] = "1"
			}
		}
		return res, nil
	case "cifs", "rbd", "cephfs", "esxi":
		for k, v := range sensitive {
			setSecret(st, k, v)
		}
	case "lvm":
		if st.Config["snapshot-as-volume-chain"] == "1" &&
			(set.values["snapshot-as-volume-chain"] == "0" || containsString(deleted, "snapshot-as-volume-chain")) {
			for _, n := range cl.Nodes {
				for _, v := range cl.VolumesOn(st.ID, n.Name) {
					if v.Format == "qcow2" {
						return nil, errorf("%s - cannot disable 'snapshot-as-volume-chain' while a qcow2 image exists", st.ID)
					}
				}
			}
		}
	}
	return nil, nil
}

// setSecret stores a sensitive value, or removes it when v is nil.
func setSecret(st *Storage, k string, v *string) {
	if v == nil {
		delete(st.Secrets, k)
		return
	}
	st.Secrets[k] = *v
}

// deleteStorage is Config.pm delete: refused while another storage uses
// it as base, otherwise the definition goes (the volumes on it are not
// looked at) with the ACL entries on it and its pool memberships. A
// deleted 'local' comes back as parse_config's default.
// pve-storage src/PVE/API2/Storage/Config.pm delete,
// src/PVE/Storage.pm storage_is_used.
func (s *Sim) deleteStorage(c *call) (any, error) {
	cl := c.cluster
	id := c.str("storage")
	fail := func(err error) error { return wrapLockError("delete storage failed", err) }
	if cl.Storage(id) == nil {
		return nil, fail(errorf("storage '%s' does not exist", id))
	}
	for _, other := range cl.Storages {
		if base := other.Config["base"]; base != "" {
			if sid, _, _ := strings.Cut(base, ":"); sid == id {
				return nil, fail(errorf("can't remove storage - storage is used as base of another storage"))
			}
		}
	}
	cl.removeStorage(id)
	if id == "local" {
		cl.insertStorage(defaultLocalStorage())
	}
	cl.removeStorageAccess(id)
	return nil, nil
}
