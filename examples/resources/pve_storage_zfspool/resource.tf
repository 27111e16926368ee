# A local ZFS dataset for VM and container disks, thin provisioned.
resource "pve_storage_zfspool" "tank" {
  storage = "tank"
  pool    = "tank/guests"
  sparse  = true
  content = ["images", "rootdir"]
}
