# A first look at the pve provider. It reads its connection from the
# environment (PVE_ENDPOINT, PVE_API_TOKEN, PVE_CA_FILE), which `make demo`
# sets for the simulator; against a real cluster, export your own.

terraform {
  required_version = ">= 1.5"
  required_providers {
    pve = {
      source = "proxops/pve"
    }
  }
}

provider "pve" {}

data "pve_version" "current" {}

data "pve_nodes" "all" {}

resource "pve_pool" "quickstart" {
  poolid  = "quickstart"
  comment = "Made by the pve provider quickstart"
}

output "pve_version" {
  value = data.pve_version.current.version
}

output "nodes" {
  value = data.pve_nodes.all.names
}

output "pool" {
  value = pve_pool.quickstart.id
}
