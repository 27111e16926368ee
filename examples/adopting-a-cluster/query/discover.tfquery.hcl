# Every VM and container tagged "prod" (templates are listed by
# pve_vm_template and pve_container_template). include_resource = true
# returns each guest as an import reads it, which
# `terraform query -generate-config-out=generated.tf` turns into an import
# block and a resource block per guest.

list "pve_vm" "prod" {
  provider         = pve
  include_resource = true
  limit            = 1000

  config {
    tags = ["prod"]
  }
}

list "pve_container" "prod" {
  provider         = pve
  include_resource = true
  limit            = 1000

  config {
    tags = ["prod"]
  }
}
