package sdn

import (
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"

	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// NewIPAMResource is pve_sdn_ipam.
func NewIPAMResource() resource.Resource {
	return fwutil.WithIdentity(&pluginResource{fam: wire.SDNIPAMs, text: pluginText{
		noun:    "SDN IPAM",
		example: "netbox1",
		about: "An IP address management (IPAM) plugin of SDN (Datacenter → SDN → IPAM), which zones use to register their " +
			"subnets' addresses: PVE's built-in one (`pve`), NetBox (`netbox`) or phpIPAM (`phpipam`). The API token is a " +
			"write-only attribute (`token_wo` with a `token_wo_version` trigger): it never reaches state or plan output. " +
			"An IPAM takes effect at once, without an SDN apply; on PVE 9 its writes take the SDN lock like every SDN write of the run, " +
			"which the `pve_sdn_applier`'s apply (or the end of the run) releases. " +
			"PVE checks that it can reach NetBox or phpIPAM when the IPAM is created or changed. Needs `SDN.Allocate` on `/sdn/ipams`.",
	}}, ipamIdentity)
}
