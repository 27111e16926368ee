# A snapshot of container 130. Destroying the resource deletes the snapshot;
# the container is never rolled back by Terraform.
resource "pve_container_snapshot" "before_upgrade" {
  node        = "pve1"
  vmid        = 130
  name        = "before_upgrade"
  description = "Before the PostgreSQL 18 upgrade"
}
