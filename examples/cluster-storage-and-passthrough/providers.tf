# Terraform 1.11 or newer: the PBS password is a write-only argument, and
# the secrets come from ephemeral variables, so they stay out of plan
# files and state. The endpoint comes from the environment (PVE_ENDPOINT,
# PVE_CA_FILE); the credentials from the variables below:
#   export TF_VAR_pve_api_token='terraform@pve!provider=<secret>'
terraform {
  required_version = ">= 1.11"
  required_providers {
    pve = {
      source = "proxops/pve"
    }
  }
}

variable "pve_api_token" {
  type      = string
  sensitive = true
  ephemeral = true
}

# Everything but the container's device runs under the token.
provider "pve" {
  api_token = var.pve_api_token
}

# PVE lets only root@pam, logged in with its password, pass a host device
# through to a container: that one resource uses this second provider.
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
