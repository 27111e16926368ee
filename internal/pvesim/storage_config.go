package pvesim

import (
	"crypto/sha1" //nolint:gosec // PVE's config digest is SHA-1
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// storage.cfg as a section config: checking the options of a create or an
// update against the type's options, decoding content and nodes, the file's
// text and digest.

// storageSettings are the options of one request after check_config: the
// values as storage.cfg keeps them, with content and nodes decoded.
type storageSettings struct {
	values map[string]string
	// content is set when the request gave content; nodes when it gave a
	// (non-empty on create) node list.
	content []string
	nodes   []string
	// hasContent, hasNodes tell whether content and nodes were given.
	hasContent, hasNodes bool
	// formatDropped is set when a format the type does not offer was
	// dropped (decode_value warns and skips it).
	formatDropped bool
}

// checkStorageConfig is the plugin's check_config over the request's
// options (type, storage, digest, delete and the sensitive ones already
// taken out): on update a fixed option is refused even with its current
// value; an option the type does not take is an "unexpected property"; on
// create every required option must be given. Keys are checked in sorted
// order (Perl's hash order is random). Directory-like types check the
// created path.
// pve-storage src/PVE/Storage/DirPlugin.pm check_config.
func checkStorageConfig(t *storageType, params map[string]string, create bool) (*storageSettings, error) {
	out, err := checkSectionConfig(t, params, create)
	if err != nil || !create || !t.dirPath {
		return out, err
	}
	// pve-storage src/PVE/Storage/DirPlugin.pm check_config (BTRFSPlugin.pm
	// check_config calls it): a created directory storage's path must be
	// plain, and loses its trailing slashes (File::Spec canonpath).
	p := out.values["path"]
	if !plainPath(p) {
		return nil, errorf("illegal path for directory storage: %s", p)
	}
	out.values["path"] = canonPath(p)
	return out, nil
}

// plainPath is DirPlugin check_config's m|^/[-/a-zA-Z0-9_.@]+$|.
func plainPath(p string) bool {
	if len(p) < 2 || p[0] != '/' {
		return false
	}
	for _, r := range p[1:] {
		if !isAlnum(r) && !strings.ContainsRune("-/_.@", r) {
			return false
		}
	}
	return true
}

// canonPath is File::Spec::Unix canonpath: repeated slashes and "."
// components go, and the trailing slash ("/" stays).
func canonPath(p string) string {
	var parts []string
	for _, c := range strings.Split(p, "/") {
		if c == "" || c == "." {
			continue
		}
		parts = append(parts, c)
	}
	return "/" + strings.Join(parts, "/")
}

// checkSectionConfig is SectionConfig's check_config itself, with
// check_value's refusals and decode_value's content, nodes and format.
// pve-common src/PVE/SectionConfig.pm check_config, check_value;
// pve-storage src/PVE/Storage/Plugin.pm decode_value.
func checkSectionConfig(t *storageType, params map[string]string, create bool) (*storageSettings, error) {
	out := &storageSettings{values: map[string]string{}}
	for _, k := range sortedKeys(params) {
		v := params[k]
		o, known := t.options[k]
		if !create && known && o.fixed {
			return nil, errorf("can't change value of fixed parameter '%s'", k)
		}
		if !known {
			return nil, errorf("unexpected property '%s'", k)
		}
		if strings.ContainsAny(v, "\r\n") {
			return nil, errorf("property contains a line feed")
		}
		switch k {
		case "content":
			ct, err := decodeStorageContent(t, v)
			if err != nil {
				return nil, err
			}
			out.content, out.hasContent = ct, true
		case "nodes":
			out.nodes, out.hasNodes = decodeStorageNodes(v), true
		case "format":
			// decode_value: a format the type does not offer warns and
			// leaves the loop's iteration ("next" out of the sub).
			if !containsString(t.formats, v) {
				out.formatDropped = true
				continue
			}
			out.values[k] = v
		default:
			out.values[k] = v
		}
	}
	if create {
		for _, k := range sortedKeys(t.options) {
			if t.options[k].optional {
				continue
			}
			if _, ok := params[k]; !ok {
				return nil, errorf("missing value for required option '%s'", k)
			}
		}
	}
	return out, nil
}

// decodeStorageContent is decode_value of content: content types the type
// does not hold are dropped with a warning; "none" cannot be combined, and
// an empty result is "none", which only some types accept.
// pve-storage src/PVE/Storage/Plugin.pm decode_value
func decodeStorageContent(t *storageType, v string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, c := range splitList(v) {
		if !containsString(t.content, c) || seen[c] {
			continue
		}
		seen[c] = true
		out = append(out, c)
	}
	if seen["none"] && len(out) > 1 {
		return nil, errorf("unable to combine 'none' with other content types")
	}
	if len(out) == 0 && !containsString(t.content, "none") {
		return nil, errorf("storage does not support content type 'none'")
	}
	if len(out) == 0 {
		out = []string{"none"}
	}
	sort.Strings(out)
	return out, nil
}

// decodeStorageNodes is decode_value of nodes: the names that look like
// node names, whether or not they are cluster members.
// pve-storage src/PVE/Storage/Plugin.pm decode_value;
// pve-common src/PVE/JSONSchema.pm pve_verify_node_name.
func decodeStorageNodes(v string) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, n := range splitList(v) {
		if !nodeNameRE(n) || seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// nodeNameRE is pve_verify_node_name's pattern
// ^([a-zA-Z0-9]([a-zA-Z0-9\-]*[a-zA-Z0-9])?)$.
func nodeNameRE(n string) bool {
	if n == "" || n[0] == '-' || n[len(n)-1] == '-' {
		return false
	}
	for _, r := range n {
		if !isAlnum(r) && r != '-' {
			return false
		}
	}
	return true
}

// storageValue is a stored option as the API answers it: booleans and
// integers are numbers (SectionConfig check_value adds 0 to them when the
// file is read).
func storageValue(k, v string) any {
	switch storageKeyKinds[k] {
	case "boolean", "integer":
		if n, err := strconv.Atoi(v); err == nil {
			return n
		}
	}
	return v
}

// cfgSection is one storage's section of storage.cfg, as write_config
// formats it: the header, disable, the required options sorted, then the
// optional ones sorted.
// pve-common src/PVE/SectionConfig.pm write_config, format_config_line
func (st *Storage) cfgSection(t *storageType) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", st.Type, st.ID)
	if st.Disabled {
		b.WriteString("\tdisable\n")
	}
	vals := copyMap(st.Config)
	if vals == nil {
		vals = map[string]string{}
	}
	vals["content"] = st.contentString()
	if st.Nodes != nil {
		vals["nodes"] = strings.Join(st.Nodes, ",")
	}
	if st.Shared {
		vals["shared"] = "1"
	}
	keys := sortedKeys(vals)
	for _, pass := range []bool{false, true} {
		for _, k := range keys {
			opt, known := storageOpt{optional: true}, true
			if t != nil {
				opt, known = t.options[k]
			}
			if !known || opt.optional != pass || vals[k] == "" || k == "disable" {
				continue
			}
			fmt.Fprintf(&b, "\t%s %s\n", k, vals[k])
		}
	}
	return b.String()
}

// storageCfgDigest is the SHA-1 of storage.cfg, what GET returns as digest
// and PUT compares (PVE::SectionConfig::assert_if_modified).
func (s *Sim) storageCfgDigest(cl *Cluster) string {
	types := s.storageTypesOf()
	h := sha1.New() //nolint:gosec // see the import
	for _, st := range cl.Storages {
		h.Write([]byte(st.cfgSection(types[st.Type]) + "\n"))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// insertStorage adds a storage to storage.cfg at its place by id. PVE's
// listings follow Perl's hash order (pve-storage src/PVE/Storage.pm
// storage_ids), which has none; sorted ids keep the simulator's stable.
func (c *Cluster) insertStorage(st *Storage) {
	i := sort.Search(len(c.Storages), func(i int) bool { return c.Storages[i].ID > st.ID })
	c.Storages = append(c.Storages, nil)
	copy(c.Storages[i+1:], c.Storages[i:])
	c.Storages[i] = st
}

// removeStorage drops a storage definition. Its volumes stay in the model
// (PVE does not look at them), unreachable until a storage of that id
// comes back.
func (c *Cluster) removeStorage(id string) {
	for i, st := range c.Storages {
		if st.ID == id {
			c.Storages = append(c.Storages[:i], c.Storages[i+1:]...)
			return
		}
	}
}

// removeStorageAccess drops the ACL entries on /storage/<id> and below
// and the storage's pool memberships.
// pve-access-control src/PVE/AccessControl.pm remove_storage_access
func (c *Cluster) removeStorageAccess(id string) {
	path := "/storage/" + id
	for p := range c.Access.ACL {
		if p == path || strings.HasPrefix(p, path+"/") {
			delete(c.Access.ACL, p)
		}
	}
	for _, p := range c.Pools {
		delete(p.Storages, id)
	}
}

// defaultLocalStorage is the 'local' storage parse_config puts back when
// storage.cfg has none: a dir on /var/lib/vz with every content type but
// import and prune-backups keep-all=1.
// pve-storage src/PVE/Storage/Plugin.pm parse_config
func defaultLocalStorage() *Storage {
	return &Storage{
		ID: "local", Type: "dir", Capacity: 100 * gib,
		Content: []string{"backup", "images", "iso", "rootdir", "snippets", "vztmpl"},
		Config:  map[string]string{"path": "/var/lib/vz", "prune-backups": "keep-all=1"},
	}
}

// defaultStorageCapacity is the size a new storage's instances report.
// iSCSI, direct iSCSI and ESXi storages report no size at all (pve-storage
// src/PVE/Storage/ISCSIPlugin.pm, ISCSIDirectPlugin.pm, ESXiPlugin.pm
// status); for the others the simulator has no hardware behind the
// storage, so each type gets a plausible size (inferred, INFERRED.md).
func defaultStorageCapacity(typ string) int64 {
	switch typ {
	case "dir", "btrfs":
		return 100 * gib
	case "lvm", "lvmthin", "zfspool":
		return 500 * gib
	case "iscsi", "iscsidirect", "esxi":
		return 0
	default:
		return 2 * tib
	}
}
