package fwutil

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// IPConfig is a validator for the address of one family in PVE's network
// settings (ipconfigN's ip and ip6, a container NIC's ip and ip6): the
// words PVE takes (dhcp, manual; for IPv6 also auto) or an address with a
// prefix length PVE accepts. A value known only after apply is checked by
// PVE.
func IPConfig(family wire.IPFamily) validator.String {
	return ipValidator{family: family, config: true}
}

// IPAddress is a validator for a gateway of one family.
func IPAddress(family wire.IPFamily) validator.String { return ipValidator{family: family} }

type ipValidator struct {
	family wire.IPFamily
	config bool
}

func (v ipValidator) Description(context.Context) string {
	switch {
	case v.config && v.family == wire.IPv4:
		return "must be dhcp, manual or an address with prefix length 8-32, such as 10.0.0.5/24"
	case v.config:
		return "must be auto (SLAAC), dhcp, manual or an address with prefix length 8-128, such as 2001:db8::5/64"
	case v.family == wire.IPv4:
		return "must be an IPv4 address, such as 10.0.0.1"
	}
	return "must be an IPv6 address, such as 2001:db8::1"
}

func (v ipValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v ipValidator) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	check, summary := v.family.CheckAddress, "Invalid Gateway"
	if v.config {
		check, summary = v.family.CheckConfig, "Invalid IP Address"
	}
	if err := check(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, summary,
			fmt.Sprintf("PVE refuses this value: %s. The value %s.", err, v.Description(ctx)))
	}
}
