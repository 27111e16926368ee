# Terraform 1.10 or newer: the token comes from an ephemeral variable, so
# it is kept out of saved plan files. Set it in the environment, for the
# plan and again for the apply of a saved plan:
#   export TF_VAR_pve_api_token='terraform@pve!provider=<secret>'
terraform {
  required_version = ">= 1.10"
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

provider "pve" {
  endpoint  = "https://pve1.example.com:8006"
  api_token = var.pve_api_token
}
