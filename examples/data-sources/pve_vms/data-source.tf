# Every VM tagged both "web" and "prod", templates excluded.
data "pve_vms" "web_prod" {
  tags     = ["web", "prod"]
  template = false
}

# The templates on one node whose name starts with "debian-".
data "pve_vms" "debian_templates" {
  node       = "pve1"
  name_regex = "^debian-"
  template   = true
}

output "web_prod_vmids" {
  value = data.pve_vms.web_prod.vmids
}

output "web_prod_nodes" {
  value = { for vm in data.pve_vms.web_prod.vms : vm.vmid => vm.node }
}
