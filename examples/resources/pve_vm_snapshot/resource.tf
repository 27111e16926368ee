# A snapshot of VM 120 with its RAM, taken before an upgrade (write
# vmid = pve_vm.web.vmid for a VM of this configuration). Destroying the
# resource deletes the snapshot; the VM is never rolled back by Terraform.
resource "pve_vm_snapshot" "before_upgrade" {
  node        = "pve1"
  vmid        = 120
  name        = "before_upgrade"
  description = "Before the Debian 13.2 upgrade"
  vmstate     = true # the VM must be running
}
