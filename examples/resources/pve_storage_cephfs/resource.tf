# The CephFS of the hyper-converged Ceph cluster, for ISO images and
# templates.
resource "pve_storage_cephfs" "cephfs" {
  storage = "cephfs"
  path    = "/mnt/pve/cephfs"
  content = ["iso", "vztmpl", "snippets"]
}
