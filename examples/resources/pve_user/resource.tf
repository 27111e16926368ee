# The password never reaches state or plan output: pass it in an ephemeral
# variable (TF_VAR_alice_password) and bump the version to set it again.
variable "alice_password" {
  type      = string
  sensitive = true
  ephemeral = true
}

resource "pve_group" "operators" {
  groupid = "operators"
}

resource "pve_user" "alice" {
  userid     = "alice@pve"
  first_name = "Alice"
  last_name  = "Example"
  email      = "alice@example.com"
  expire     = "2030-12-31T23:59:59Z"

  # All of the user's groups: a group joined outside Terraform is left again.
  groups = [pve_group.operators.groupid]

  password_wo         = var.alice_password
  password_wo_version = 1
}

# A user of a directory realm authenticates there: no password here.
resource "pve_user" "bob" {
  userid  = "bob@corp-ldap"
  comment = "synced from the directory"
  enabled = false
}
