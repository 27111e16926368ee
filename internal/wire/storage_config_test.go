package wire_test

import (
	"reflect"
	"sort"
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/schema"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// The 14 storage types of POST /storage's type enum, each once.
func TestStorageTypesAreSchemaTypes(t *testing.T) {
	t.Parallel()
	m, _, _ := schema.Default().Lookup("POST", "/storage")
	p, ok := m.Param("type")
	if !ok {
		t.Fatal("POST /storage has no type")
	}
	var names []string
	seen := map[string]bool{}
	for _, st := range wire.StorageTypes {
		if seen[st.Name] {
			t.Errorf("type %s twice", st.Name)
		}
		seen[st.Name] = true
		names = append(names, st.Name)
	}
	sort.Strings(names)
	want := append([]string(nil), p.Enum...)
	sort.Strings(want)
	if !reflect.DeepEqual(names, want) {
		t.Errorf("types %v, schema %v", names, want)
	}
}

// Every option of every type is in the 9.1 schema of POST /storage with
// the table's kind; options marked Since9 are missing from 8.4's and the
// others present there; fixed options are not in PUT's schema.
func TestStorageOptionsMatchSchema(t *testing.T) {
	t.Parallel()
	post91, _, _ := schema.Default().Lookup("POST", "/storage")
	put91, _, _ := schema.Default().Lookup("PUT", "/storage/x")
	pve84, _ := schema.ForRelease("8.4")
	post84, _, _ := pve84.Lookup("POST", "/storage")
	kinds := map[wire.StorageOptionKind]string{
		wire.StorageString: "string", wire.StorageBool: "boolean", wire.StorageInt: "integer",
		wire.StorageList: "string", wire.StoragePropertyString: "string", wire.StoragePrune: "string",
	}
	for _, st := range wire.StorageTypes {
		keys := map[string]bool{}
		for _, o := range st.Options {
			if keys[o.Key] {
				t.Errorf("%s: %s twice", st.Name, o.Key)
			}
			keys[o.Key] = true
			p, ok := post91.Param(o.Key)
			if !ok {
				t.Errorf("%s: %s not in POST /storage", st.Name, o.Key)
				continue
			}
			if p.Type != kinds[o.Kind] {
				t.Errorf("%s: %s is %s in the schema", st.Name, o.Key, p.Type)
			}
			if len(o.Enum) > 0 && !reflect.DeepEqual(o.Enum, p.Enum) {
				t.Errorf("%s: %s enum %v, schema %v", st.Name, o.Key, o.Enum, p.Enum)
			}
			_, in84 := post84.Param(o.Key)
			if in84 == o.Since9 {
				t.Errorf("%s: %s Since9=%v but in 8.4's schema: %v", st.Name, o.Key, o.Since9, in84)
			}
			_, inPut := put91.Param(o.Key)
			// server is fixed for nfs/cifs/pbs but updatable for esxi: PUT
			// has it, the plugin's fixed flag refuses it.
			if !o.Fixed && !inPut {
				t.Errorf("%s: %s is updatable but not in PUT /storage/{storage}", st.Name, o.Key)
			}
		}
	}
}

// The sensitive options are pve-storage's per type (plugindata
// sensitive-properties).
func TestStorageSensitiveKeys(t *testing.T) {
	t.Parallel()
	want := map[string][]string{
		"cifs": {"password"}, "cephfs": {"keyring"}, "esxi": {"password"}, "rbd": {"keyring"},
		"pbs": {"encryption-key", "master-pubkey", "password"},
	}
	for _, st := range wire.StorageTypes {
		if got := st.SensitiveKeys(); !reflect.DeepEqual(got, want[st.Name]) {
			t.Errorf("%s: sensitive %v, want %v", st.Name, got, want[st.Name])
		}
	}
}

// Fixed and required keys per type, from the plugins' options().
func TestStorageFixedAndRequired(t *testing.T) {
	t.Parallel()
	fixed := map[string][]string{
		"dir": {"path", "snapshot-as-volume-chain"}, "nfs": {"export", "path", "server", "snapshot-as-volume-chain"},
		"cifs": {"path", "server", "share", "snapshot-as-volume-chain"}, "lvm": {"base", "vgname"},
		"lvmthin": {"thinpool", "vgname"}, "zfspool": {"pool"},
		"zfs": {"blocksize", "iscsiprovider", "pool", "portal", "target"}, "iscsi": {"portal", "target"},
		"iscsidirect": {"portal", "target"}, "cephfs": {"path"}, "pbs": {"datastore", "server"}, "btrfs": {"path"},
	}
	required := map[string][]string{
		"dir": {"path"}, "nfs": {"export", "path", "server"}, "cifs": {"path", "server", "share"}, "lvm": {"vgname"},
		"lvmthin": {"thinpool", "vgname"}, "zfspool": {"pool"},
		"zfs": {"blocksize", "iscsiprovider", "pool", "portal", "target"}, "iscsi": {"portal", "target"},
		"iscsidirect": {"portal", "target"}, "cephfs": {"path"}, "pbs": {"datastore", "server"}, "btrfs": {"path"},
		"esxi": {"server", "username"},
	}
	for _, st := range wire.StorageTypes {
		var f, r []string
		for _, o := range st.Options {
			if o.Fixed {
				f = append(f, o.Key)
			}
			if o.Required {
				r = append(r, o.Key)
			}
		}
		sort.Strings(f)
		sort.Strings(r)
		if !reflect.DeepEqual(f, fixed[st.Name]) {
			t.Errorf("%s: fixed %v, want %v", st.Name, f, fixed[st.Name])
		}
		if !reflect.DeepEqual(r, required[st.Name]) {
			t.Errorf("%s: required %v, want %v", st.Name, r, required[st.Name])
		}
	}
}

// W5: GET /storage/{id} answers numbers and booleans as numbers or
// strings, and prune-backups as PVE stored it.
func TestStorageOptionsFromAPI(t *testing.T) {
	t.Parallel()
	got := wire.StorageOptionsFromAPI(map[string]any{
		"storage": "s", "type": "dir", "digest": "abc", "path": "/srv", "shared": float64(1), "disable": "0",
		"max-protected-backups": float64(-1), "prune-backups": "keep-last=3,keep-daily=7", "content": "iso,backup",
	})
	want := map[string]string{
		"path": "/srv", "shared": "1", "disable": "0", "max-protected-backups": "-1",
		"prune-backups": "keep-daily=7,keep-last=3", "content": "iso,backup",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := wire.SplitStorageList("a, b;c  d"); !reflect.DeepEqual(got, []string{"a", "b", "c", "d"}) {
		t.Errorf("split: %v", got)
	}
	if wire.StorageAttributeName("prune-backups") != "retention" || wire.StorageAttributeName("create-base-path") != "create_base_path" {
		t.Error("attribute names")
	}
}

// The image formats per type are the plugins' plugindata format, within
// the schema's format enum.
func TestStorageFormats(t *testing.T) {
	t.Parallel()
	want := map[string][]string{
		"dir": {"raw", "qcow2", "vmdk", "subvol"}, "nfs": {"raw", "qcow2", "vmdk"}, "cifs": {"raw", "qcow2", "vmdk"}, "btrfs": {"raw", "subvol"},
	}
	for _, st := range wire.StorageTypes {
		if !reflect.DeepEqual(st.Formats, want[st.Name]) {
			t.Errorf("%s: formats %v, want %v", st.Name, st.Formats, want[st.Name])
		}
		if _, ok := st.Option("format"); len(st.Formats) > 0 && !ok {
			t.Errorf("%s: formats without a format option", st.Name)
		}
	}
}
