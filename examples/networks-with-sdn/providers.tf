# Without required_providers, Terraform would look for hashicorp/pve. The
# connection comes from the environment (PVE_ENDPOINT, PVE_API_TOKEN,
# PVE_CA_FILE).
terraform {
  required_version = ">= 1.7"
  required_providers {
    pve = {
      source = "proxops/pve"
    }
  }
}

provider "pve" {}
