# A host directory shared with VMs through virtiofs, at the same path on
# every node.
resource "pve_dir_mapping" "datasets" {
  id          = "datasets"
  description = "Read-mostly training data"

  map = {
    pve1 = { path = "/srv/datasets" }
    pve2 = { path = "/srv/datasets" }
  }
}
