# The cluster's EVPN controller: the BGP control plane of EVPN zones.
# Like zones and VNets, its changes are staged until the SDN apply: list it
# in a pve_sdn_applier's objects.
resource "pve_sdn_controller" "evpn" {
  controller = "evpn1"
  type       = "evpn"
  asn        = 65000
  peers      = ["10.0.0.11", "10.0.0.12", "10.0.0.13"]
}

# BGP peering of one node with the physical network, beside the EVPN
# controller (same ASN for iBGP, or ebgp = true for an external AS).
resource "pve_sdn_controller" "uplink" {
  controller = "bgp-pve1"
  type       = "bgp"
  node       = "pve1"
  asn        = 65000
  peers      = ["192.0.2.1"]
  ebgp       = true
  loopback   = "dummy1"
}

# An IS-IS underlay on node pve1.
resource "pve_sdn_controller" "isis" {
  controller  = "isis-pve1"
  type        = "isis"
  node        = "pve1"
  isis_domain = "underlay"
  isis_net    = "49.0001.1921.6800.1001.00"
  isis_ifaces = ["eth1", "eth2"]
}

# One SDN apply for the run's staged changes.
resource "pve_sdn_applier" "sdn" {
  objects = [pve_sdn_controller.evpn, pve_sdn_controller.uplink, pve_sdn_controller.isis]
}
