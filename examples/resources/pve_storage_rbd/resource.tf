variable "ceph_keyring" {
  type      = string
  sensitive = true
}

# A pool of an external Ceph cluster. The keyring is write-only.
resource "pve_storage_rbd" "ceph" {
  storage            = "ceph"
  pool               = "rbd"
  monhost            = "10.0.0.51 10.0.0.52 10.0.0.53"
  username           = "admin"
  keyring_wo         = var.ceph_keyring
  keyring_wo_version = 1
  krbd               = true
  content            = ["images", "rootdir"]
}
