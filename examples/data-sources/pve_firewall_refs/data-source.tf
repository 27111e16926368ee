# The IP sets a rule of guest 120 may name in source or dest: the cluster's
# and the guest's own.
data "pve_firewall_refs" "web" {
  vmid = 120
  type = "ipset"
}

output "web_ipsets" {
  value = [for r in data.pve_firewall_refs.web.refs : r.ref]
}

# Every alias and IP set of the cluster.
data "pve_firewall_refs" "cluster" {}
