package pvesim

import (
	"crypto/sha1" //nolint:gosec // PVE's config digests are SHA-1
	"encoding/hex"
	"fmt"
	"strings"
)

// Hardware mappings: the cluster-wide files mapping/pci.cfg, mapping/usb.cfg
// and mapping/directory.cfg (pve-guest-common src/PVE/Mapping/PCI.pm,
// USB.pm, Dir.pm). Each is a SectionConfig whose section header is the bare
// id; a section holds an optional description, PCI's mdev and
// live-migration-capable, and the "map" lines: one property string per
// entry, each naming its node. PCI and USB allow several entries for one
// node (the guest takes the first usable one); directory mappings refuse
// that (Dir.pm assert_valid_map_list).

// The mapping kinds, as the API paths and ACL paths (/mapping/<kind>/<id>)
// name them.
const (
	MappingPCI = "pci"
	MappingUSB = "usb"
	MappingDir = "dir"
)

// Mapping is one section of a mapping file.
type Mapping struct {
	ID string
	// Props are the section's options other than map: description, and
	// for PCI mdev and live-migration-capable ("1" or "0").
	Props map[string]string
	// Map is the entries as stored: the property strings as the client
	// sent them (SectionConfig check_config with the schema check skipped
	// keeps them verbatim).
	Map []string
}

// MappingState is the three mapping files.
type MappingState struct {
	Kinds map[string]map[string]*Mapping
}

func newMappingState() *MappingState {
	return &MappingState{Kinds: map[string]map[string]*Mapping{
		MappingPCI: {}, MappingUSB: {}, MappingDir: {},
	}}
}

// Put stores a mapping, replacing one with its id. Tests seed mappings
// with it through Sim.Update.
func (m *MappingState) Put(kind string, mp *Mapping) {
	if mp.Props == nil {
		mp.Props = map[string]string{}
	}
	m.Kinds[kind][mp.ID] = mp
}

// digest is SectionConfig parse_config's digest of the kind's file: the
// SHA-1 of its text (pve-common src/PVE/SectionConfig.pm parse_config,
// write_config; the header is format_section_header's bare id). Sections
// are written in id order here; PVE keeps the file's order, which for
// sections created through the API is their creation order (inferred
// equivalent: the digest only has to change when the file does).
func (m *MappingState) digest(kind string) string {
	var b strings.Builder
	set := m.Kinds[kind]
	for _, id := range sortedKeys(set) {
		mp := set[id]
		fmt.Fprintf(&b, "%s\n", id)
		for _, k := range sortedKeys(mp.Props) {
			if mp.Props[k] != "" {
				fmt.Fprintf(&b, "\t%s %s\n", k, mp.Props[k])
			}
		}
		for _, line := range mp.Map {
			fmt.Fprintf(&b, "\tmap %s\n", line)
		}
		b.WriteString("\n")
	}
	sum := sha1.Sum([]byte(b.String())) //nolint:gosec // see the import
	return hex.EncodeToString(sum[:])
}

// parseMappingEntry splits one map entry "k=v,k=v" into its keys. The map
// formats have no default key, so every part is key=value; the schema has
// checked the entry when it was stored. It returns nil for an entry that
// does not parse (get_node_mapping warns and skips those).
func parseMappingEntry(s string) map[string]string {
	out := map[string]string{}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(part, "=")
		if !ok || k == "" {
			return nil
		}
		out[k] = v
	}
	return out
}

// nodeEntries is get_node_mapping (pve-guest-common src/PVE/Mapping/*.pm):
// the entries of the mapping for one node, in their order; ok is false when
// the mapping does not exist (undef in PVE).
func (m *MappingState) nodeEntries(kind, id, node string) ([]map[string]string, bool) {
	mp := m.Kinds[kind][id]
	if mp == nil {
		return nil, false
	}
	out := []map[string]string{}
	for _, line := range mp.Map {
		e := parseMappingEntry(line)
		if e != nil && e["node"] == node {
			out = append(out, e)
		}
	}
	return out, true
}

// mappingExists tells whether a mapping of the kind ("pci", "usb", "dir")
// exists. Guest device checks use it for "mapping=<id>" values.
func (cl *Cluster) mappingExists(kind, id string) bool {
	set := cl.Mappings.Kinds[kind]
	return set != nil && set[id] != nil
}

// mappingEntries is the mapping's entries for one node (get_node_mapping):
// each entry's keys (node, and for PCI path, id, subsystem-id, iommugroup,
// description; USB id, path, description; dir path), in the file's order.
// ok is false when the mapping does not exist; an existing mapping without
// an entry for the node gives an empty list. Guest starts use the first
// entry (PCI and USB: the first usable one; a directory mapping has at most
// one per node).
func (cl *Cluster) mappingEntries(kind, id, node string) ([]map[string]string, bool) {
	if cl.Mappings.Kinds[kind] == nil {
		return nil, false
	}
	return cl.Mappings.nodeEntries(kind, id, node)
}

// mappingEntry is the mapping's first entry for the node, the one a
// directory mapping has (Dir.pm find_on_current_node) and a USB or PCI
// guest device starts with; ok is false when the mapping does not exist
// or has no entry for the node.
func (cl *Cluster) mappingEntry(kind, id, node string) (map[string]string, bool) {
	entries, ok := cl.mappingEntries(kind, id, node)
	if !ok || len(entries) == 0 {
		return nil, false
	}
	return entries[0], true
}
