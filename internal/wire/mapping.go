package wire

import (
	"fmt"
	"strings"
)

// Hardware mapping entries: the "map" lines of /cluster/mapping/pci, usb
// and dir, one property string per entry naming its node
// (pve-guest-common src/PVE/Mapping/PCI.pm, USB.pm, Dir.pm $map_fmt).
// PVE stores them as sent; readers compare parsed entries.

// MappingKind is one kind of hardware mapping and its entry format.
type MappingKind struct {
	// Name is the API and ACL path part: "pci", "usb", "dir".
	Name string
	// Keys are the entry's keys other than node, in the order written.
	Keys []string
	// Required are the keys an entry must have besides node.
	Required []string
}

// The mapping kinds.
var (
	MappingPCI = MappingKind{Name: "pci", Keys: []string{"path", "id", "subsystem-id", "iommugroup", "description"},
		Required: []string{"path", "id"}}
	MappingUSB = MappingKind{Name: "usb", Keys: []string{"id", "path", "description"}, Required: []string{"id"}}
	MappingDir = MappingKind{Name: "dir", Keys: []string{"path"}, Required: []string{"path"}}
)

// ParseMappingEntry parses one entry of the kind. It refuses keys the
// kind's format does not have and a missing node.
func (k MappingKind) ParseMappingEntry(s string) (map[string]string, error) {
	m, err := ParsePropertyString(s, "")
	if err != nil {
		return nil, err
	}
	if err := CheckPropertyKeys(m, append([]string{"node"}, k.Keys...)...); err != nil {
		return nil, err
	}
	if m["node"] == "" {
		return nil, fmt.Errorf("entry %q names no node", s)
	}
	return m, nil
}

// FormatMappingEntry writes an entry: node first, then the kind's keys in
// order; empty values are left out.
func (k MappingKind) FormatMappingEntry(m map[string]string) string {
	parts := []string{"node=" + m["node"]}
	for _, key := range k.Keys {
		if v := m[key]; v != "" {
			parts = append(parts, key+"="+v)
		}
	}
	return strings.Join(parts, ",")
}

var (
	pciAddr           = `[a-f0-9]{4,}:[a-f0-9]{2}:[a-f0-9]{2}(?:\.[a-f0-9])?`
	mappingPCIPath    = lazyPattern(`^(?:` + pciAddr + `;)*` + pciAddr + `$`)
	mappingDeviceID   = lazyPattern(`^[0-9A-Fa-f]{4}:[0-9A-Fa-f]{4}$`)
	mappingUSBPath    = lazyPattern(`^(\d+)-(\d+(\.\d+)*)$`)
	mappingDirPathBad = lazyPattern(`^/[^;,=()]`)
)

// MappingPCIPathProblem checks a PCI entry's path (PCI.pm $PCI_RE): one
// or more full addresses "0000:01:00.0" (the function may be left out for
// the whole device), separated by ';'. PVE's pattern is lowercase only.
func MappingPCIPathProblem(s string) string {
	if mappingPCIPath().MatchString(s) {
		return ""
	}
	return "must be a PCI address such as 0000:01:00.0 (lowercase hex, domain included; the function may be left out " +
		"for the whole device), or several separated by ';'"
}

// MappingDeviceIDProblem checks a vendor:device id ("10de:2204").
func MappingDeviceIDProblem(s string) string {
	if mappingDeviceID().MatchString(s) {
		return ""
	}
	return "must be a vendor and device id of four hex digits each, such as 10de:2204"
}

// MappingUSBPathProblem checks a USB entry's port path ("1-2.3": bus,
// then port chain).
func MappingUSBPathProblem(s string) string {
	if mappingUSBPath().MatchString(s) {
		return ""
	}
	return "must be a USB port path such as 1-2.3 (bus, '-', then the port chain)"
}

// MappingDirPathProblem is Dir.pm pve_verify_path: an absolute path; PVE
// refuses ';', ',', '=', '(' and ')' (it checks only the character after
// the leading '/', this checks all of them, since a ',' or '=' would also
// break the entry's property string).
func MappingDirPathProblem(s string) string {
	if mappingDirPathBad().MatchString(s) && !strings.ContainsAny(s, ";,=()") {
		return ""
	}
	return "must be an absolute path without ';', ',', '=', '(' or ')'"
}

// IsMappingID reports whether s is a valid mapping id (pve-configid: a
// letter, then letters, digits, '_' or '-', at least two characters).
func IsMappingID(s string) bool { return configIDPattern().MatchString(s) }
