package pvesim

import (
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// Storage API (pve-storage PVE/API2/Storage/{Config,Status,Content}.pm).

func (s *Sim) registerStorageRoutes() {
	audit := permission{path: "/storage/{storage}", privs: []string{"Datastore.Audit", "Datastore.AllocateSpace"}, any: true}
	s.handle(http.MethodGet, "/storage", route{handle: s.listStorageConfig})
	s.handle(http.MethodGet, "/storage/{storage}", route{
		perm:   permission{path: "/storage/{storage}", privs: []string{"Datastore.Allocate"}},
		handle: s.readStorageConfig,
	})
	s.registerStorageConfigRoutes()
	s.handle(http.MethodGet, "/nodes/{node}/storage", route{handle: nodeStorageIndex})
	s.handle(http.MethodGet, "/nodes/{node}/storage/{storage}", route{perm: audit, handle: func(*call) (any, error) {
		var out []map[string]string
		for _, d := range []string{"content", "download-url", "file-restore", "identity", "import-metadata",
			"oci-registry-pull", "prunebackups", "rrd", "rrddata", "status", "upload"} {
			out = append(out, map[string]string{"subdir": d})
		}
		return out, nil
	}})
	s.handle(http.MethodGet, "/nodes/{node}/storage/{storage}/status", route{perm: audit, handle: storageStatus})
	s.handle(http.MethodGet, "/nodes/{node}/storage/{storage}/content", route{perm: audit, handle: storageContent})
}

// storageConfig is the API view of a storage.cfg entry (api_storage_config):
// the options of the file with booleans and integers as numbers, never the
// sensitive values (they live under /etc/pve/priv).
// pve-storage src/PVE/API2/Storage/Config.pm (api_storage_config)
func storageConfig(st *Storage, digest string) map[string]any {
	out := map[string]any{"storage": st.ID, "type": st.Type, "content": st.contentString(), "digest": digest}
	for k, v := range st.Config {
		out[k] = storageValue(k, v)
	}
	if st.Shared {
		out["shared"] = 1
	}
	if st.Disabled {
		out["disable"] = 1
	}
	if st.Nodes != nil {
		nodes := append([]string(nil), st.Nodes...)
		sort.Strings(nodes)
		out["nodes"] = strings.Join(nodes, ",")
	}
	return out
}

// pve-storage src/PVE/API2/Storage/Config.pm index
func (s *Sim) listStorageConfig(c *call) (any, error) {
	out := []map[string]any{}
	digest := s.storageCfgDigest(c.cluster)
	for _, st := range c.cluster.Storages {
		if !c.can("/storage/"+st.ID, true, "Datastore.Audit", "Datastore.AllocateSpace") {
			continue
		}
		if t := c.str("type"); t != "" && t != st.Type {
			continue
		}
		out = append(out, storageConfig(st, digest))
	}
	return out, nil
}

// pve-storage src/PVE/API2/Storage/Config.pm read (storage_config)
func (s *Sim) readStorageConfig(c *call) (any, error) {
	st := c.cluster.Storage(c.str("storage"))
	if st == nil {
		return nil, errorf("storage '%s' does not exist", c.str("storage"))
	}
	return storageConfig(st, s.storageCfgDigest(c.cluster)), nil
}

// storageInfo is storage_info for one storage on one node: a storage that
// is disabled or not available on the node is listed inactive with zero
// sizes.
// pve-storage src/PVE/Storage.pm storage_info
func storageInfo(cl *Cluster, st *Storage, node string) map[string]any {
	enabled := !st.Disabled && st.availableOn(node)
	var total, used int64
	if enabled {
		total, used = st.Capacity, cl.used(st, node)
	}
	return map[string]any{
		"storage": st.ID, "type": st.Type, "content": st.contentString(),
		"shared": boolInt(st.Shared), "enabled": boolInt(enabled), "active": boolInt(enabled),
		"total": total, "used": used, "avail": total - used,
	}
}

// wantsContent applies the content filter of storage_info: a storage is
// kept if it is enabled here and offers one of the listed types.
func wantsContent(st *Storage, node, filter string) bool {
	if filter == "" {
		return true
	}
	if st.Disabled || !st.availableOn(node) {
		return false
	}
	for _, ct := range splitList(filter) {
		if st.hasContent(ct) {
			return true
		}
	}
	return false
}

// pve-storage src/PVE/API2/Storage/Status.pm index
func nodeStorageIndex(c *call) (any, error) {
	cl := c.cluster
	node := c.str("node")
	filter := c.str("content")
	if sid, ok := c.param("storage"); ok {
		if st := cl.Storage(sid); st == nil || !wantsContent(st, node, filter) {
			return nil, paramError(map[string]string{"storage": "No such storage."})
		}
	}
	target := c.str("target")
	if target == node {
		target = ""
	}
	out := []map[string]any{}
	for _, st := range cl.Storages {
		if !wantsContent(st, node, filter) {
			continue
		}
		if !c.can("/storage/"+st.ID, true, "Datastore.Audit", "Datastore.AllocateSpace") {
			continue
		}
		if sid, ok := c.param("storage"); ok && sid != st.ID {
			continue
		}
		enabled := !st.Disabled && st.availableOn(node)
		if c.boolParam("enabled") && !enabled {
			continue
		}
		if target != "" && (!st.Shared || !st.availableOn(node) || !st.availableOn(target)) {
			continue
		}
		e := storageInfo(cl, st, node)
		if enabled && st.Capacity > 0 {
			e["used_fraction"] = float64(cl.used(st, node)) / float64(st.Capacity)
		}
		out = append(out, e)
	}
	return out, nil
}

// pve-storage src/PVE/API2/Storage/Status.pm read_status
func storageStatus(c *call) (any, error) {
	st := c.cluster.Storage(c.str("storage"))
	if st == nil {
		return nil, paramError(map[string]string{"storage": "No such storage."})
	}
	e := storageInfo(c.cluster, st, c.str("node"))
	delete(e, "storage")
	return e, nil
}

// usableStorage is storage_check_enabled: the storage exists, is enabled
// and is available on the node.
// pve-storage src/PVE/Storage.pm storage_check_enabled, storage_check_node and
// storage_config.
func usableStorage(cl *Cluster, id, node string) (*Storage, error) {
	st := cl.Storage(id)
	if st == nil {
		return nil, errorf("storage '%s' does not exist", id)
	}
	if st.Disabled {
		return nil, errorf("storage '%s' is disabled", id)
	}
	if !st.availableOn(node) {
		return nil, errorf("storage '%s' is not available on node '%s'", id, node)
	}
	return st, nil
}

// storageContent is GET .../content: the volumes of the storage instance
// the node sees, optionally of one content type or one owner.
// pve-storage src/PVE/API2/Storage/Content.pm index
func storageContent(c *call) (any, error) {
	node := c.str("node")
	st, err := usableStorage(c.cluster, c.str("storage"), node)
	if err != nil {
		return nil, err
	}
	content := c.str("content")
	vmid := c.intParam("vmid", 0)
	out := []map[string]any{}
	for _, v := range c.cluster.VolumesOn(st.ID, node) {
		if content != "" && v.Content != content {
			continue
		}
		if vmid != 0 && v.Owner != vmid {
			continue
		}
		out = append(out, volumeEntry(st, v))
	}
	return out, nil
}

// volumeEntry is one item of the content listing. The index int()s size,
// used and vmid (pve-storage src/PVE/API2/Storage/Content.pm index) but
// passes ctime on as the plugin gave it: a number from stat on a file
// storage, the text of the lvs "time" column on LVM and LVM-thin
// (src/PVE/Storage/LVMPlugin.pm lvm_list_volumes, LvmThinPlugin.pm
// list_images), so a JSON string there.
func volumeEntry(st *Storage, v *Volume) map[string]any {
	var ctime any = v.CTime
	if st.Type == "lvm" || st.Type == "lvmthin" {
		ctime = strconv.FormatInt(v.CTime, 10)
	}
	e := map[string]any{
		"volid": v.VolID, "content": v.Content, "format": v.Format,
		"size": v.Size, "ctime": ctime,
	}
	if v.Owner != 0 {
		e["vmid"] = v.Owner
	}
	if v.Content == "images" || v.Content == "rootdir" {
		e["used"] = v.Size
	}
	return e
}
