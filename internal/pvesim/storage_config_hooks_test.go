package pvesim

import (
	"net/http"
	"strings"
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/schema"
)

// Every option of every type's table is a parameter of the release's POST
// /storage (PVE's createSchema is the union of the plugins' properties),
// with the kind storageKeyKinds gives it (pve-storage
// src/PVE/Storage/*Plugin.pm options; pve-common src/PVE/SectionConfig.pm
// createSchema).
func TestStorageTypeTablesMatchSchema(t *testing.T) {
	t.Parallel()
	for release, types := range map[string]map[string]*storageType{"9.1": storageTypes91, "8.4": storageTypes84} {
		api, ok := schema.ForRelease(release)
		if !ok {
			t.Fatalf("no schema for %s", release)
		}
		m, _, _ := api.Lookup(http.MethodPost, "/storage")
		if m == nil {
			t.Fatalf("%s: no POST /storage", release)
		}
		typeParam, _ := m.Param("type")
		if len(typeParam.Enum) < len(types) {
			t.Errorf("%s: schema types %v", release, typeParam.Enum)
		}
		for name, typ := range types {
			if !containsString(typeParam.Enum, name) {
				t.Errorf("%s: type %s not in the schema", release, name)
			}
			for k := range typ.options {
				p, ok := m.Param(k)
				if !ok {
					t.Errorf("%s: %s option %s not in the schema", release, name, k)
					continue
				}
				want := storageKeyKinds[k]
				if want == "" {
					want = "string"
				}
				if p.Type != want {
					t.Errorf("%s: %s is %s in the schema, %s in storageKeyKinds", release, k, p.Type, want)
				}
			}
			for _, k := range typ.sensitive {
				if _, ok := typ.options[k]; !ok {
					t.Errorf("%s: %s sensitive %s is no option", release, name, k)
				}
			}
		}
	}
}

// LVM's base must be a volume of an iSCSI storage, which then cannot be
// removed (pve-storage src/PVE/Storage/LVMPlugin.pm on_add_hook;
// src/PVE/API2/Storage/Config.pm delete, src/PVE/Storage.pm
// storage_is_used).
func TestStorageConfigLVMBase(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	lvm := func(base string) []string {
		return []string{"storage", "vg1", "type", "lvm", "vgname", "vg1", "base", base, "shared", "1"}
	}
	e.call(t, http.MethodPost, "/storage", form(lvm("san:0.0.1.scsi-3600")...)).
		wantStatus(t, 500, "create storage failed: base storage ID 'san' does not exist")
	e.call(t, http.MethodPost, "/storage", form(lvm("local:iso/x.iso")...)).
		wantStatus(t, 500, "create storage failed: unsupported base type 'dir' at /usr/share/perl5/PVE/Storage/LVMPlugin.pm line 489.")
	e.call(t, http.MethodPost, "/storage", form("storage", "san", "type", "iscsi", "portal", "192.0.2.20",
		"target", "iqn.2003-01.org.example:san")).wantOK(t)
	e.call(t, http.MethodPost, "/storage", form(lvm("san:0.0.1.scsi-3600")...)).wantOK(t)
	cfg := readStorage(t, e, "vg1")
	if cfg["shared"] != float64(1) || cfg["base"] != "san:0.0.1.scsi-3600" || cfg["content"] != "images" {
		t.Errorf("vg1 = %s", jsonText(cfg))
	}
	if san := readStorage(t, e, "san"); san["shared"] != float64(1) || san["content"] != "images" {
		t.Errorf("iscsi = %s", jsonText(san))
	}
	// An iSCSI storage reports no size (ISCSIPlugin.pm status).
	var st map[string]any
	e.call(t, http.MethodGet, "/nodes/pve2/storage/san/status", nil).decode(t, &st)
	if st["total"] != float64(0) || st["active"] != float64(1) {
		t.Errorf("iscsi status = %s", jsonText(st))
	}
	e.call(t, http.MethodDelete, "/storage/san", nil).
		wantStatus(t, 500, "delete storage failed: can't remove storage - storage is used as base of another storage")
	e.call(t, http.MethodPut, "/storage/vg1", form("delete", "base")).
		wantStatus(t, 500, "update storage failed: unable to delete fixed option 'base'")
	e.call(t, http.MethodDelete, "/storage/vg1", nil).wantOK(t)
	e.call(t, http.MethodDelete, "/storage/san", nil).wantOK(t)
}

// LVM refuses to turn snapshot-as-volume-chain off while a qcow2 image is
// on it (pve-storage src/PVE/Storage/LVMPlugin.pm on_update_hook_full).
func TestStorageConfigLVMVolumeChain(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/storage", form("storage", "vg2", "type", "lvm", "vgname", "vg2",
		"snapshot-as-volume-chain", "1")).wantOK(t)
	if err := e.sim.Update(func(c *Cluster) error {
		return c.AddVolume(&Volume{VolID: "vg2:vm-100-disk-0.qcow2", Storage: "vg2", Node: "pve1", Content: "images", Format: "qcow2", Size: gib, Owner: 100})
	}); err != nil {
		t.Fatal(err)
	}
	for _, p := range [][]string{{"snapshot-as-volume-chain", "0"}, {"delete", "snapshot-as-volume-chain"}} {
		e.call(t, http.MethodPut, "/storage/vg2", form(p...)).
			wantStatus(t, 500, "update storage failed: vg2 - cannot disable 'snapshot-as-volume-chain' while a qcow2 image exists")
	}
	e.call(t, http.MethodPut, "/storage/vg2", form("saferemove", "1")).wantOK(t)
}

// ZFS over iSCSI stores the provider's zfs-base-path when none is given
// (pve-storage src/PVE/Storage/ZFSPlugin.pm on_add_hook; LunCmd/Comstar.pm,
// LunCmd/Istgt.pm get_base).
func TestStorageConfigZFSBasePath(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	zfs := func(id, provider string, extra ...string) []string {
		return append([]string{"storage", id, "type", "zfs", "portal", "192.0.2.30", "target", "iqn.x:t",
			"pool", "tank", "blocksize", "8k", "iscsiprovider", provider}, extra...)
	}
	for id, want := range map[string][]string{
		"z1": {"comstar", "/dev/zvol/rdsk"}, "z2": {"istgt", "/dev/zvol"}, "z3": {"LIO", "/dev/zvol"},
	} {
		e.call(t, http.MethodPost, "/storage", form(zfs(id, want[0])...)).wantOK(t)
		if cfg := readStorage(t, e, id); cfg["zfs-base-path"] != want[1] || cfg["shared"] != float64(1) {
			t.Errorf("%s = %s", id, jsonText(cfg))
		}
	}
	e.call(t, http.MethodPost, "/storage", form(zfs("z4", "comstar", "zfs-base-path", "/dev/custom")...)).wantOK(t)
	if cfg := readStorage(t, e, "z4"); cfg["zfs-base-path"] != "/dev/custom" {
		t.Errorf("z4 = %s", jsonText(cfg))
	}
	e.call(t, http.MethodPost, "/storage", form(zfs("z5", "nope")...)).
		wantStatus(t, 500, "create storage failed: nope: unknown iscsi provider. Available [comstar, istgt, iet, LIO] at /usr/share/perl5/PVE/Storage/ZFSPlugin.pm line 35.")
	for _, k := range []string{"pool", "blocksize"} {
		e.call(t, http.MethodPut, "/storage/z1", form(k, "x")).
			wantStatus(t, 500, "update storage failed: can't change value of fixed parameter '"+k+"'")
	}
}

// Keyrings (RBD, CephFS) and the ESXi password are kept apart from the
// definition; a deleted one goes (pve-storage src/PVE/Storage/RBDPlugin.pm,
// CephFSPlugin.pm, ESXiPlugin.pm on_add_hook, on_update_hook).
func TestStorageConfigSecretsPerType(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/storage", form("storage", "ceph", "type", "rbd", "pool", "rbd",
		"monhost", "192.0.2.40 192.0.2.41", "username", "admin", "keyring", "[client.admin]\tkey = AQD==", "krbd", "1")).wantOK(t)
	e.call(t, http.MethodPost, "/storage", form("storage", "esx", "type", "esxi", "server", "esx.example",
		"username", "root", "password", "esx-pass", "skip-cert-verification", "1")).wantOK(t)
	var list []map[string]any
	e.call(t, http.MethodGet, "/storage", nil).decode(t, &list)
	text := jsonText(list)
	if strings.Contains(text, "AQD==") || strings.Contains(text, "esx-pass") || strings.Contains(text, "keyring") {
		t.Errorf("secret in the index: %s", text)
	}
	if cfg := readStorage(t, e, "ceph"); cfg["krbd"] != float64(1) || cfg["shared"] != float64(1) || cfg["content"] != "images" {
		t.Errorf("rbd = %s", jsonText(cfg))
	}
	if cfg := readStorage(t, e, "esx"); cfg["content"] != "import" || cfg["skip-cert-verification"] != float64(1) || cfg["shared"] != nil {
		t.Errorf("esxi = %s", jsonText(cfg))
	}
	e.call(t, http.MethodPut, "/storage/ceph", form("delete", "keyring")).wantOK(t)
	e.call(t, http.MethodPut, "/storage/esx", form("password", "new-pass")).wantOK(t)
	e.sim.View(func(c *Cluster) {
		if _, ok := c.Storage("ceph").Secrets["keyring"]; ok {
			t.Error("keyring kept after delete")
		}
		if c.Storage("esx").Secrets["password"] != "new-pass" {
			t.Errorf("esxi password = %q", c.Storage("esx").Secrets["password"])
		}
	})
	// ESXi's server and username are required but not fixed.
	e.call(t, http.MethodPut, "/storage/esx", form("server", "esx2.example")).wantOK(t)
	e.call(t, http.MethodPut, "/storage/esx", form("delete", "username")).
		wantStatus(t, 500, "update storage failed: unable to delete required option 'username'")
}

// PBS: an update with encryption-key=autogen returns the new key and
// stores its fingerprint (pve-storage src/PVE/Storage/PBSPlugin.pm
// on_update_hook).
func TestStorageConfigPBSAutogenOnUpdate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	var res map[string]any
	e.call(t, http.MethodPost, "/storage", form("storage", "pbs2", "type", "pbs", "server", "pbs.example",
		"datastore", "main")).decode(t, &res)
	if jsonText(res) != `{"config":{},"storage":"pbs2","type":"pbs"}` {
		t.Errorf("create answer = %s", jsonText(res))
	}
	res = nil
	e.call(t, http.MethodPut, "/storage/pbs2", form("encryption-key", "autogen")).decode(t, &res)
	key, _ := res["config"].(map[string]any)["encryption-key"].(string)
	cfg := readStorage(t, e, "pbs2")
	fp, _ := cfg["encryption-key"].(string)
	if fp == "" || !strings.Contains(key, `"fingerprint":"`+fp+`"`) {
		t.Errorf("key %s, config %s", key, jsonText(cfg))
	}
	// A key given as JSON without fingerprint is stored as 1.
	e.call(t, http.MethodPut, "/storage/pbs2", form("encryption-key", `{"data":"eA=="}`)).wantOK(t)
	if cfg := readStorage(t, e, "pbs2"); cfg["encryption-key"] != "1" {
		t.Errorf("encryption-key = %v", cfg["encryption-key"])
	}
	// A key given with delete=encryption-key is set (the hook's options
	// are applied after the deletions, Config.pm update).
	e.call(t, http.MethodPut, "/storage/pbs2", form("encryption-key", `{"data":"eQ==","fingerprint":"aa:bb"}`,
		"delete", "encryption-key")).wantOK(t)
	if cfg := readStorage(t, e, "pbs2"); cfg["encryption-key"] != "aa:bb" {
		t.Errorf("encryption-key = %v", cfg["encryption-key"])
	}
	e.call(t, http.MethodPut, "/storage/pbs2", form("server", "other")).
		wantStatus(t, 500, "update storage failed: can't change value of fixed parameter 'server'")
}

// A format the type does not offer is dropped, not refused (pve-storage
// src/PVE/Storage/Plugin.pm decode_value: warn and next); deleting a
// storage takes it out of its pools (pve-access-control
// src/PVE/AccessControl.pm remove_storage_access).
func TestStorageConfigFormatAndPools(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/storage", form("storage", "cfs", "type", "cephfs", "path", "/mnt/pve/cfs",
		"format", "qcow2", "content", "iso,backup")).wantOK(t)
	if cfg := readStorage(t, e, "cfs"); cfg["format"] != nil || cfg["content"] != "backup,iso" {
		t.Errorf("cephfs = %s", jsonText(cfg))
	}
	e.call(t, http.MethodPost, "/storage", form("storage", "sub", "type", "dir", "path", "/srv/sub", "format", "subvol")).wantOK(t)
	if cfg := readStorage(t, e, "sub"); cfg["format"] != "subvol" {
		t.Errorf("dir = %s", jsonText(cfg))
	}
	e.call(t, http.MethodPost, "/pools", form("poolid", "team")).wantOK(t)
	e.call(t, http.MethodPut, "/pools/team", form("storage", "sub")).wantOK(t)
	e.call(t, http.MethodDelete, "/storage/sub", nil).wantOK(t)
	e.sim.View(func(c *Cluster) {
		if c.Pools["team"].Storages["sub"] {
			t.Error("storage kept in its pool")
		}
	})
}

// The request log keeps no storage secret.
func TestStorageConfigSecretsNotLogged(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/storage", form("storage", "pbs3", "type", "pbs", "server", "pbs.example",
		"datastore", "main", "password", "pw-1", "encryption-key", `{"data":"c2VjcmV0"}`,
		"master-pubkey", "bWFzdGVy")).wantOK(t)
	e.call(t, http.MethodPost, "/storage", form("storage", "rbd3", "type", "rbd", "keyring", "ring-1")).wantOK(t)
	for _, r := range e.sim.Requests() {
		text := jsonText(r.Params)
		for _, secret := range []string{"pw-1", "c2VjcmV0", "bWFzdGVy", "ring-1"} {
			if strings.Contains(text, secret) {
				t.Errorf("%s %s logs %s", r.Method, r.Path, text)
			}
		}
	}
}

// A storage seeded through the model without Config or Secrets maps can
// be changed and deleted through the API.
func TestStorageConfigSeededWithoutMaps(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	if err := e.sim.Update(func(c *Cluster) error {
		c.Storages = append(c.Storages, &Storage{ID: "seeded", Type: "pbs", Content: []string{"backup"}, Shared: true, Capacity: tib})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	e.call(t, http.MethodPut, "/storage/seeded", form("password", "pw", "namespace", "ns1")).wantOK(t)
	if cfg := readStorage(t, e, "seeded"); cfg["namespace"] != "ns1" || cfg["password"] != nil {
		t.Errorf("seeded = %s", jsonText(cfg))
	}
	e.call(t, http.MethodDelete, "/storage/seeded", nil).wantOK(t)
}
