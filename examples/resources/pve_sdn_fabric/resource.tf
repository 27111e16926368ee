# An OpenFabric underlay between the nodes (PVE 9 and later). Its nodes are
# pve_sdn_fabric_node resources; the EVPN controller can use it instead of a
# static peer list.
resource "pve_sdn_fabric" "underlay" {
  fabric         = "under1"
  protocol       = "openfabric"
  ip_prefix      = "10.77.0.0/24"
  hello_interval = 3
}

# An OSPF fabric: an area is required, IPv4 only.
resource "pve_sdn_fabric" "ospf" {
  fabric    = "ospf1"
  protocol  = "ospf"
  ip_prefix = "10.78.0.0/24"
  area      = "0"
}

resource "pve_sdn_controller" "evpn" {
  controller = "evpn1"
  type       = "evpn"
  asn        = 65000
  fabric     = pve_sdn_fabric.underlay.fabric
}

# One SDN apply for the run's staged changes.
resource "pve_sdn_applier" "sdn" {
  objects = [pve_sdn_fabric.underlay, pve_sdn_fabric.ospf, pve_sdn_controller.evpn]
}
