package wire

import (
	"strconv"
	"strings"
)

// HA resource ids (pve-ha-manager src/PVE/HA/Config.pm parse_sid,
// src/PVE/HA/Resources/PVEVM.pm and PVECT.pm): "vm:VMID" for a VM,
// "ct:VMID" for a container. The API also takes a bare VMID and looks its
// type up in the guest list.

// The HA resource types of guests.
const (
	HATypeVM = "vm"
	HATypeCT = "ct"
)

// HASID is the service id of a guest under HA: "vm:100", "ct:101".
func HASID(typ string, vmid int) string { return typ + ":" + strconv.Itoa(vmid) }

// ParseHASID reads "vm:VMID" or "ct:VMID" (the types this provider
// manages; the VMID as PVE's verify_name takes it: at least two digits,
// no leading zero, so 100 and up in practice).
func ParseHASID(sid string) (typ string, vmid int, ok bool) {
	typ, name, found := strings.Cut(sid, ":")
	if !found || (typ != HATypeVM && typ != HATypeCT) {
		return "", 0, false
	}
	vmid, ok = parseHAVMID(name)
	if !ok {
		return "", 0, false
	}
	return typ, vmid, true
}

// ParseHAImportID reads an HA resource's import id: a sid ("vm:100") or
// a bare VMID ("100"), whose type then is "" (PVE looks it up).
func ParseHAImportID(id string) (typ string, vmid int, ok bool) {
	if !strings.Contains(id, ":") {
		vmid, ok = parseHAVMID(id)
		return "", vmid, ok
	}
	return ParseHASID(id)
}

func parseHAVMID(s string) (int, bool) {
	if len(s) < 2 || s[0] == '0' {
		return 0, false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// HATypeOfGuest is the HA type of a guest kind as /cluster/resources
// names it ("qemu" -> "vm", "lxc" -> "ct"; pve-ha-manager
// src/PVE/HA/Tools.pm get_ha_resource_type); "" for anything else.
func HATypeOfGuest(guestType string) string {
	switch guestType {
	case "qemu":
		return HATypeVM
	case "lxc":
		return HATypeCT
	}
	return ""
}

// HAResourceStates are the requested states a configuration may ask for
// ('enabled', PVE's alias of 'started', is read as 'started').
var HAResourceStates = []string{"started", "stopped", "disabled", "ignored"}

// HAStateFromPVE is a requested state as read from PVE, with the alias
// 'enabled' read as 'started' (pve-ha-manager src/PVE/HA/Config.pm
// read_and_check_resources_config).
func HAStateFromPVE(state string) string {
	if state == "enabled" {
		return "started"
	}
	return state
}
