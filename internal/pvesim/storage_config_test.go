package pvesim

import (
	"net/http"
	"strings"
	"testing"
)

// readStorage is GET /storage/{id}.
func readStorage(t *testing.T, e *env, id string) map[string]any {
	t.Helper()
	var cfg map[string]any
	e.call(t, http.MethodGet, "/storage/"+id, nil).decode(t, &cfg)
	return cfg
}

// POST /storage creates a definition that GET /storage, the nodes' status
// lists and /cluster/resources show on the nodes it is available on
// (pve-storage src/PVE/API2/Storage/Config.pm create, api_storage_config;
// src/PVE/API2/Storage/Status.pm index; pve-manager PVE/API2/Cluster.pm
// resources).
func TestStorageConfigCreateAppears(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	var res map[string]any
	e.call(t, http.MethodPost, "/storage", form("storage", "backups", "type", "nfs", "server", "192.0.2.7",
		"export", "/srv/backups", "path", "/mnt/pve/backups", "content", "backup,iso", "nodes", "pve1,pve2",
		"prune-backups", "keep-last=3")).decode(t, &res)
	if jsonText(res) != `{"storage":"backups","type":"nfs"}` {
		t.Errorf("create answer = %s", jsonText(res))
	}
	cfg := readStorage(t, e, "backups")
	delete(cfg, "digest")
	if got := jsonText(cfg); got != `{"content":"backup,iso","export":"/srv/backups","nodes":"pve1,pve2",`+
		`"path":"/mnt/pve/backups","prune-backups":"keep-last=3","server":"192.0.2.7","shared":1,"storage":"backups","type":"nfs"}` {
		t.Errorf("config = %s", got)
	}
	var list []map[string]any
	e.call(t, http.MethodGet, "/storage", nil).decode(t, &list)
	var ids []string
	for _, s := range list {
		ids = append(ids, s["storage"].(string))
	}
	if strings.Join(ids, " ") != "backups local local-lvm shared-nfs" {
		t.Errorf("storage ids = %v", ids)
	}
	for node, want := range map[string]bool{"pve1": true, "pve2": true, "pve3": false} {
		var st []map[string]any
		e.call(t, http.MethodGet, "/nodes/"+node+"/storage", form("content", "backup")).decode(t, &st)
		found := false
		for _, s := range st {
			if s["storage"] == "backups" {
				found = true
				if s["active"] != float64(1) || s["total"] != float64(2*tib) || s["shared"] != float64(1) {
					t.Errorf("%s status = %v", node, s)
				}
			}
		}
		if found != want {
			t.Errorf("%s lists backups: %v", node, found)
		}
	}
	var resources []map[string]any
	e.call(t, http.MethodGet, "/cluster/resources", form("type", "storage")).decode(t, &resources)
	var on []string
	for _, r := range resources {
		if r["storage"] == "backups" {
			on = append(on, r["node"].(string))
		}
	}
	if strings.Join(on, " ") != "pve1 pve2" {
		t.Errorf("resources on %v", on)
	}
}

// check_config's refusals and create's id check, with PVE's texts
// (pve-common src/PVE/SectionConfig.pm check_config, check_value;
// pve-storage src/PVE/API2/Storage/Config.pm create).
func TestStorageConfigCreateRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	for _, tc := range []struct {
		params []string
		status int
		reason string
	}{
		// an option of another type
		{[]string{"storage", "d1", "type", "dir", "path", "/srv/d1", "vgname", "pve"}, 500, "unexpected property 'vgname'"},
		// a sensitive option of another type stays a plain option
		{[]string{"storage", "d1", "type", "dir", "path", "/srv/d1", "password", "x"}, 500, "unexpected property 'password'"},
		{[]string{"storage", "d1", "type", "dir"}, 500, "missing value for required option 'path'"},
		{[]string{"storage", "p1", "type", "pbs", "server", "pbs.example"}, 500, "missing value for required option 'datastore'"},
		{[]string{"storage", "local", "type", "dir", "path", "/var/lib/vz"}, 500, "create storage failed: storage ID 'local' already defined"},
		{[]string{"storage", "l", "type", "dir", "path", "/srv/l"}, 400, "Parameter verification failed."},
		// prune-backups is checked by its format (pve-storage
		// src/PVE/Storage/Plugin.pm validate_prune_backups)
		{[]string{"storage", "d1", "type", "dir", "path", "/srv/d1", "prune-backups", "keep-all=1,keep-last=2"}, 400, "Parameter verification failed."},
		// content types the type does not hold are dropped; none left and
		// no 'none' for the type
		{[]string{"storage", "t1", "type", "lvmthin", "vgname", "pve", "thinpool", "data", "content", "iso"}, 500, "storage does not support content type 'none'"},
		{[]string{"storage", "e1", "type", "esxi", "server", "esx.example", "username", "root"}, 500, "create storage failed: missing password"},
		{[]string{"storage", "p1", "type", "pbs", "server", "pbs.example", "datastore", "main", "master-pubkey", "LS0t"}, 500,
			"create storage failed: 'master-pubkey' can only be used together with 'encryption-key'"},
		{[]string{"storage", "p1", "type", "pbs", "server", "pbs.example", "datastore", "main", "encryption-key", "nope"}, 500,
			"create storage failed: Value does not seems like a valid, JSON formatted encryption key!"},
	} {
		e.call(t, http.MethodPost, "/storage", form(tc.params...)).wantStatus(t, tc.status, tc.reason)
	}
	// "none" with others (decode_value; see also TestStorageConfigContentNone).
	if _, err := decodeStorageContent(storageTypes91["iscsi"], "images,none"); err == nil ||
		err.Error() != "unable to combine 'none' with other content types" {
		t.Errorf("images,none: %v", err)
	}
	if ct, err := decodeStorageContent(storageTypes91["iscsi"], "iso"); err != nil || strings.Join(ct, ",") != "none" {
		t.Errorf("iso on iscsi: %v %v", ct, err)
	}
	// Dropped content types leave the ones the type holds.
	e.call(t, http.MethodPost, "/storage", form("storage", "thin", "type", "lvmthin", "vgname", "pve",
		"thinpool", "data", "content", "iso,images")).wantOK(t)
	if cfg := readStorage(t, e, "thin"); cfg["content"] != "images" {
		t.Errorf("content = %v", cfg["content"])
	}
}

// update: fixed options are refused even unchanged, the delete list's
// checks, the digest (pve-storage src/PVE/API2/Storage/Config.pm update;
// pve-common src/PVE/SectionConfig.pm check_config, src/PVE/Tools.pm
// assert_if_modified).
func TestStorageConfigUpdate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/storage", form("storage", "data", "type", "dir", "path", "/srv/data",
		"content", "images", "shared", "1")).wantOK(t)
	digest := readStorage(t, e, "data")["digest"].(string)
	for _, tc := range []struct {
		params []string
		reason string
	}{
		// path is not in the update schema at all (updateSchema leaves out
		// options fixed for every type); snapshot-as-volume-chain is fixed
		// for dir but not for lvm, so it is in the schema.
		{[]string{"snapshot-as-volume-chain", "0"}, "update storage failed: can't change value of fixed parameter 'snapshot-as-volume-chain'"},
		{[]string{"krbd", "1"}, "update storage failed: unexpected property 'krbd'"},
		{[]string{"delete", "path"}, "update storage failed: unable to delete required option 'path'"},
		{[]string{"delete", "vgname"}, "update storage failed: no such option 'vgname'"},
		{[]string{"delete", "snapshot-as-volume-chain"}, "update storage failed: unable to delete fixed option 'snapshot-as-volume-chain'"},
		{[]string{"delete", "content", "content", "iso"}, "update storage failed: cannot set and delete property 'content' at the same time!"},
		{[]string{"digest", strings.Repeat("0", 40), "disable", "1"}, "update storage failed: detected modified configuration - file changed by other user? Try again."},
	} {
		e.call(t, http.MethodPut, "/storage/data", form(tc.params...)).wantStatus(t, 500, tc.reason)
	}
	e.call(t, http.MethodPut, "/storage/nope", form("disable", "1")).
		wantStatus(t, 500, "update storage failed: storage 'nope' does not exist")
	var res map[string]any
	e.call(t, http.MethodPut, "/storage/data", form("digest", digest, "content", "iso,backup", "disable", "1",
		"nodes", "pve2", "delete", "shared")).decode(t, &res)
	if jsonText(res) != `{"storage":"data","type":"dir"}` {
		t.Errorf("update answer = %s", jsonText(res))
	}
	cfg := readStorage(t, e, "data")
	if cfg["content"] != "backup,iso" || cfg["disable"] != float64(1) || cfg["nodes"] != "pve2" || cfg["shared"] != nil {
		t.Errorf("updated = %s", jsonText(cfg))
	}
	if cfg["digest"] == digest {
		t.Error("digest unchanged by an update")
	}
	// The old digest no longer matches.
	e.call(t, http.MethodPut, "/storage/data", form("digest", digest, "disable", "0")).
		wantStatus(t, 500, "update storage failed: detected modified configuration - file changed by other user? Try again.")
	// Deleting content brings the type's default back (parse_config).
	e.call(t, http.MethodPut, "/storage/data", form("delete", "content,disable,nodes")).wantOK(t)
	cfg = readStorage(t, e, "data")
	if cfg["content"] != "images,rootdir" || cfg["disable"] != nil || cfg["nodes"] != nil {
		t.Errorf("after delete = %s", jsonText(cfg))
	}
}

// Disabled storages: the status list shows them inactive, the resources
// leave them out (pve-storage src/PVE/Storage.pm storage_info).
func TestStorageConfigDisabled(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/storage", form("storage", "off", "type", "dir", "path", "/srv/off", "disable", "1")).wantOK(t)
	var st []map[string]any
	e.call(t, http.MethodGet, "/nodes/pve1/storage", nil).decode(t, &st)
	found := false
	for _, s := range st {
		if s["storage"] == "off" {
			found = true
			if s["enabled"] != float64(0) || s["active"] != float64(0) || s["total"] != float64(0) {
				t.Errorf("disabled status = %v", s)
			}
		}
	}
	if !found {
		t.Error("disabled storage not listed")
	}
	var resources []map[string]any
	e.call(t, http.MethodGet, "/cluster/resources", form("type", "storage")).decode(t, &resources)
	for _, r := range resources {
		if r["storage"] == "off" {
			t.Errorf("disabled storage in resources: %v", r)
		}
	}
}

// Sensitive values are accepted, kept out of storage.cfg and never
// returned; PBS stores the key's fingerprint and returns the key
// (pve-storage src/PVE/API2/Storage/Config.pm create, update;
// src/PVE/Storage/PBSPlugin.pm on_add_hook, on_update_hook;
// src/PVE/Storage/CIFSPlugin.pm on_add_hook).
func TestStorageConfigSensitive(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	var res map[string]any
	e.call(t, http.MethodPost, "/storage", form("storage", "pbs1", "type", "pbs", "server", "pbs.example",
		"datastore", "main", "username", "backup@pbs", "password", "hunter2", "encryption-key", "autogen",
		"fingerprint", strings.Repeat("ab:", 31)+"ab")).decode(t, &res)
	cfgAnswer, _ := res["config"].(map[string]any)
	key, _ := cfgAnswer["encryption-key"].(string)
	if !strings.Contains(key, `"data"`) || !strings.Contains(key, `"fingerprint"`) {
		t.Errorf("create answer = %s", jsonText(res))
	}
	cfg := readStorage(t, e, "pbs1")
	text := jsonText(cfg)
	if strings.Contains(text, "hunter2") || cfg["password"] != nil || strings.Contains(text, `"data"`) {
		t.Errorf("secret returned: %s", text)
	}
	if fp, _ := cfg["encryption-key"].(string); len(fp) != 95 {
		t.Errorf("encryption-key = %v, want the key's fingerprint", cfg["encryption-key"])
	}
	res = nil
	e.call(t, http.MethodPut, "/storage/pbs1", form("master-pubkey", "LS0tLS1CRUdJTg==")).decode(t, &res)
	if jsonText(res) != `{"config":{},"storage":"pbs1","type":"pbs"}` {
		t.Errorf("update answer = %s", jsonText(res))
	}
	// A string option: the file's "1" comes back as a string.
	if cfg := readStorage(t, e, "pbs1"); cfg["master-pubkey"] != "1" {
		t.Errorf("master-pubkey = %v", cfg["master-pubkey"])
	}
	e.call(t, http.MethodPut, "/storage/pbs1", form("delete", "encryption-key,password")).wantOK(t)
	if cfg := readStorage(t, e, "pbs1"); cfg["encryption-key"] != nil {
		t.Errorf("after delete = %s", jsonText(cfg))
	}
	e.sim.View(func(c *Cluster) {
		if st := c.Storage("pbs1"); st.Secrets["password"] != "" || st.Secrets["encryption-key"] != "" || st.Secrets["master-pubkey"] == "" {
			t.Errorf("secrets = %v", st.Secrets)
		}
	})

	res = nil
	e.call(t, http.MethodPost, "/storage", form("storage", "smb", "type", "cifs", "server", "192.0.2.8",
		"share", "pve", "path", "/mnt/pve/smb", "username", "svc", "password", "s3cret")).decode(t, &res)
	if jsonText(res) != `{"storage":"smb","type":"cifs"}` {
		t.Errorf("cifs answer = %s", jsonText(res))
	}
	var list []map[string]any
	e.call(t, http.MethodGet, "/storage", nil).decode(t, &list)
	if strings.Contains(jsonText(list), "s3cret") || strings.Contains(jsonText(list), "hunter2") {
		t.Errorf("secret in the index: %s", jsonText(list))
	}
	e.sim.View(func(c *Cluster) {
		if c.Storage("smb").Secrets["password"] != "s3cret" {
			t.Error("cifs password not kept")
		}
	})
}

// DELETE removes the definition only: the volumes on it stay in the model
// and come back with a storage of the same id; ACL entries on the storage
// go (pve-storage src/PVE/API2/Storage/Config.pm delete;
// pve-access-control src/PVE/AccessControl.pm remove_storage_access).
func TestStorageConfigDelete(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/storage", form("storage", "scratch", "type", "dir", "path", "/srv/scratch",
		"content", "iso")).wantOK(t)
	if err := e.sim.Update(func(c *Cluster) error {
		c.Access.node("/storage/scratch").grant(aclUser, "root@pam", "PVEAuditor", true)
		return c.AddVolume(&Volume{VolID: "scratch:iso/x.iso", Storage: "scratch", Node: "pve1", Content: "iso", Format: "iso", Size: mib})
	}); err != nil {
		t.Fatal(err)
	}
	e.call(t, http.MethodDelete, "/storage/scratch", nil).wantOK(t)
	e.call(t, http.MethodGet, "/storage/scratch", nil).wantStatus(t, 500, "storage 'scratch' does not exist")
	e.call(t, http.MethodDelete, "/storage/scratch", nil).wantStatus(t, 500, "delete storage failed: storage 'scratch' does not exist")
	e.sim.View(func(c *Cluster) {
		if c.Access.ACL["/storage/scratch"] != nil {
			t.Error("ACL entry kept")
		}
	})
	e.call(t, http.MethodPost, "/storage", form("storage", "scratch", "type", "dir", "path", "/srv/scratch",
		"content", "iso")).wantOK(t)
	var vols []volumeAnswer
	e.call(t, http.MethodGet, "/nodes/pve1/storage/scratch/content", nil).decode(t, &vols)
	if len(vols) != 1 {
		t.Errorf("volumes after re-create = %+v", vols)
	}
	// 'local' takes no node restriction (parse_config drops it) and comes
	// back as parse_config's default when deleted.
	e.call(t, http.MethodPut, "/storage/local", form("nodes", "pve1")).wantOK(t)
	if cfg := readStorage(t, e, "local"); cfg["nodes"] != nil {
		t.Errorf("local nodes = %v", cfg["nodes"])
	}
	e.call(t, http.MethodDelete, "/storage/local", nil).wantOK(t)
	if cfg := readStorage(t, e, "local"); cfg["path"] != "/var/lib/vz" || cfg["content"] != "backup,images,iso,rootdir,snippets,vztmpl" {
		t.Errorf("local = %s", jsonText(cfg))
	}
}

// Create, update and delete need Datastore.Allocate on /storage; reading
// one definition Datastore.Allocate on it (their schemas' permissions).
func TestStorageConfigPermissions(t *testing.T) {
	t.Parallel()
	e := aclEnv(t, "")
	bob := withToken(bobCI)
	e.call(t, http.MethodPost, "/storage", form("storage", "s1", "type", "dir", "path", "/srv/s1"), bob).
		wantStatus(t, 403, "Permission check failed (/storage, Datastore.Allocate)")
	e.call(t, http.MethodPost, "/storage", form("storage", "s1", "type", "dir", "path", "/srv/s1")).wantOK(t)
	e.call(t, http.MethodPut, "/storage/s1", form("disable", "1"), bob).
		wantStatus(t, 403, "Permission check failed (/storage, Datastore.Allocate)")
	e.call(t, http.MethodDelete, "/storage/s1", nil, bob).
		wantStatus(t, 403, "Permission check failed (/storage, Datastore.Allocate)")
	if err := e.sim.Update(func(c *Cluster) error {
		c.Access.node("/storage/s1").grant(aclUser, "bob@pve", "PVEDatastoreAdmin", true)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	e.call(t, http.MethodGet, "/storage/s1", nil, bob).wantOK(t)
	// Datastore.Audit lists a storage but does not read its definition.
	if err := e.sim.Update(func(c *Cluster) error {
		c.Access.node("/storage/s1").grant(aclUser, "bob@pve", "PVEAuditor", true)
		delete(c.Access.node("/storage/s1").members(aclUser)["bob@pve"], "PVEDatastoreAdmin")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	e.call(t, http.MethodGet, "/storage/s1", nil, bob).
		wantStatus(t, 403, "Permission check failed (/storage/s1, Datastore.Allocate)")
	var list []map[string]any
	e.call(t, http.MethodGet, "/storage", nil, bob).decode(t, &list)
	if len(list) != 1 || list[0]["storage"] != "s1" {
		t.Errorf("bob's index = %s", jsonText(list))
	}
	e.call(t, http.MethodDelete, "/storage/s1", nil, bob).
		wantStatus(t, 403, "Permission check failed (/storage, Datastore.Allocate)")
}

// PVE 8.4 has no snapshot-as-volume-chain (9.0) and still takes maxfiles
// (pve-storage debian/changelog 9.0.x; PVE 8.4's schema of POST /storage).
func TestStorageConfigRelease84(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{PVEVersion: "8.4"})
	e.call(t, http.MethodPost, "/storage", form("storage", "d1", "type", "dir", "path", "/srv/d1",
		"snapshot-as-volume-chain", "1")).wantStatus(t, 400, "Parameter verification failed.")
	e.call(t, http.MethodPost, "/storage", form("storage", "d1", "type", "dir", "path", "/srv/d1", "maxfiles", "2")).wantOK(t)
	if cfg := readStorage(t, e, "d1"); cfg["maxfiles"] != float64(2) {
		t.Errorf("maxfiles = %v", cfg["maxfiles"])
	}
	e9 := newEnv(t, Options{})
	e9.call(t, http.MethodPost, "/storage", form("storage", "d1", "type", "dir", "path", "/srv/d1",
		"snapshot-as-volume-chain", "1")).wantOK(t)
	if cfg := readStorage(t, e9, "d1"); cfg["snapshot-as-volume-chain"] != float64(1) {
		t.Errorf("snapshot-as-volume-chain = %v", cfg["snapshot-as-volume-chain"])
	}
}

// NFS, CIFS and CephFS storages created without path mount on
// /mnt/pve/<id>; a directory storage's path must be plain and loses its
// trailing slash (pve-storage src/PVE/Storage/NFSPlugin.pm, CIFSPlugin.pm,
// CephFSPlugin.pm, DirPlugin.pm check_config).
func TestStorageConfigPaths(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/storage", form("storage", "nas", "type", "nfs", "server", "192.0.2.50",
		"export", "/export/pve")).wantOK(t)
	e.call(t, http.MethodPost, "/storage", form("storage", "cfs", "type", "cephfs")).wantOK(t)
	for id, want := range map[string]string{"nas": "/mnt/pve/nas", "cfs": "/mnt/pve/cfs"} {
		if cfg := readStorage(t, e, id); cfg["path"] != want {
			t.Errorf("%s path = %v", id, cfg["path"])
		}
	}
	e.call(t, http.MethodPost, "/storage", form("storage", "d1", "type", "dir", "path", "/srv//d1/./x/")).wantOK(t)
	if cfg := readStorage(t, e, "d1"); cfg["path"] != "/srv/d1/x" {
		t.Errorf("dir path = %v", cfg["path"])
	}
	e.call(t, http.MethodPost, "/storage", form("storage", "d2", "type", "btrfs", "path", "/srv/my data")).
		wantStatus(t, 500, "illegal path for directory storage: /srv/my data")
}

// PVE 8.4 has GlusterFS storages: shared, mounted on /mnt/pve/<id>, the
// volume fixed (PVE 8's pve-storage src/PVE/Storage/GlusterfsPlugin.pm).
func TestStorageConfigGlusterfs84(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{PVEVersion: "8.4"})
	e.call(t, http.MethodPost, "/storage", form("storage", "gfs", "type", "glusterfs", "server", "192.0.2.60",
		"volume", "gv0", "content", "images,iso")).wantOK(t)
	cfg := readStorage(t, e, "gfs")
	if cfg["path"] != "/mnt/pve/gfs" || cfg["shared"] != float64(1) || cfg["content"] != "images,iso" {
		t.Errorf("glusterfs = %s", jsonText(cfg))
	}
	e.call(t, http.MethodPost, "/storage", form("storage", "gfs2", "type", "glusterfs", "server", "192.0.2.60")).
		wantStatus(t, 500, "missing value for required option 'volume'")
	e.call(t, http.MethodPut, "/storage/gfs", form("server2", "192.0.2.61", "server", "192.0.2.62")).wantOK(t)
	e9 := newEnv(t, Options{})
	e9.call(t, http.MethodPost, "/storage", form("storage", "gfs", "type", "glusterfs", "volume", "gv0")).
		wantStatus(t, 400, "Parameter verification failed.")
}

// content "none": the content format takes it (pve-storage
// src/PVE/Storage/Plugin.pm verify_content checks against the dir plugin's
// content types, which hold none; the shared formats table leaves it out),
// decode_value keeps it for the types whose plugindata content lists it
// (dir, btrfs, iscsi, iscsidirect, pbs) and refuses it for the others or
// beside other types; GET answers "none" (encode_value,
// content_hash_to_string), and so do the nodes' status lists
// (src/PVE/Storage.pm storage_info).
func TestStorageConfigContentNone(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/storage", form("storage", "empty", "type", "dir", "path", "/srv/empty",
		"content", "none")).wantOK(t)
	if cfg := readStorage(t, e, "empty"); cfg["content"] != "none" {
		t.Errorf("dir content = %v", cfg["content"])
	}
	var list []map[string]any
	e.call(t, http.MethodGet, "/storage", form("type", "dir")).decode(t, &list)
	found := false
	for _, s := range list {
		if s["storage"] == "empty" {
			found = s["content"] == "none"
		}
	}
	if !found {
		t.Errorf("GET /storage = %s", jsonText(list))
	}
	var status []map[string]any
	e.call(t, http.MethodGet, "/nodes/pve1/storage", nil).decode(t, &status)
	found = false
	for _, s := range status {
		if s["storage"] == "empty" {
			found = s["content"] == "none"
		}
	}
	if !found {
		t.Errorf("status = %s", jsonText(status))
	}
	// The cluster resources too (pve-manager PVE/API2Tools.pm
	// extract_storage_stats, content_hash_to_string).
	var resources []map[string]any
	e.call(t, http.MethodGet, "/cluster/resources", form("type", "storage")).decode(t, &resources)
	found = false
	for _, r := range resources {
		if r["storage"] == "empty" && r["node"] == "pve1" {
			found = r["content"] == "none"
		}
	}
	if !found {
		t.Errorf("resources = %s", jsonText(resources))
	}
	// A content filter never matches "none".
	e.call(t, http.MethodGet, "/nodes/pve1/storage", form("content", "images")).decode(t, &status)
	for _, s := range status {
		if s["storage"] == "empty" {
			t.Errorf("content=images lists %s", jsonText(s))
		}
	}
	// In place, both ways.
	e.call(t, http.MethodPut, "/storage/local", form("content", "none")).wantOK(t)
	if cfg := readStorage(t, e, "local"); cfg["content"] != "none" {
		t.Errorf("local content = %v", cfg["content"])
	}
	e.call(t, http.MethodPut, "/storage/empty", form("content", "iso")).wantOK(t)
	if cfg := readStorage(t, e, "empty"); cfg["content"] != "iso" {
		t.Errorf("empty content = %v", cfg["content"])
	}
	e.call(t, http.MethodPut, "/storage/empty", form("content", "none,iso")).
		wantStatus(t, 500, "update storage failed: unable to combine 'none' with other content types")
	e.call(t, http.MethodPost, "/storage", form("storage", "san", "type", "iscsi", "portal", "192.0.2.20",
		"target", "iqn.2003-01.org.example:san", "content", "none")).wantOK(t)
	if cfg := readStorage(t, e, "san"); cfg["content"] != "none" {
		t.Errorf("iscsi content = %v", cfg["content"])
	}
	// Types without "none" in their plugindata content.
	for _, params := range [][]string{
		{"storage", "vg", "type", "lvm", "vgname", "vg", "content", "none"},
		{"storage", "ceph", "type", "rbd", "pool", "rbd", "content", "none"},
		{"storage", "nfs1", "type", "nfs", "server", "192.0.2.7", "export", "/srv", "path", "/mnt/pve/nfs1", "content", "none"},
	} {
		e.call(t, http.MethodPost, "/storage", form(params...)).
			wantStatus(t, 500, "storage does not support content type 'none'")
	}
	e.call(t, http.MethodPut, "/storage/local-lvm", form("content", "none")).
		wantStatus(t, 500, "update storage failed: storage does not support content type 'none'")
	// Still not a content type of its own.
	e.call(t, http.MethodPost, "/storage", form("storage", "d2", "type", "dir", "path", "/srv/d2",
		"content", "nothing")).wantStatus(t, 400, "Parameter verification failed.")
}
