# The provider's own user, role and token, made by an administrator's run
# of Terraform (root@pam, or a token with Permissions.Modify, User.Modify
# and Sys.Modify on /access). A second configuration then uses the token.

# The privileges of the provider's default features (guests, clones,
# images, pools, a guest's firewall) on the connected PVE release: PVE 8.4
# and PVE 9 differ, and this follows.
data "pve_provider_privileges" "terraform" {}

resource "pve_role" "terraform" {
  roleid     = "TerraformProvider"
  privileges = data.pve_provider_privileges.terraform.privileges
}

resource "pve_user" "terraform" {
  userid  = "terraform@pve"
  comment = "Terraform pve provider"
}

# With privilege separation (the default), the token holds only what ACL
# entries grant the token itself, and never more than its user holds.
resource "pve_api_token" "terraform" {
  userid     = pve_user.terraform.userid
  token_name = "provider"
  comment    = "Terraform pve provider"
}

resource "pve_acl" "user" {
  path = "/"
  user = pve_user.terraform.userid
  role = pve_role.terraform.roleid
}

resource "pve_acl" "token" {
  path  = "/"
  token = pve_api_token.terraform.id
  role  = pve_role.terraform.roleid
}

# `terraform output -raw api_token` prints it for the other configuration's
# PVE_API_TOKEN.
output "api_token" {
  value     = pve_api_token.terraform.api_token
  sensitive = true
}
