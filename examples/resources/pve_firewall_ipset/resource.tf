# An IP set of the cluster's firewall; rules match it as +trusted. Entries
# are keyed by address.
resource "pve_firewall_ipset" "trusted" {
  name    = "trusted"
  comment = "Hosts allowed to manage the cluster"

  entries = {
    "192.0.2.0/24" = { comment = "Office" }
    # An exception inside the office network.
    "192.0.2.99" = { nomatch = true, comment = "Guest Wi-Fi gateway" }
    # An alias of the cluster's firewall.
    "dc/${pve_firewall_alias.vpn.name}" = {}
  }
}

resource "pve_firewall_alias" "vpn" {
  name = "vpn"
  cidr = "198.51.100.0/24"
}

# An IP set of one guest's firewall, built from a list of addresses.
variable "monitoring_hosts" {
  type    = list(string)
  default = ["10.0.20.1", "10.0.20.2", "10.0.20.3"]
}

resource "pve_firewall_ipset" "monitoring" {
  vmid    = 100
  name    = "monitoring"
  entries = { for ip in var.monitoring_hosts : ip => {} }
}
