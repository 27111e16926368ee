package sdn

import (
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"

	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// NewDNSResource is pve_sdn_dns.
func NewDNSResource() resource.Resource {
	return fwutil.WithIdentity(&pluginResource{fam: wire.SDNDNSServers, text: pluginText{
		noun:    "SDN DNS server",
		example: "powerdns1",
		about: "A DNS server plugin of SDN (Datacenter → SDN → DNS), where zones register their guests' names: PowerDNS " +
			"(`powerdns`). The API key is a write-only attribute (`key_wo` with a `key_wo_version` trigger): it never reaches " +
			"state or plan output. A DNS server takes effect at once, without an SDN apply; on PVE 9 its writes take the SDN " +
			"lock like every SDN write of the run, which the `pve_sdn_applier`'s apply (or the end of the run) releases. PVE checks that it can reach the server's API when it is created or changed. " +
			"Needs `SDN.Allocate` on `/sdn/dns`.",
	}}, dnsIdentity)
}
