package pvesim

import (
	"net/http"
	"regexp"
	"strings"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
)

// Hardware mapping endpoints: pve-manager PVE/API2/Cluster/Mapping.pm
// (index) and PVE/API2/Cluster/Mapping/{PCI,USB,Dir}.pm over
// pve-guest-common src/PVE/Mapping/{PCI,USB,Dir}.pm. PVE 8.4 and 9.x have
// the same schema for all of them.
//
// Permissions, as the three handlers declare them:
//   - list: user => 'all', each mapping shown only with Mapping.Modify,
//     Mapping.Use or Mapping.Audit on /mapping/<kind>/<id> (check_any; USB's
//     check_full with any is the same test);
//   - read: ['or'] of Mapping.Use, Mapping.Modify, Mapping.Audit on
//     /mapping/<kind>/{id}: its failure is raise_perm_exc without text;
//   - create: Mapping.Modify on /mapping/<kind>;
//   - update: Mapping.Modify on /mapping/<kind>/{id};
//   - delete: Mapping.Modify on /mapping/<kind> (not the mapping's path).
//
// The simulator has no host hardware: check-node reports only what needs
// none (a mapping without an entry for the node); every mapped device and
// directory is taken to exist and match (see INFERRED.md).

// mappingKindSpec is what differs between the three kinds' handlers.
type mappingKindSpec struct {
	kind string
	// label is the kind in "<label> ID 'x' already defined".
	label string
	// createErr, updateErr, deleteErr are the lock_*_config error
	// prefixes of the handlers.
	createErr, updateErr, deleteErr string
	// checksKey is the list's diagnostics key: USB.pm names it "errors".
	checksKey string
	// options are the section's optional options (PVE::Mapping::*
	// options()); "map" is the required one.
	options []string
	// booleans are the options of type boolean.
	booleans []string
}

var mappingKinds = []mappingKindSpec{
	{
		kind: MappingPCI, label: "pci",
		createErr: "create hardware mapping failed", updateErr: "update hardware mapping failed",
		deleteErr: "delete pci mapping failed", checksKey: "checks",
		options:  []string{"description", "live-migration-capable", "mdev"},
		booleans: []string{"live-migration-capable", "mdev"},
	},
	{
		kind: MappingUSB, label: "usb",
		createErr: "create hardware mapping failed", updateErr: "update hardware mapping failed",
		deleteErr: "delete usb mapping failed", checksKey: "errors",
		options: []string{"description"},
	},
	{
		kind: MappingDir, label: "dir",
		createErr: "create directory mapping failed", updateErr: "update directory mapping failed",
		deleteErr: "delete dir mapping failed", checksKey: "checks",
		options: []string{"description"},
	},
}

func (s *Sim) registerMappingRoutes() {
	// pve-manager PVE/API2/Cluster/Mapping.pm index: user => 'all'.
	s.handle(http.MethodGet, "/cluster/mapping", route{handle: func(*call) (any, error) {
		return []map[string]string{{"name": "dir"}, {"name": "pci"}, {"name": "usb"}}, nil
	}})
	for i := range mappingKinds {
		k := &mappingKinds[i]
		base := "/cluster/mapping/" + k.kind
		modifyKind := permission{path: "/mapping/" + k.kind, privs: []string{"Mapping.Modify"}}
		s.handle(http.MethodGet, base, route{handle: k.list})
		s.handle(http.MethodGet, base+"/{id}", route{check: k.readCheck, handle: k.read})
		s.handle(http.MethodPost, base, route{perm: modifyKind, handle: k.create})
		s.handle(http.MethodPut, base+"/{id}", route{
			perm:   permission{path: "/mapping/" + k.kind + "/{id}", privs: []string{"Mapping.Modify"}},
			handle: k.update,
		})
		s.handle(http.MethodDelete, base+"/{id}", route{perm: modifyKind, handle: k.remove})
	}
}

var mappingSeePrivs = []string{"Mapping.Modify", "Mapping.Use", "Mapping.Audit"}

// answer is the mapping as the read and the list return it: the parsed
// section (type, description, booleans as numbers, map) and the file's
// digest.
func (k *mappingKindSpec) answer(cl *Cluster, mp *Mapping) map[string]any {
	out := map[string]any{"type": k.kind, "digest": cl.Mappings.digest(k.kind)}
	for key, v := range mp.Props {
		if containsString(k.booleans, key) {
			out[key] = boolInt(v == "1")
			continue
		}
		out[key] = v
	}
	out["map"] = append([]string{}, mp.Map...)
	return out
}

// list is pve-manager PVE/API2/Cluster/Mapping/<Kind>.pm index. check-node proxies the call to that
// node (proxyto_callback); the checks are then made against the entries
// for that node name ("localhost" is not proxied and is taken literally).
func (k *mappingKindSpec) list(c *call) (any, error) {
	cl := c.cluster
	node, checkNode := c.param("check-node")
	if checkNode && node != "localhost" && cl.Node(node) == nil {
		// The proxy's host lookup fails (see resolveNode).
		return nil, errorf("hostname lookup '%s' failed - failed to get address info for: %s: Name or service not known", node, node)
	}
	set := cl.Mappings.Kinds[k.kind]
	out := []map[string]any{}
	for _, id := range sortedKeys(set) {
		if !c.can("/mapping/"+k.kind+"/"+id, true, mappingSeePrivs...) {
			continue
		}
		entry := k.answer(cl, set[id])
		entry["id"] = id
		if checkNode {
			checks := []map[string]string{}
			if entries, ok := cl.Mappings.nodeEntries(k.kind, id, node); ok && len(entries) == 0 {
				checks = append(checks, map[string]string{
					"severity": "warning", "message": "No mapping for node " + node + ".",
				})
			}
			// assert_valid of each entry compares it with the node's
			// hardware (PCI: pci_device_info; USB: scan_usb; dir: the
			// path is a directory): inferred valid, the simulator has no
			// host hardware.
			entry[k.checksKey] = checks
		}
		out = append(out, entry)
	}
	return out, nil
}

// readCheck is pve-manager PVE/API2/Cluster/Mapping/<Kind>.pm get's check, ['or', perm Mapping.Use, perm Mapping.Modify,
// perm Mapping.Audit] on /mapping/<kind>/{id}.
func (k *mappingKindSpec) readCheck(c *call) error {
	if c.can("/mapping/"+k.kind+"/"+c.str("id"), true, mappingSeePrivs...) {
		return nil
	}
	return permError("")
}

// read is pve-manager PVE/API2/Cluster/Mapping/<Kind>.pm get.
func (k *mappingKindSpec) read(c *call) (any, error) {
	id := c.str("id")
	mp := c.cluster.Mappings.Kinds[k.kind][id]
	if mp == nil {
		return nil, errorf("mapping '%s' not found", id)
	}
	return k.answer(c.cluster, mp), nil
}

// mapEntries is the "map" parameter's items (the call's parameters join
// an array's items with NUL, see schema.Method.JoinedValue).
func mapEntries(c *call) []string {
	v, ok := c.param("map")
	if !ok {
		return nil
	}
	return strings.Split(v, "\x00")
}

// dirPathShape is pve-guest-common src/PVE/Mapping/Dir.pm pve_verify_path,
// the 'pve-storage-path-in-property-string' format. PVE's pattern is not
// anchored at the end: only the first two characters are checked.
var dirPathShape = regexp.MustCompile(`^/[^;,=()]`)

// checkSection is SectionConfig check_config($id, $param, 1, 1) as the
// create and update handlers call it (create set, schema check skipped):
// the line-feed refusal of check_value and the required map. The schema
// itself has checked each value. It returns the options to store.
func (k *mappingKindSpec) checkSection(c *call) (map[string]string, []string, error) {
	props := map[string]string{}
	for _, key := range k.options {
		v, ok := c.param(key)
		if !ok {
			continue
		}
		// pve-common src/PVE/SectionConfig.pm check_value
		if strings.ContainsAny(v, "\n\r") {
			return nil, nil, errorf("property contains a line feed")
		}
		props[key] = v
	}
	entries := mapEntries(c)
	if entries == nil {
		// pve-common src/PVE/SectionConfig.pm check_config (create)
		return nil, nil, errorf("missing value for required option 'map'")
	}
	return props, entries, nil
}

// checkDirEntries is the 'pve-storage-path-in-property-string' format of
// the dir entries' path (a parameter error, from the schema check), then
// pve-guest-common src/PVE/Mapping/Dir.pm assert_valid_map_list: a node
// named twice is refused (the local node's path is taken to exist).
func checkDirEntries(entries []string) (paramErr, err error) {
	count := map[string]int{}
	var order []string
	for _, line := range entries {
		e := parseMappingEntry(line)
		if e == nil {
			continue
		}
		if !dirPathShape.MatchString(e["path"]) {
			return paramError(map[string]string{"map": "invalid format - Value does not look like a valid absolute path." +
				" These symbols are currently not allowed in path: ;,=()\n"}), nil
		}
		if count[e["node"]] == 0 {
			order = append(order, e["node"])
		}
		count[e["node"]]++
	}
	for _, n := range order {
		if count[n] > 1 {
			return nil, errorf("Node '%s' is specified %d times.", n, count[n])
		}
	}
	return nil, nil
}

// create is pve-manager PVE/API2/Cluster/Mapping/<Kind>.pm create.
func (k *mappingKindSpec) create(c *call) (any, error) {
	id := c.str("id")
	props, entries, err := k.checkSection(c)
	if err != nil {
		return nil, err
	}
	if k.kind == MappingDir {
		// Dir.pm create runs assert_valid_map_list before the lock.
		if perr, err := checkDirEntries(entries); perr != nil || err != nil {
			if perr != nil {
				return nil, perr
			}
			return nil, err
		}
	}
	set := c.cluster.Mappings.Kinds[k.kind]
	if set[id] != nil {
		return nil, errorf("%s: %s ID '%s' already defined", k.createErr, k.label, id)
	}
	set[id] = &Mapping{ID: id, Props: props, Map: entries}
	return nil, nil
}

// update is pve-manager PVE/API2/Cluster/Mapping/<Kind>.pm update: under the file lock the digest
// (assert_if_modified), the mapping's existence, check_config (which
// requires map on every update), Dir's assert_valid_map_list, then
// SectionConfig delete_from_config; every failure there carries the lock's
// prefix.
func (k *mappingKindSpec) update(c *call) (any, error) {
	cl := c.cluster
	id := c.str("id")
	fail := func(err error) error {
		if status, msg, ok := IsAPIError(err); ok && status == http.StatusInternalServerError {
			return errorf("%s: %s", k.updateErr, strings.TrimSuffix(msg, "\n"))
		}
		return err
	}
	if err := assertSectionDigest(cl.Mappings.digest(k.kind), c.str("digest")); err != nil {
		return nil, fail(err)
	}
	mp := cl.Mappings.Kinds[k.kind][id]
	if mp == nil {
		return nil, fail(errorf("%s ID '%s' does not exist", k.label, id))
	}
	props, entries, err := k.checkSection(c)
	if err != nil {
		return nil, fail(err)
	}
	if k.kind == MappingDir {
		if perr, err := checkDirEntries(entries); perr != nil || err != nil {
			if perr != nil {
				return nil, perr
			}
			return nil, fail(err)
		}
	}
	next := copyMap(mp.Props)
	// pve-common src/PVE/SectionConfig.pm delete_from_config
	for _, key := range pvegrammar.SplitList(c.str("delete")) {
		switch {
		case key == "map":
			return nil, fail(errorf("unable to delete required option '%s'", key))
		case !containsString(k.options, key):
			return nil, fail(errorf("no such option '%s'", key))
		}
		if _, set := props[key]; set {
			return nil, fail(errorf("cannot set and delete property '%s' at the same time!", key))
		}
		delete(next, key)
	}
	for key, v := range props {
		next[key] = v
	}
	mp.Props = next
	mp.Map = entries
	return nil, nil
}

// remove is pve-manager PVE/API2/Cluster/Mapping/<Kind>.pm delete: a mapping that does not exist is no
// error.
func (k *mappingKindSpec) remove(c *call) (any, error) {
	delete(c.cluster.Mappings.Kinds[k.kind], c.str("id"))
	return nil, nil
}
