# Every role, built-in and custom.
data "pve_roles" "all" {}

# The built-in roles that may power guests on and off.
data "pve_roles" "power" {
  builtin   = true
  privilege = "VM.PowerMgmt"
}

output "pvevmuser_privileges" {
  value = data.pve_roles.all.roles["PVEVMUser"].privileges
}

output "roles_with_power" {
  value = keys(data.pve_roles.power.roles)
}
