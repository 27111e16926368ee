# An alias of the cluster's firewall: rules and IP sets name it instead of
# the address.
resource "pve_firewall_alias" "office" {
  name    = "office"
  cidr    = "192.0.2.0/24"
  comment = "Office network"
}

# An alias of one guest's firewall (it follows the guest from node to node).
# Refer to the guest as pve_vm.NAME.vmid so Terraform creates it first.
resource "pve_firewall_alias" "backend" {
  vmid = 100
  name = "backend"
  cidr = "10.0.10.5"
}
