package wire

import (
	"regexp"
	"sync"
)

// Named formats of PVE's API schema, each defined once here and used by the
// client, the plan-time validators and the models. The patterns compile on
// first use, not at package init: the provider binary starts several times
// per Terraform command and most starts never check a value.

// StorageIDExpr is the unanchored grammar of PVE's pve-storage-id (pve-common
// src/PVE/JSONSchema.pm, register_format('pve-storage-id') -> parse_id):
// a letter, then letters, digits, '-', '_' or '.', ending in a letter or a
// digit, case-insensitive. It is exported so that patterns built on a
// storage id (a volume id "STORAGE:VOLNAME") reuse it rather than copy it.
const StorageIDExpr = `[a-zA-Z][a-zA-Z0-9\-_.]*[a-zA-Z0-9]`

var storageIDPattern = lazyPattern(`^` + StorageIDExpr + `$`)

// IsStorageID reports whether s is a PVE storage id (pve-storage-id).
func IsStorageID(s string) bool { return storageIDPattern().MatchString(s) }

// poolIDPattern is PVE's pve-poolid (pve-access-control
// src/PVE/AccessControl.pm, verify_poolname): up to three levels of
// letters, digits, '.', '-' and '_', separated by '/'.
var poolIDPattern = lazyPattern(`^[A-Za-z0-9.\-_]+(?:/[A-Za-z0-9.\-_]+){0,2}$`)

// IsPoolID reports whether s is a PVE pool id (pve-poolid).
func IsPoolID(s string) bool { return poolIDPattern().MatchString(s) }

// nodeNamePattern is PVE's pve-node (pve-common src/PVE/JSONSchema.pm,
// pve_verify_node_name): one DNS label.
var nodeNamePattern = lazyPattern(`^[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?$`)

// IsNodeName reports whether s is a PVE node name (pve-node).
func IsNodeName(s string) bool { return nodeNamePattern().MatchString(s) }

// dnsNamePattern is PVE's dns-name (pve-common src/PVE/JSONSchema.pm,
// pve_verify_dns_name): DNS labels separated by '.'.
var dnsNamePattern = lazyPattern(`^(?:(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])\.)*(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])$`)

// IsDNSName reports whether s is a DNS name as PVE's dns-name format
// accepts it.
func IsDNSName(s string) bool { return dnsNamePattern().MatchString(s) }

// bridgeIDPattern is PVE's pve-bridge-id (pve-common src/PVE/JSONSchema.pm,
// parse_bridge_id), with \w read as ASCII word characters.
var bridgeIDPattern = lazyPattern(`^[-_.\w]+$`)

// IsBridgeID reports whether s is a bridge name (pve-bridge-id), such as
// vmbr0.
func IsBridgeID(s string) bool { return bridgeIDPattern().MatchString(s) }

// macAddressPattern is the shape of PVE's mac-addr (pve-common
// src/PVE/JSONSchema.pm, pve_verify_mac_addr): six hex octets separated by
// ':'. PVE also refuses an address with the I/G (multicast) bit set; that
// refusal is left to PVE, so only the shape is checked here.
var macAddressPattern = lazyPattern(`^[0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){5}$`)

// IsMACAddress reports whether s has the shape of a MAC address
// (BC:24:11:2A:3B:4C).
func IsMACAddress(s string) bool { return macAddressPattern().MatchString(s) }

// VMID bounds of PVE's pve-vmid (pve-common src/PVE/JSONSchema.pm,
// pve_verify_vmid: three to nine digits without a leading zero).
const (
	MinVMID = 100
	MaxVMID = 999999999
)

// IsVMID reports whether id is within PVE's pve-vmid bounds.
func IsVMID(id int64) bool { return id >= MinVMID && id <= MaxVMID }

// lazyPattern returns a function that compiles expr on its first call and
// hands out the same *regexp.Regexp afterwards.
func lazyPattern(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
