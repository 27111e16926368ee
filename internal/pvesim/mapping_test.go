package pvesim

import (
	"encoding/json"
	"net/http"
	"testing"
)

const (
	gpuEntry1 = "node=pve1,path=0000:01:00.0,id=10de:2204,iommugroup=12"
	gpuEntry2 = "node=pve2,path=0000:02:00,id=10de:2204,subsystem-id=1458:403b"
)

// mappingJSON sends a JSON body (several "map" entries can also come as a
// repeated form key, see TestMappingFormRepeatedEntries).
func mappingJSON(t *testing.T, e *env, method, path string, obj map[string]any, edits ...func(*http.Request)) *answer {
	t.Helper()
	raw, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return e.call(t, method, path, nil, append([]func(*http.Request){jsonBody(string(raw))}, edits...)...)
}

func mappingRead(t *testing.T, e *env, kind, id string) map[string]any {
	t.Helper()
	a := e.call(t, http.MethodGet, "/cluster/mapping/"+kind+"/"+id, nil)
	a.wantOK(t)
	var out map[string]any
	a.decode(t, &out)
	return out
}

func mappingList(t *testing.T, e *env, kind string, kv ...string) []map[string]any {
	t.Helper()
	a := e.call(t, http.MethodGet, "/cluster/mapping/"+kind, form(kv...))
	a.wantOK(t)
	var out []map[string]any
	a.decode(t, &out)
	return out
}

// pve-manager PVE/API2/Cluster/Mapping.pm index.
func TestMappingIndex(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	a := e.call(t, http.MethodGet, "/cluster/mapping", nil)
	a.wantOK(t)
	if string(a.data) != `[{"name":"dir"},{"name":"pci"},{"name":"usb"}]` {
		t.Fatalf("index = %s", a.data)
	}
}

// pve-manager PVE/API2/Cluster/Mapping/PCI.pm create, get, update,
// delete: entries stored verbatim, booleans as numbers, the file's digest.
func TestMappingPCILifecycle(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"", "8.4"} {
		e := newEnv(t, Options{PVEVersion: version})
		mappingJSON(t, e, http.MethodPost, "/cluster/mapping/pci", map[string]any{"id": "gpu0", "map": []string{gpuEntry1, gpuEntry2},
			"description": "GPUs", "mdev": true, "live-migration-capable": false}).wantOK(t)
		got := mappingRead(t, e, "pci", "gpu0")
		m, _ := got["map"].([]any)
		if len(m) != 2 || m[0] != gpuEntry1 || m[1] != gpuEntry2 || got["description"] != "GPUs" ||
			got["mdev"] != float64(1) || got["live-migration-capable"] != float64(0) || got["type"] != "pci" {
			t.Fatalf("read = %v", got)
		}
		digest, _ := got["digest"].(string)
		if len(digest) != 40 {
			t.Fatalf("digest = %q", digest)
		}
		e.call(t, http.MethodPut, "/cluster/mapping/pci/gpu0", form("map", gpuEntry2, "delete", "mdev,description",
			"digest", digest)).wantOK(t)
		got = mappingRead(t, e, "pci", "gpu0")
		if m, _ := got["map"].([]any); len(m) != 1 || m[0] != gpuEntry2 {
			t.Fatalf("map after update = %v", got)
		}
		if _, ok := got["mdev"]; ok {
			t.Errorf("deleted mdev read back: %v", got)
		}
		if _, ok := got["description"]; ok {
			t.Errorf("deleted description read back: %v", got)
		}
		if got["digest"] == digest {
			t.Errorf("digest unchanged by an update")
		}
		// The digest covers the whole file: another mapping's change
		// makes the first one's digest stale.
		e.call(t, http.MethodPost, "/cluster/mapping/pci", form("id", "nic0", "map", gpuEntry1)).wantOK(t)
		wantMessage(t, e.call(t, http.MethodPut, "/cluster/mapping/pci/gpu0", form("map", gpuEntry1, "digest", got["digest"].(string))),
			http.StatusInternalServerError,
			"update hardware mapping failed: detected modified configuration - file changed by other user? Try again.\n")
		list := mappingList(t, e, "pci")
		if len(list) != 2 || list[0]["id"] != "gpu0" || list[1]["id"] != "nic0" || list[0]["digest"] != list[1]["digest"] {
			t.Fatalf("list = %v", list)
		}
		if _, ok := list[0]["checks"]; ok {
			t.Errorf("checks without check-node: %v", list[0])
		}
		e.call(t, http.MethodDelete, "/cluster/mapping/pci/gpu0", nil).wantOK(t)
		wantMessage(t, e.call(t, http.MethodGet, "/cluster/mapping/pci/gpu0", nil), http.StatusInternalServerError,
			"mapping 'gpu0' not found\n")
		// Deleting a mapping that does not exist succeeds.
		e.call(t, http.MethodDelete, "/cluster/mapping/pci/gpu0", nil).wantOK(t)
	}
}

// The handlers' refusals and their texts (Mapping/*.pm, pve-common
// SectionConfig.pm check_config, check_value, delete_from_config).
func TestMappingRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/cluster/mapping/pci", form("id", "gpu0", "map", gpuEntry1)).wantOK(t)
	e.call(t, http.MethodPost, "/cluster/mapping/usb", form("id", "key0", "map", "node=pve1,id=0529:0001")).wantOK(t)
	e.call(t, http.MethodPost, "/cluster/mapping/dir", form("id", "share", "map", "node=pve1,path=/srv/share")).wantOK(t)
	for _, c := range []struct {
		method, path string
		kv           []string
		want         string
	}{
		{http.MethodPost, "/cluster/mapping/pci", []string{"id", "gpu0", "map", gpuEntry1},
			"create hardware mapping failed: pci ID 'gpu0' already defined\n"},
		{http.MethodPost, "/cluster/mapping/usb", []string{"id", "key0", "map", "node=pve1,id=0529:0001"},
			"create hardware mapping failed: usb ID 'key0' already defined\n"},
		{http.MethodPost, "/cluster/mapping/dir", []string{"id", "share", "map", "node=pve1,path=/srv"},
			"create directory mapping failed: dir ID 'share' already defined\n"},
		{http.MethodPost, "/cluster/mapping/pci", []string{"id", "gpu1", "map", gpuEntry1, "description", "a\nb"},
			"property contains a line feed\n"},
		{http.MethodPut, "/cluster/mapping/pci/gpu9", []string{"map", gpuEntry1},
			"update hardware mapping failed: pci ID 'gpu9' does not exist\n"},
		{http.MethodPut, "/cluster/mapping/pci/gpu0", []string{"description", "x"},
			"update hardware mapping failed: missing value for required option 'map'\n"},
		{http.MethodPut, "/cluster/mapping/pci/gpu0", []string{"map", gpuEntry1, "delete", "map"},
			"update hardware mapping failed: unable to delete required option 'map'\n"},
		{http.MethodPut, "/cluster/mapping/usb/key0", []string{"map", "node=pve1,id=0529:0001", "delete", "mdev"},
			"update hardware mapping failed: no such option 'mdev'\n"},
		{http.MethodPut, "/cluster/mapping/pci/gpu0", []string{"map", gpuEntry1, "mdev", "1", "delete", "mdev"},
			"update hardware mapping failed: cannot set and delete property 'mdev' at the same time!\n"},
	} {
		wantMessage(t, e.call(t, c.method, c.path, form(c.kv...)), http.StatusInternalServerError, c.want)
	}
	// pve-guest-common src/PVE/Mapping/Dir.pm assert_valid_map_list: before
	// the lock on create, under it on update.
	wantMessage(t, mappingJSON(t, e, http.MethodPost, "/cluster/mapping/dir", map[string]any{"id": "two",
		"map": []string{"node=pve1,path=/a", "node=pve2,path=/b", "node=pve1,path=/c"}}),
		http.StatusInternalServerError, "Node 'pve1' is specified 2 times.\n")
	wantMessage(t, mappingJSON(t, e, http.MethodPut, "/cluster/mapping/dir/share", map[string]any{
		"map": []string{"node=pve2,path=/a", "node=pve2,path=/b"}}),
		http.StatusInternalServerError, "update directory mapping failed: Node 'pve2' is specified 2 times.\n")
	// PCI and USB take several entries for one node.
	mappingJSON(t, e, http.MethodPost, "/cluster/mapping/usb", map[string]any{"id": "keys",
		"map": []string{"node=pve1,id=0529:0001", "node=pve1,id=0529:0002"}}).wantOK(t)
	// The dir path format (pve_verify_path) is a parameter error.
	a := e.call(t, http.MethodPost, "/cluster/mapping/dir", form("id", "rel", "map", "node=pve1,path=srv"))
	if a.status != http.StatusBadRequest || a.errors["map"] != "invalid format - Value does not look like a valid absolute path. These symbols are currently not allowed in path: ;,=()\n" {
		t.Errorf("relative dir path: %d %v", a.status, a.errors)
	}
	// The map formats come from the schema: a PCI entry needs id and path.
	if a := e.call(t, http.MethodPost, "/cluster/mapping/pci", form("id", "gpu2", "map", "node=pve1,path=0000:01:00.0")); a.status != http.StatusBadRequest {
		t.Errorf("PCI entry without id: %d %s", a.status, a.body)
	}
	// USB path is optional, id is not.
	e.call(t, http.MethodPost, "/cluster/mapping/usb", form("id", "port", "map", "node=pve1,id=0529:0001,path=1-2.3")).wantOK(t)
	if a := e.call(t, http.MethodPost, "/cluster/mapping/usb", form("id", "port2", "map", "node=pve1,path=1-2")); a.status != http.StatusBadRequest {
		t.Errorf("USB entry without id: %d %s", a.status, a.body)
	}
	if a := e.call(t, http.MethodPost, "/cluster/mapping/pci", form("id", "gpu3")); a.status != http.StatusBadRequest || a.errors["map"] == "" {
		t.Errorf("create without map: %d %v", a.status, a.errors)
	}
}

// check-node (Mapping/*.pm index): the call goes to that node; a mapping
// without an entry for it gets a warning; USB names the list "errors".
func TestMappingCheckNode(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/cluster/mapping/pci", form("id", "gpu0", "map", gpuEntry1)).wantOK(t)
	e.call(t, http.MethodPost, "/cluster/mapping/usb", form("id", "key0", "map", "node=pve1,id=0529:0001")).wantOK(t)
	e.call(t, http.MethodPost, "/cluster/mapping/dir", form("id", "share", "map", "node=pve2,path=/srv")).wantOK(t)
	list := mappingList(t, e, "pci", "check-node", "pve1")
	if checks, _ := list[0]["checks"].([]any); len(list) != 1 || checks == nil || len(checks) != 0 {
		t.Fatalf("pve1 checks = %v", list)
	}
	list = mappingList(t, e, "pci", "check-node", "pve2")
	checks, _ := list[0]["checks"].([]any)
	if len(checks) != 1 || jsonText(checks[0]) != `{"message":"No mapping for node pve2.","severity":"warning"}` {
		t.Fatalf("pve2 checks = %v", list)
	}
	list = mappingList(t, e, "usb", "check-node", "pve2")
	if errs, _ := list[0]["errors"].([]any); len(errs) != 1 {
		t.Fatalf("usb pve2 = %v", list)
	}
	list = mappingList(t, e, "dir", "check-node", "pve2")
	if checks, _ := list[0]["checks"].([]any); len(checks) != 0 {
		t.Fatalf("dir pve2 = %v", list)
	}
	wantMessage(t, e.call(t, http.MethodGet, "/cluster/mapping/pci", form("check-node", "pve9")), http.StatusInternalServerError,
		"hostname lookup 'pve9' failed - failed to get address info for: pve9: Name or service not known\n")
}

// The privileges each handler checks (Mapping/PCI.pm permissions): create
// and delete on /mapping/pci, update on the mapping's path, read and list
// with any of Modify, Use, Audit on the mapping's path.
func TestMappingPermissions(t *testing.T) {
	t.Parallel()
	e := aclEnv(t, "")
	e.call(t, http.MethodPost, "/cluster/mapping/pci", form("id", "gpu0", "map", gpuEntry1)).wantOK(t)
	e.call(t, http.MethodPost, "/cluster/mapping/pci", form("id", "gpu1", "map", gpuEntry1)).wantOK(t)
	grant := func(path, role string) {
		t.Helper()
		if err := e.sim.Update(func(c *Cluster) error {
			a := c.Access
			a.Users["bob@pve"].Enable = true
			a.Roles["MapModify"] = map[string]bool{"Mapping.Modify": true}
			a.Roles["MapAudit"] = map[string]bool{"Mapping.Audit": true}
			a.Roles["MapUse"] = map[string]bool{"Mapping.Use": true}
			a.node(path).grant(aclUser, "bob@pve", role, true)
			a.node(path).grant(aclToken, "bob@pve!ci", role, true)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	bob := withToken(bobCI)
	perm := "Permission check failed"
	// Nothing granted: the list is empty, the read refused without text.
	var list []map[string]any
	e.call(t, http.MethodGet, "/cluster/mapping/pci", nil, bob).decode(t, &list)
	if len(list) != 0 {
		t.Fatalf("list without privileges = %v", list)
	}
	e.call(t, http.MethodGet, "/cluster/mapping/pci/gpu0", nil, bob).wantStatus(t, http.StatusForbidden, perm)
	// Mapping.Modify on the mapping's path: update yes, create and delete
	// no (they check /mapping/pci).
	grant("/mapping/pci/gpu0", "MapModify")
	e.call(t, http.MethodPut, "/cluster/mapping/pci/gpu0", form("map", gpuEntry2), bob).wantOK(t)
	e.call(t, http.MethodPut, "/cluster/mapping/pci/gpu1", form("map", gpuEntry2), bob).
		wantStatus(t, http.StatusForbidden, perm+" (/mapping/pci/gpu1, Mapping.Modify)")
	e.call(t, http.MethodDelete, "/cluster/mapping/pci/gpu0", nil, bob).
		wantStatus(t, http.StatusForbidden, perm+" (/mapping/pci, Mapping.Modify)")
	e.call(t, http.MethodPost, "/cluster/mapping/pci", form("id", "gpu2", "map", gpuEntry1), bob).
		wantStatus(t, http.StatusForbidden, perm+" (/mapping/pci, Mapping.Modify)")
	mappingReadAs := func(id string) *answer {
		return e.call(t, http.MethodGet, "/cluster/mapping/pci/"+id, nil, bob)
	}
	mappingReadAs("gpu0").wantOK(t)
	mappingReadAs("gpu1").wantStatus(t, http.StatusForbidden, perm)
	// Mapping.Audit or Mapping.Use alone let one read and list.
	grant("/mapping/pci/gpu1", "MapAudit")
	mappingReadAs("gpu1").wantOK(t)
	e.call(t, http.MethodGet, "/cluster/mapping/pci", nil, bob).decode(t, &list)
	if len(list) != 2 {
		t.Fatalf("list with Modify on gpu0, Audit on gpu1 = %v", list)
	}
	e.call(t, http.MethodPost, "/cluster/mapping/usb", form("id", "key0", "map", "node=pve1,id=0529:0001")).wantOK(t)
	grant("/mapping/usb/key0", "MapUse")
	e.call(t, http.MethodGet, "/cluster/mapping/usb/key0", nil, bob).wantOK(t)
	// Mapping.Modify on /mapping/pci (propagated): create and delete.
	grant("/mapping/pci", "MapModify")
	e.call(t, http.MethodPost, "/cluster/mapping/pci", form("id", "gpu2", "map", gpuEntry1), bob).wantOK(t)
	e.call(t, http.MethodDelete, "/cluster/mapping/pci/gpu2", nil, bob).wantOK(t)
	// Not on the other kinds.
	e.call(t, http.MethodPost, "/cluster/mapping/dir", form("id", "d", "map", "node=pve1,path=/srv"), bob).
		wantStatus(t, http.StatusForbidden, perm+" (/mapping/dir, Mapping.Modify)")
}

// The model view the guest device checks use.
func TestMappingEntriesForGuests(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	mappingJSON(t, e, http.MethodPost, "/cluster/mapping/pci", map[string]any{"id": "gpu0", "map": []string{gpuEntry1, gpuEntry2,
		"node=pve1,path=0000:03:00.0,id=10de:2204"}}).wantOK(t)
	if err := e.sim.Update(func(cl *Cluster) error {
		if !cl.mappingExists(MappingPCI, "gpu0") || cl.mappingExists(MappingPCI, "gpu9") || cl.mappingExists("nope", "gpu0") {
			t.Errorf("mappingExists wrong")
		}
		got, ok := cl.mappingEntries(MappingPCI, "gpu0", "pve1")
		if !ok || len(got) != 2 || got[0]["path"] != "0000:01:00.0" || got[0]["iommugroup"] != "12" || got[1]["path"] != "0000:03:00.0" {
			t.Errorf("pve1 entries = %v %v", got, ok)
		}
		if got, ok := cl.mappingEntries(MappingPCI, "gpu0", "pve3"); !ok || len(got) != 0 {
			t.Errorf("pve3 entries = %v %v", got, ok)
		}
		if _, ok := cl.mappingEntries(MappingUSB, "gpu0", "pve1"); ok {
			t.Errorf("usb gpu0 exists")
		}
		if e, ok := cl.mappingEntry(MappingPCI, "gpu0", "pve2"); !ok || e["subsystem-id"] != "1458:403b" {
			t.Errorf("pve2 entry = %v %v", e, ok)
		}
		if _, ok := cl.mappingEntry(MappingPCI, "gpu0", "pve3"); ok {
			t.Errorf("pve3 has an entry")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// A repeated form key is an array, like a JSON array: "map" sent twice as
// form data gives two entries (pve-http-server src/PVE/APIServer/AnyEvent.pm
// decode_urlencoded collects repeated values in an array reference).
func TestMappingFormRepeatedEntries(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/cluster/mapping/pci", form("id", "gpu0", "map", gpuEntry1, "map", gpuEntry2)).wantOK(t)
	m, _ := mappingRead(t, e, "pci", "gpu0")["map"].([]any)
	if len(m) != 2 || m[0] != gpuEntry1 || m[1] != gpuEntry2 {
		t.Errorf("map = %v", m)
	}
	// A scalar parameter refuses a repeated key (JSONSchema check_type).
	a := e.call(t, http.MethodPost, "/cluster/mapping/pci", form("id", "gpu1", "map", gpuEntry1, "description", "a", "description", "b"))
	if a.status != http.StatusBadRequest || a.errors["description"] != "type check ('string') failed - got ARRAY" {
		t.Errorf("repeated description: %d %v", a.status, a.errors)
	}
}

// Each kind is its own file (mapping/pci.cfg, usb.cfg, directory.cfg):
// a change to a USB mapping leaves the PCI file's digest as it was.
func TestMappingDigestPerFile(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/cluster/mapping/pci", form("id", "gpu0", "map", gpuEntry1)).wantOK(t)
	digest := mappingRead(t, e, "pci", "gpu0")["digest"].(string)
	e.call(t, http.MethodPost, "/cluster/mapping/usb", form("id", "key0", "map", "node=pve1,id=0529:0001")).wantOK(t)
	e.call(t, http.MethodPut, "/cluster/mapping/pci/gpu0", form("map", gpuEntry2, "digest", digest)).wantOK(t)
}
