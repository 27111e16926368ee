package qemu

import (
	"fmt"
	"maps"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// nicModel is one network device of `network`, keyed by its slot (netN).
type nicModel struct {
	Model      types.String  `tfsdk:"model"`
	Bridge     types.String  `tfsdk:"bridge"`
	MACAddress types.String  `tfsdk:"mac_address"`
	VLANTag    types.Int64   `tfsdk:"vlan_tag"`
	Firewall   types.Bool    `tfsdk:"firewall"`
	LinkDown   types.Bool    `tfsdk:"link_down"`
	MTU        types.Int64   `tfsdk:"mtu"`
	Rate       types.Float64 `tfsdk:"rate"`
	Queues     types.Int64   `tfsdk:"queues"`
}

// nicModels are the models of PVE's net[n] format. PVE writes the MAC
// address under the model's name ("virtio=BC:24:11:2A:3B:4C").
var nicModels = []string{
	"e1000", "e1000-82540em", "e1000-82544gc", "e1000-82545em", "e1000e", "i82551", "i82557b",
	"i82559er", "ne2k_isa", "ne2k_pci", "pcnet", "rtl8139", "virtio", "vmxnet3",
}

const defaultNICModel = "virtio"

// Keys of the net[n] property string.
const (
	nicModelKey    = "model"
	nicMACKey      = "macaddr"
	nicBridgeKey   = "bridge"
	nicTagKey      = "tag"
	nicFirewallKey = "firewall"
	nicLinkDownKey = "link_down"
	nicMTUKey      = "mtu"
	nicRateKey     = "rate"
	nicQueuesKey   = "queues"
)

func isNICModel(s string) bool {
	for _, m := range nicModels {
		if m == s {
			return true
		}
	}
	return false
}

// parsedNIC is a net[n] value split into model, MAC and the other options.
type parsedNIC struct {
	model string
	mac   string
	props map[string]string
}

// parseNICSlot reads a live net[n] value.
func parseNICSlot(value string) (parsedNIC, error) {
	props, err := wire.ParsePropertyString(value, nicModelKey)
	if err != nil {
		return parsedNIC{}, err
	}
	nic := parsedNIC{props: map[string]string{}}
	for k, v := range props {
		switch {
		case k == nicModelKey:
			nic.model = v
		case k == nicMACKey:
			nic.mac = v
		case isNICModel(k):
			nic.model, nic.mac = k, v
		default:
			nic.props[k] = v
		}
	}
	if nic.model == "" {
		return parsedNIC{}, fmt.Errorf("model: property is missing and it is not optional")
	}
	return nic, nil
}

// canonical prints a parsed NIC in one spelling, for comparisons.
func (p parsedNIC) canonical() string {
	keys := make([]string, 0, len(p.props))
	for k := range p.props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(p.model + "=" + strings.ToUpper(p.mac))
	for _, k := range keys {
		b.WriteString("," + k + "=" + p.props[k])
	}
	return b.String()
}

// networkFromAPI reads the netN keys. A MAC address equal to the prior one
// but for letter case keeps the prior spelling.
func networkFromAPI(config pveapi.GuestConfig, prior map[string]nicModel) (map[string]nicModel, error) {
	var nics map[string]nicModel
	for slot, value := range config {
		if !wire.IsNetSlot(slot) {
			continue
		}
		p, err := parseNICSlot(value)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", slot, value, err)
		}
		nic := nicModel{
			Model:      types.StringValue(p.model),
			MACAddress: types.StringNull(),
			Bridge:     guestops.PropString(p.props, nicBridgeKey),
			Rate:       types.Float64Null(),
		}
		if p.mac != "" {
			nic.MACAddress = types.StringValue(p.mac)
			if old, ok := prior[slot]; ok && guestops.Known(old.MACAddress) && strings.EqualFold(old.MACAddress.ValueString(), p.mac) {
				nic.MACAddress = old.MACAddress
			}
		}
		if nic.VLANTag, err = guestops.PropInt(p.props, nicTagKey); err != nil {
			return nil, fmt.Errorf("%s: %w", slot, err)
		}
		if nic.MTU, err = guestops.PropInt(p.props, nicMTUKey); err != nil {
			return nil, fmt.Errorf("%s: %w", slot, err)
		}
		if nic.Queues, err = guestops.PropInt(p.props, nicQueuesKey); err != nil {
			return nil, fmt.Errorf("%s: %w", slot, err)
		}
		if nic.Firewall, err = guestops.PropBool(p.props, nicFirewallKey); err != nil {
			return nil, fmt.Errorf("%s: %w", slot, err)
		}
		if nic.LinkDown, err = guestops.PropBool(p.props, nicLinkDownKey); err != nil {
			return nil, fmt.Errorf("%s: %w", slot, err)
		}
		if raw, ok := p.props[nicRateKey]; ok {
			rate, err := strconv.ParseFloat(raw, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: rate %q: %w", slot, raw, err)
			}
			nic.Rate = types.Float64Value(rate)
		}
		if nics == nil {
			nics = map[string]nicModel{}
		}
		nics[slot] = nic
	}
	return nics, nil
}

// value is the net[n] value for n. Options of the live device the provider
// does not model (trunks, ...) are kept; so is its MAC address when the
// configuration does not set one, also across a model change. Without any
// MAC PVE generates one.
func (n nicModel) value(live *guestops.LiveSlot[parsedNIC]) (string, error) {
	props := map[string]string{}
	mac := ""
	if live != nil {
		props = maps.Clone(live.Parsed.props)
		mac = live.Parsed.mac
	}
	if guestops.Known(n.MACAddress) {
		mac = n.MACAddress.ValueString()
	}
	guestops.SetPropString(props, nicBridgeKey, n.Bridge)
	guestops.SetPropInt(props, nicTagKey, n.VLANTag)
	guestops.SetPropBool(props, nicFirewallKey, n.Firewall)
	guestops.SetPropBool(props, nicLinkDownKey, n.LinkDown)
	guestops.SetPropInt(props, nicMTUKey, n.MTU)
	guestops.SetPropInt(props, nicQueuesKey, n.Queues)
	if guestops.Known(n.Rate) {
		props[nicRateKey] = strconv.FormatFloat(n.Rate.ValueFloat64(), 'f', -1, 64)
	} else {
		delete(props, nicRateKey)
	}
	model := defaultNICModel
	if guestops.Known(n.Model) {
		model = n.Model.ValueString()
	}
	if err := wire.ValidatePropertyMap(props); err != nil {
		return "", err
	}
	if mac != "" {
		props[model] = mac
		return wire.FormatPropertyStringOrdered(props, "", []string{model, nicBridgeKey}), nil
	}
	props[nicModelKey] = model
	return wire.FormatPropertyStringOrdered(props, nicModelKey, []string{nicBridgeKey}), nil
}

// sameNICValue reports whether two net[n] values describe the same device.
func sameNICValue(a, b string) bool {
	pa, errA := parseNICSlot(a)
	pb, errB := parseNICSlot(b)
	if errA != nil || errB != nil {
		return a == b
	}
	return pa.canonical() == pb.canonical()
}

// nicSlots reconciles network. A device the plan drops is deleted.
var nicSlots = guestops.SlotFamily[nicModel, parsedNIC]{
	Attr:   "network",
	Parse:  parseNICSlot,
	Value:  nicModel.value,
	Same:   sameNICValue,
	Remove: guestops.RemoveSlot,
}
