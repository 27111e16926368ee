package lxc

import (
	"fmt"
	"maps"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// nicModel is one network device of `network`, keyed by its slot (netN).
// Addresses are part of the device (W38).
type nicModel struct {
	Name       types.String  `tfsdk:"name"`
	Bridge     types.String  `tfsdk:"bridge"`
	VLANTag    types.Int64   `tfsdk:"vlan_tag"`
	Firewall   types.Bool    `tfsdk:"firewall"`
	MACAddress types.String  `tfsdk:"mac_address"`
	MTU        types.Int64   `tfsdk:"mtu"`
	Rate       types.Float64 `tfsdk:"rate"`
	IPv4       *ipModel      `tfsdk:"ipv4"`
	IPv6       *ipModel      `tfsdk:"ipv6"`
}

// ipModel is one address family of a NIC: ip/gw or ip6/gw6.
type ipModel struct {
	Address types.String `tfsdk:"address"`
	Gateway types.String `tfsdk:"gateway"`
}

// Keys of the net[n] property string.
const (
	nicNameKey     = "name"
	nicBridgeKey   = "bridge"
	nicTagKey      = "tag"
	nicFirewallKey = "firewall"
	nicMACKey      = "hwaddr"
	nicMTUKey      = "mtu"
	nicRateKey     = "rate"
	nicIPKey       = "ip"
	nicGatewayKey  = "gw"
	nicIP6Key      = "ip6"
	nicGateway6Key = "gw6"
)

// nicOrder is how PVE prints a NIC: name first.
var nicOrder = []string{nicNameKey, nicBridgeKey, nicMACKey, nicIPKey, nicGatewayKey, nicIP6Key, nicGateway6Key}

// parseNICSlot reads a live net[n] value.
func parseNICSlot(value string) (map[string]string, error) {
	props, err := wire.ParsePropertyString(value, "")
	if err != nil {
		return nil, err
	}
	if props[nicNameKey] == "" {
		return nil, fmt.Errorf("name: property is missing and it is not optional")
	}
	return props, nil
}

// networkFromAPI reads the netN keys with their addresses inline (W38). A
// MAC address equal to the prior one but for letter case keeps the prior
// spelling.
func networkFromAPI(config pveapi.GuestConfig, prior map[string]nicModel) (map[string]nicModel, error) {
	var nics map[string]nicModel
	for slot, value := range config {
		if !wire.IsNetSlot(slot) {
			continue
		}
		props, err := parseNICSlot(value)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", slot, value, err)
		}
		nic := nicModel{
			Name:       types.StringValue(props[nicNameKey]),
			Bridge:     guestops.PropString(props, nicBridgeKey),
			MACAddress: guestops.PropString(props, nicMACKey),
			IPv4:       ipFromProps(props, nicIPKey, nicGatewayKey),
			IPv6:       ipFromProps(props, nicIP6Key, nicGateway6Key),
		}
		if old, ok := prior[slot]; ok && guestops.Known(old.MACAddress) && guestops.Known(nic.MACAddress) &&
			strings.EqualFold(old.MACAddress.ValueString(), nic.MACAddress.ValueString()) {
			nic.MACAddress = old.MACAddress
		}
		if nic.VLANTag, err = guestops.PropInt(props, nicTagKey); err != nil {
			return nil, fmt.Errorf("%s: %w", slot, err)
		}
		if nic.MTU, err = guestops.PropInt(props, nicMTUKey); err != nil {
			return nil, fmt.Errorf("%s: %w", slot, err)
		}
		if nic.Firewall, err = guestops.PropBool(props, nicFirewallKey); err != nil {
			return nil, fmt.Errorf("%s: %w", slot, err)
		}
		if nic.Rate, err = guestops.PropFloat(props, nicRateKey); err != nil {
			return nil, fmt.Errorf("%s: %w", slot, err)
		}
		if nics == nil {
			nics = map[string]nicModel{}
		}
		nics[slot] = nic
	}
	return nics, nil
}

func ipFromProps(props map[string]string, addressKey, gatewayKey string) *ipModel {
	address, hasAddress := props[addressKey]
	gateway, hasGateway := props[gatewayKey]
	if !hasAddress && !hasGateway {
		return nil
	}
	ip := &ipModel{Address: types.StringNull(), Gateway: types.StringNull()}
	if hasAddress {
		ip.Address = types.StringValue(address)
	}
	if hasGateway {
		ip.Gateway = types.StringValue(gateway)
	}
	return ip
}

func (ip *ipModel) apply(props map[string]string, addressKey, gatewayKey string) {
	if ip == nil {
		ip = &ipModel{}
	}
	guestops.SetPropString(props, addressKey, ip.Address)
	guestops.SetPropString(props, gatewayKey, ip.Gateway)
}

// value is the net[n] value for n. Options of the live device the provider
// does not model (type, trunks, link_down, ...) are kept; so is its MAC
// address when the configuration does not set one. Without any MAC PVE
// generates one.
func (n nicModel) value(live *guestops.LiveSlot[map[string]string]) (string, error) {
	props := map[string]string{}
	if live != nil {
		props = maps.Clone(live.Parsed)
	}
	mac := props[nicMACKey]
	guestops.SetPropString(props, nicNameKey, n.Name)
	guestops.SetPropString(props, nicBridgeKey, n.Bridge)
	guestops.SetPropInt(props, nicTagKey, n.VLANTag)
	guestops.SetPropBool(props, nicFirewallKey, n.Firewall)
	guestops.SetPropInt(props, nicMTUKey, n.MTU)
	guestops.SetPropFloat(props, nicRateKey, n.Rate)
	guestops.SetPropString(props, nicMACKey, n.MACAddress)
	if !guestops.Known(n.MACAddress) && mac != "" {
		props[nicMACKey] = mac
	}
	n.IPv4.apply(props, nicIPKey, nicGatewayKey)
	n.IPv6.apply(props, nicIP6Key, nicGateway6Key)
	if err := wire.ValidatePropertyMap(props); err != nil {
		return "", err
	}
	return wire.FormatPropertyStringOrdered(props, "", nicOrder), nil
}

// sameNICValue reports whether two net[n] values describe the same device:
// the same keys, the MAC address compared without letter case.
func sameNICValue(a, b string) bool {
	pa, errA := parseNICSlot(a)
	pb, errB := parseNICSlot(b)
	if errA != nil || errB != nil {
		return a == b
	}
	return maps.EqualFunc(pa, pb, func(x, y string) bool { return strings.EqualFold(x, y) && (x == y || isMAC(x)) })
}

func isMAC(s string) bool { return wire.IsMACAddress(s) }

// nicSlots reconciles network. A device the plan drops is deleted.
var nicSlots = guestops.SlotFamily[nicModel, map[string]string]{
	Attr:   "network",
	Parse:  parseNICSlot,
	Value:  nicModel.value,
	Same:   sameNICValue,
	Remove: guestops.RemoveSlot,
}
