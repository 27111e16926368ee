# The cluster's firewall: who may reach the nodes, and the policy for
# everything else.

# The administrators' network, named once.
resource "pve_firewall_alias" "admin_net" {
  name    = "admin_net"
  cidr    = "10.0.10.0/24"
  comment = "Administrators"
}

# Hosts that may reach the nodes besides the administrators' network.
resource "pve_firewall_ipset" "jump_hosts" {
  name    = "jump_hosts"
  comment = "Bastions and monitoring"
  entries = {
    "10.0.20.5"    = { comment = "bastion" }
    "10.0.20.6"    = { comment = "monitoring" }
    "10.0.20.0/28" = {}
  }
}

# The cluster's rules apply to every node.
resource "pve_firewall_rules" "cluster" {
  rules = [
    { type = "in", action = "ACCEPT", macro = "SSH", source = pve_firewall_alias.admin_net.ref, comment = "SSH from admins" },
    { type = "in", action = "ACCEPT", proto = "tcp", dport = "8006", source = pve_firewall_alias.admin_net.ref, comment = "web UI and API" },
    { type = "in", action = "ACCEPT", proto = "tcp", dport = "8006", source = pve_firewall_ipset.jump_hosts.ref },
    { type = "in", action = "ACCEPT", macro = "Ping" },
  ]
}

# The policy comes last: the firewall is switched on once the rules that let
# the administrators in are in place.
resource "pve_firewall_options" "cluster" {
  enabled    = true
  policy_in  = "DROP"
  policy_out = "ACCEPT"

  depends_on = [pve_firewall_rules.cluster]
}
