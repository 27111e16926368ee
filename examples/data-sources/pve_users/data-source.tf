# Every enabled user, with its groups and API tokens.
data "pve_users" "enabled" {
  enabled = true
}

# The users of the pve realm that expire at some point.
output "expiring_pve_users" {
  value = [
    for u in data.pve_users.enabled.users : u.userid
    if u.realm_type == "pve" && u.expire != null
  ]
}
