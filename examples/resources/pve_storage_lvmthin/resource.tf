# The LVM thin pool of each node, for VM and container disks.
resource "pve_storage_lvmthin" "thin" {
  storage  = "thin"
  vgname   = "pve"
  thinpool = "data"
  content  = ["images", "rootdir"]
}
