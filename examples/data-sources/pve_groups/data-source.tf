data "pve_groups" "all" {}

# Group name to its members.
output "group_members" {
  value = { for g in data.pve_groups.all.groups : g.groupid => g.members }
}
