# Operators may start, stop and watch guests, and read their guest agent
# (PVE 9 privileges; on PVE 8.4 the agent needs VM.Monitor instead).
resource "pve_role" "operator" {
  roleid = "Operator"
  privileges = [
    "VM.Audit",
    "VM.Console",
    "VM.PowerMgmt",
    "VM.GuestAgent.Audit",
  ]
}

# The provider's own least-privilege role, from the privileges its features
# need. Deleting it would also delete the ACL entries that grant it, so a
# plan that removes it while it grants the provider's token its rights is
# refused unless allow_self_lockout = true.
data "pve_provider_privileges" "terraform" {}

resource "pve_role" "terraform" {
  roleid     = "Terraform"
  privileges = data.pve_provider_privileges.terraform.privileges
}
