// Package wire holds the grammar of Proxmox VE's API values and the small
// rules around them, with no I/O: property strings, booleans, the urlencoded
// sshkeys value, tag lists, disk sizes, drive strings (create form versus live
// form), the config delta (set map plus delete list), PVE's named formats
// and slot ranges (formats.go, slots.go) that validators and models check
// values against, the firewall's grammar, stored forms, list digest and
// rule edit planner (firewall*.go), and access control's names, ACL paths,
// privileges and built-in roles per PVE release (access*.go), and job
// schedules (calendar events with their next run) and backup retention
// (prune-backups) (calendar.go, prune.go), and volume ids with what a volume
// name's shape says under PVE's storage types (volid.go).
//
// The API client, the provider and the simulator all speak PVE through this
// one package, so a value the provider writes and a value the simulator
// accepts are parsed and printed by the same code. Rules pinned here carry the
// wire rule ids of the project's PVE notes (W6, W16, W19, W21, W25, W27, W30,
// W43, W50 to W57) in their documentation and tests. RULES.md beside this
// file explains every rule id the code cites, W1 to W57.
//
// Error texts that PVE itself produces are reproduced verbatim where PVE has
// one, so the simulator can hand them on unchanged.
package wire
