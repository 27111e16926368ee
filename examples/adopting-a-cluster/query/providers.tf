# terraform query needs Terraform 1.14 or later; on an older Terraform the
# .tfquery.hcl file is ignored. Without required_providers, Terraform would
# look for hashicorp/pve. The connection comes from the environment
# (PVE_ENDPOINT, PVE_API_TOKEN, PVE_CA_FILE).
terraform {
  required_version = ">= 1.7"
  required_providers {
    pve = {
      source = "proxops/pve"
    }
  }
}

provider "pve" {}
