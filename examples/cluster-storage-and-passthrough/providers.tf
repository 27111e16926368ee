# Terraform 1.11 or newer: the PBS password is a write-only argument, kept
# out of plans and state. The connection comes from the environment
# (PVE_ENDPOINT, PVE_API_TOKEN, PVE_CA_FILE).
terraform {
  required_version = ">= 1.11"
  required_providers {
    pve = {
      source = "proxops/pve"
    }
  }
}

# Everything but the container's device runs under the token.
provider "pve" {}

# PVE lets only root@pam, logged in with its password, pass a host device
# through to a container: that one resource uses this second provider,
# which ignores PVE_API_TOKEN because it sets username and password.
variable "root_password" {
  type      = string
  sensitive = true
  ephemeral = true
}

provider "pve" {
  alias    = "root"
  username = "root@pam"
  password = var.root_password
}
