variable "netbox_token" {
  type      = string
  sensitive = true
}

# NetBox as the IPAM of SDN zones. The token is write-only: it never
# reaches the state; bump token_wo_version to send a new one.
resource "pve_sdn_ipam" "netbox" {
  ipam             = "netbox"
  type             = "netbox"
  url              = "https://netbox.example.com/api"
  token_wo         = var.netbox_token
  token_wo_version = 1
}

# PVE's built-in IPAM takes no options.
resource "pve_sdn_ipam" "builtin" {
  ipam = "pve2"
  type = "pve"
}
