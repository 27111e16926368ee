package sdn

import (
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"

	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// NewControllerResource is pve_sdn_controller.
func NewControllerResource() resource.Resource {
	return fwutil.WithIdentity(&pluginResource{fam: wire.SDNControllers, text: pluginText{
		noun:    "SDN controller",
		example: "evpn1",
		about: "An SDN controller (Datacenter → SDN → Options → Controllers): the routing daemon configuration of EVPN zones " +
			"(`evpn`), BGP peering of a node (`bgp`) or an IS-IS underlay of a node (`isis`). Each type takes its own options; " +
			"an option of another type is refused at plan time. Like zones and VNets, a controller's changes are staged: " +
			"list it in a `pve_sdn_applier`'s `objects` to apply them. On PVE 9 the provider holds the SDN lock while it writes. " +
			"PVE allows one EVPN controller per cluster and one BGP or IS-IS controller per node. Needs `SDN.Allocate` on `/sdn/controllers`.",
	}}, controllerIdentity)
}
