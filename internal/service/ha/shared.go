// Package ha holds the high-availability resources: pve_ha_resource,
// pve_ha_group (PVE 8), pve_ha_rule (PVE 9) and the pve_ha_status data
// source.
package ha
