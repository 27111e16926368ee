# The cluster's firewall: on for the whole cluster, dropping incoming
# traffic no rule accepts. PVE keeps the API, web interface and SSH open to
# the addresses in its "management" IP set (the local network by default).
resource "pve_firewall_options" "cluster" {
  enabled    = true
  policy_in  = "DROP"
  policy_out = "ACCEPT"

  log_ratelimit = {
    enabled = true
    rate    = "10/minute"
    burst   = 20
  }
}

# A node's own firewall: connection tracking and SYN flood protection.
resource "pve_firewall_options" "pve1" {
  node = "pve1"

  smurf_filter         = true
  tcp_flags_filter     = true
  nf_conntrack_max     = 524288
  nf_conntrack_helpers = ["ftp", "sip"]
  protection_synflood  = true
  log_level_in         = "warning"
}

# A guest's firewall, wherever the guest runs. Only the options declared
# here are managed; the others keep what PVE has.
resource "pve_firewall_options" "web" {
  vmid = 120

  enabled      = true
  policy_in    = "DROP"
  mac_filter   = true
  ip_filter    = true
  dhcp         = true
  log_level_in = "info"
}
