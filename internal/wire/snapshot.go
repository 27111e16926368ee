package wire

import "strings"

// MaxSnapshotNameLength is the longest snapshot name PVE takes (the
// snapname parameter of both kinds' snapshot method: pve-configid of at
// most 40 characters).
const MaxSnapshotNameLength = 40

// IsSnapshotName reports whether s may name a guest snapshot: a
// pve-configid (a letter, then letters, digits, '_' or '-', at least two
// characters) of at most 40 characters, and not a name PVE reserves:
// "current" for both kinds, "pending" (any case) for a VM, "vzdump" for a
// container (qemu-server src/PVE/API2/Qemu.pm snapshot, pve-container
// src/PVE/API2/LXC/Snapshot.pm snapshot).
func IsSnapshotName(s string, container bool) bool {
	if len(s) > MaxSnapshotNameLength || !configIDPattern().MatchString(s) || s == "current" {
		return false
	}
	if container {
		return s != "vzdump"
	}
	return !strings.EqualFold(s, "pending")
}

// SnapshotDescriptionKept is what a snapshot's description reads back as
// after PVE stored s: the config file holds one comment line per line,
// trailing empty lines dropped; qemu-server's parser then trims trailing
// whitespace, pve-container's ends every line with a newline
// (qemu-server src/PVE/QemuServer.pm write_vm_config/parse_vm_config,
// pve-container src/PVE/LXC/Config.pm write_pct_config/parse_pct_config).
func SnapshotDescriptionKept(s string, container bool) string {
	lines := strings.Split(s, "\n")
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if container {
		var b strings.Builder
		for _, l := range lines {
			b.WriteString(l)
			b.WriteByte('\n')
		}
		return b.String()
	}
	return strings.TrimRight(strings.Join(lines, "\n"), " \t\r\n\f\v")
}
