# The parts of a volume id: storage "local-lvm", content "images", owner
# guest 100, format "raw".
output "disk" {
  value = provider::pve::parse_volume_id("local-lvm:vm-100-disk-0")
}

# The file name of an ISO image: "debian-13.0.0-amd64-netinst.iso".
output "iso_file" {
  value = provider::pve::parse_volume_id("local:iso/debian-13.0.0-amd64-netinst.iso").file
}

# The guest a backup belongs to: 101.
output "backup_owner" {
  value = provider::pve::parse_volume_id("pbs:backup/ct/101/2025-01-31T10:00:00Z").vmid
}
