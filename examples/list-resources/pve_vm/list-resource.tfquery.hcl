# The VMs on node pve1 tagged "web" whose name starts with "web-", with
# each VM as an import reads it (for -generate-config-out).
list "pve_vm" "web" {
  provider         = pve
  include_resource = true

  config {
    node = "pve1"
    tags = ["web"]
    name = "web-*"
  }
}
