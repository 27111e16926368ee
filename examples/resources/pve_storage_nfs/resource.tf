# An NFS export mounted on two nodes for ISO images and backups.
resource "pve_storage_nfs" "isos" {
  storage = "isos"
  server  = "10.0.0.20"
  export  = "/export/pve"
  path    = "/mnt/pve/isos"
  content = ["iso", "vztmpl", "backup"]
  nodes   = ["pve1", "pve2"]
  options = "vers=4.2"
}
