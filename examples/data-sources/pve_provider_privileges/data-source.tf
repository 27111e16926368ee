# The privileges of the provider's default features, for the PVE release the
# provider talks to.
data "pve_provider_privileges" "default" {}

# Guests and their firewall only, computed for PVE 8.4 without asking PVE.
data "pve_provider_privileges" "guests_pve84" {
  features    = ["vm", "container", "guest_firewall"]
  pve_version = "8.4"
}

# The role's privileges, as `pveum role add TerraformProvider --privs` takes
# them.
output "provider_role_privileges" {
  value = join(",", sort(data.pve_provider_privileges.default.privileges))
}

# What to grant on which path, to confine the provider's token.
output "provider_grants" {
  value = { for g in data.pve_provider_privileges.guests_pve84.grants : g.path => sort(g.privileges) }
}
