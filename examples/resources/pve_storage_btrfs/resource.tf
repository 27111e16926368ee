# A BTRFS file system mounted on each node.
resource "pve_storage_btrfs" "btrfs" {
  storage = "btrfs"
  path    = "/mnt/btrfs"
  content = ["images", "rootdir"]
}
