# Every container tagged both "dns" and "prod", templates excluded.
data "pve_containers" "dns_prod" {
  tags     = ["dns", "prod"]
  template = false
}

# The container templates on one node whose hostname starts with "debian-".
data "pve_containers" "debian_templates" {
  node           = "pve1"
  hostname_regex = "^debian-"
  template       = true
}

output "dns_prod_vmids" {
  value = data.pve_containers.dns_prod.vmids
}

output "dns_prod_nodes" {
  value = { for ct in data.pve_containers.dns_prod.containers : ct.vmid => ct.node }
}
