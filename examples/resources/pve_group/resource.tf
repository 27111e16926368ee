resource "pve_group" "operators" {
  groupid = "operators"
  comment = "Day-to-day VM operations"
}

# Members are set on the users; the group shows them in members.
resource "pve_user" "carol" {
  userid = "carol@pve"
  groups = [pve_group.operators.groupid]
}

output "operators" {
  value = pve_group.operators.members
}
