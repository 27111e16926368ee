# Look a VM up by name; the lookup fails if several VMs share the name.
data "pve_vm" "web" {
  name = "web-1"
}

# Or by VMID.
data "pve_vm" "golden" {
  vmid = 9000
}

output "web_node" {
  value = data.pve_vm.web.node
}

output "golden_is_template" {
  value = data.pve_vm.golden.template
}
