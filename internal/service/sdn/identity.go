package sdn

import "github.com/proxops/terraform-provider-pve/internal/fwutil"

// The SDN objects' identities are their import ids' parts: PVE's id of
// the object, a subnet's vnet and CIDR, a fabric node's fabric and node.
// None can change in place, so none is mutable.

func sdnIDIdentity(name, description string) fwutil.Identity {
	return fwutil.Identity{Attributes: []fwutil.IdentityAttribute{{Name: name, Description: description}}}
}

var (
	zoneIdentity       = sdnIDIdentity("zone", "The zone's id, as `zone` (for example `lab`).")
	vnetIdentity       = sdnIDIdentity("vnet", "The VNet's id, as `vnet` (for example `web`).")
	controllerIdentity = sdnIDIdentity("controller", "The controller's id, as `controller` (for example `evpn1`).")
	ipamIdentity       = sdnIDIdentity("ipam", "The IPAM's id, as `ipam` (for example `netbox`).")
	dnsIdentity        = sdnIDIdentity("dns", "The DNS server's id, as `dns` (for example `powerdns`).")
	fabricIdentity     = sdnIDIdentity("fabric", "The fabric's id, as `fabric` (for example `under1`).")
	applierIdentity    = sdnIDIdentity("id", "Always `sdn`: a cluster has one SDN configuration to apply.")

	subnetIdentity = fwutil.Identity{
		Attributes: []fwutil.IdentityAttribute{
			{Name: "vnet", Description: "The VNet the subnet belongs to, as `vnet`."},
			{Name: "cidr", Description: "The subnet's CIDR, as `cidr` (for example `10.10.0.0/24`)."},
		},
		ImportID: func(values map[string]string) string { return values["vnet"] + "/" + values["cidr"] },
	}
	fabricNodeIdentity = fwutil.Identity{
		Attributes: []fwutil.IdentityAttribute{
			{Name: "fabric", Description: "The fabric's id, as `fabric`."},
			{Name: "node", Description: "The node's name, as `node`."},
		},
		ImportID: func(values map[string]string) string { return values["fabric"] + "/" + values["node"] },
	}
)
