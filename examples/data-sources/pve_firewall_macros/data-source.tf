data "pve_firewall_macros" "all" {}

# The services a rule's macro can name, e.g. "SSH" or "HTTPS".
output "firewall_macros" {
  value = data.pve_firewall_macros.all.names
}
