# Look a container up by hostname; the lookup fails if several containers
# share the hostname.
data "pve_container" "dns" {
  hostname = "dns-1"
}

# Or by VMID.
data "pve_container" "golden" {
  vmid = 8000
}

output "dns_node" {
  value = data.pve_container.dns.node
}

output "golden_is_template" {
  value = data.pve_container.golden.template
}
