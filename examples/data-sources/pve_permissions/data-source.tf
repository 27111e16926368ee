# What the provider's own identity may do, on every path.
data "pve_permissions" "self" {}

# What alice may do on one guest, inherited privileges included. When
# pve_acl resources of the same configuration grant them, add depends_on
# so the data source is read after they are applied.
data "pve_permissions" "alice_vm_100" {
  userid = "alice@pve"
  path   = "/vms/100"
}

output "alice_may_power_vm_100" {
  value = contains(data.pve_permissions.alice_vm_100.permissions["/vms/100"], "VM.PowerMgmt")
}
