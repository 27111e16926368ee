package qemu

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/seediso"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// cloudInitModel is `cloud_init`: PVE's cloud-init keys and drive (W27,
// W30, W31) and, for full user-data, a NoCloud seed ISO (W32).
type cloudInitModel struct {
	Storage           types.String             `tfsdk:"storage"`
	Slot              types.String             `tfsdk:"slot"`
	User              types.String             `tfsdk:"user"`
	PasswordWO        types.String             `tfsdk:"password_wo"`
	PasswordWOVersion types.Int64              `tfsdk:"password_wo_version"`
	SSHKeys           types.List               `tfsdk:"ssh_keys"`
	DNS               *cloudInitDNSModel       `tfsdk:"dns"`
	IPConfig          map[string]ipConfigModel `tfsdk:"ip_config"`
	Upgrade           types.Bool               `tfsdk:"upgrade"`
	UserData          types.String             `tfsdk:"user_data"`
	VendorData        types.String             `tfsdk:"vendor_data"`
	NetworkConfig     types.String             `tfsdk:"network_config"`
	SeedStorage       types.String             `tfsdk:"seed_storage"`
	SeedSlot          types.String             `tfsdk:"seed_slot"`
	SeedSHA256        types.String             `tfsdk:"seed_sha256"`
}

// cloudInitDNSModel maps to searchdomain and nameserver.
type cloudInitDNSModel struct {
	Domain  types.String `tfsdk:"domain"`
	Servers types.List   `tfsdk:"servers"`
}

// ipConfigModel is one ipconfigN value.
type ipConfigModel struct {
	IPv4 *ipAddressModel `tfsdk:"ipv4"`
	IPv6 *ipAddressModel `tfsdk:"ipv6"`
}

// ipAddressModel is one address family of an ipconfigN value.
type ipAddressModel struct {
	Address types.String `tfsdk:"address"`
	Gateway types.String `tfsdk:"gateway"`
}

// Config keys of cloud-init data.
const (
	keyCIUser       = "ciuser"
	keyCIPassword   = "cipassword"
	keySSHKeys      = "sshkeys"
	keyNameserver   = "nameserver"
	keySearchDomain = "searchdomain"
	keyCIUpgrade    = "ciupgrade"
	keyCICustom     = "cicustom"
)

// Tokens inside ipconfigN.
const (
	ipTokenV4  = "ip"
	ipTokenGW4 = "gw"
	ipTokenV6  = "ip6"
	ipTokenGW6 = "gw6"
)

// Defaults of the slot attributes.
const (
	defaultCloudInitSlot = "ide2"
	defaultSeedSlot      = "ide3"
)

// identityScope says what happens with cloud-init keys the configuration
// does not declare.
type identityScope int

const (
	// keepUnowned deletes undeclared keys the provider reads back (they are
	// in state, so dropping them is a change the plan showed), but never
	// cipassword (W31) nor cicustom, which the provider does not model.
	keepUnowned identityScope = iota + 1
	// overwriteInherited also deletes cipassword and cicustom: a clone must
	// not boot with its template's identity (W15).
	overwriteInherited
)

// cloudInitKeys is the one place that says which cloud-init keys a VM
// should carry: the declared ones set, the undeclared identity keys
// (ciuser, sshkeys, ipconfigN, nameserver, searchdomain, and with
// overwriteInherited also cipassword and cicustom) deleted. password, when
// not nil, is written as cipassword. nil values mean "absent"; feed the map
// to guestops.DiffKeys with sameCloudInitValue. ci may be nil.
func cloudInitKeys(ci *cloudInitModel, password *string, live pveapi.GuestConfig, scope identityScope) map[string]*string {
	out := map[string]*string{
		keyCIUser:       nil,
		keySSHKeys:      nil,
		keyNameserver:   nil,
		keySearchDomain: nil,
		keyCIUpgrade:    nil,
	}
	for key := range live {
		if wire.IsIPConfigSlot(key) {
			out[key] = nil
		}
	}
	if scope == overwriteInherited {
		out[keyCIPassword] = nil
		out[keyCICustom] = nil
	}
	if password != nil {
		out[keyCIPassword] = password
	}
	if ci == nil {
		return out
	}
	out[keyCIUser] = guestops.WantedString(ci.User)
	if keys := listStrings(ci.SSHKeys); len(keys) > 0 {
		encoded := wire.EncodeSSHKeys(keys)
		out[keySSHKeys] = &encoded
	}
	if ci.DNS != nil {
		if servers := listStrings(ci.DNS.Servers); len(servers) > 0 {
			joined := strings.Join(servers, " ")
			out[keyNameserver] = &joined
		}
		out[keySearchDomain] = guestops.WantedString(ci.DNS.Domain)
	}
	out[keyCIUpgrade] = guestops.WantedBool(ci.Upgrade)
	for key, ipc := range ci.IPConfig {
		out[key] = ipc.value()
	}
	return out
}

// sameCloudInitValue compares the way PVE means the values: sshkeys as a
// decoded set of keys (W30), ipconfigN as a set of tokens, nameserver as a
// list of addresses.
func sameCloudInitValue(key, want, have string) bool {
	switch {
	case key == keySSHKeys:
		return wire.SameSSHKeys(wire.DecodeSSHKeys(want), wire.DecodeSSHKeys(have))
	case wire.IsIPConfigSlot(key):
		return guestops.SamePropertyString(want, have, "")
	case key == keyNameserver:
		return slices.Equal(splitAddressList(want), splitAddressList(have))
	case key == keyCIUpgrade:
		return guestops.SameBool(want, have)
	}
	return want == have
}

// splitAddressList reads PVE's address-list format: addresses separated by
// spaces, commas or semicolons.
func splitAddressList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == ';' || r == '\t' })
}

// value is the ipconfigN property string, nil when nothing is declared.
func (c ipConfigModel) value() *string {
	props := map[string]string{}
	if c.IPv4 != nil {
		guestops.SetPropString(props, ipTokenV4, c.IPv4.Address)
		guestops.SetPropString(props, ipTokenGW4, c.IPv4.Gateway)
	}
	if c.IPv6 != nil {
		guestops.SetPropString(props, ipTokenV6, c.IPv6.Address)
		guestops.SetPropString(props, ipTokenGW6, c.IPv6.Gateway)
	}
	if len(props) == 0 {
		return nil
	}
	s := wire.FormatPropertyString(props, "")
	return &s
}

// driveKeys names the declared attributes that PVE's cloud-init drive
// carries to the guest.
func (ci *cloudInitModel) driveKeys() []string {
	var names []string
	for _, attr := range []struct {
		name string
		set  bool
	}{
		{"user", !ci.User.IsNull()}, {"password_wo", !ci.PasswordWO.IsNull()}, {"ssh_keys", !ci.SSHKeys.IsNull()},
		{"dns", ci.DNS != nil}, {"ip_config", ci.IPConfig != nil}, {"upgrade", !ci.Upgrade.IsNull()},
	} {
		if attr.set {
			names = append(names, attr.name)
		}
	}
	return names
}

// wantsDrive reports whether ci declares PVE's cloud-init drive.
func (ci *cloudInitModel) wantsDrive() bool {
	return ci != nil && guestops.Known(ci.Storage)
}

// driveSlot is the declared slot of PVE's cloud-init drive.
func (ci *cloudInitModel) driveSlot() string {
	if ci == nil || !guestops.Known(ci.Slot) {
		return defaultCloudInitSlot
	}
	return ci.Slot.ValueString()
}

// wantsSeed reports whether ci declares a seed ISO.
func (ci *cloudInitModel) wantsSeed() bool {
	return ci != nil && guestops.Known(ci.UserData)
}

// seedSlot is the declared slot of the seed ISO.
func (ci *cloudInitModel) seedSlot() string {
	if ci == nil || !guestops.Known(ci.SeedSlot) {
		return defaultSeedSlot
	}
	return ci.SeedSlot.ValueString()
}

// seed is the seed ISO's content; hostname is the VM's name, which goes
// into the generated meta-data as PVE's own drive does.
func (ci *cloudInitModel) seed(hostname types.String) seediso.Seed {
	s := seediso.Seed{
		UserData:      ci.UserData.ValueString(),
		VendorData:    ci.VendorData.ValueString(),
		NetworkConfig: ci.NetworkConfig.ValueString(),
	}
	if guestops.Known(hostname) {
		s.Hostname = hostname.ValueString()
	}
	return s
}

// seedVolumeID is the seed's iso volume of a VM on storage.
func seedVolumeID(storage string, vmid int) string {
	return pveapi.VolumeID(storage, pveapi.ContentISO, seediso.Seed{}.FileName(vmid))
}

// seedDriveValue is the cdrom value that attaches the seed.
func seedDriveValue(storage string, vmid int) string {
	return seedVolumeID(storage, vmid) + "," + optMedia + "=cdrom"
}

// findSeed finds the slot holding the VM's seed ISO: a cdrom whose file is
// iso/pve-seed-VMID.iso on any storage. prefer is looked at first.
func findSeed(config pveapi.GuestConfig, vmid int, prefer string) (slot, storage string) {
	fileName := seediso.Seed{}.FileName(vmid)
	slots := slices.Sorted(maps.Keys(config))
	if prefer != "" {
		slots = append([]string{prefer}, slots...)
	}
	for _, key := range slots {
		value, ok := config[key]
		if !ok || !wire.IsCDROMSlot(key) {
			continue
		}
		drive, err := parseDriveSlot(value)
		if err != nil || drive.kind != driveCDROM {
			continue
		}
		if drive.Volume == pveapi.ContentISO+"/"+fileName {
			return key, drive.Storage
		}
	}
	return "", ""
}

// findCloudInitDrive finds PVE's cloud-init drive, on whatever bus PVE put
// it (W27).
func findCloudInitDrive(config pveapi.GuestConfig) (slot string, drive wire.Drive) {
	for _, key := range slices.Sorted(maps.Keys(config)) {
		if !wire.IsDataDiskSlot(key) {
			continue
		}
		d, err := parseDriveSlot(config[key])
		if err == nil && d.kind == driveCloudInit {
			return key, d.Drive
		}
	}
	return "", wire.Drive{}
}

// cloudInitFromAPI fills m.CloudInit from the config, and takes the seed
// ISO out of m.CDROMs: it is part of cloud_init, not a CD-ROM of the
// configuration. What PVE does not report is kept from the prior value:
// password_wo_version, user_data, vendor_data, network_config. The
// password is never read: PVE reports a mask (W31). seed_sha256 stays only
// while the seed is attached where state says, so a detached seed plans a
// re-upload.
func (m *vmModel) cloudInitFromAPI(vmid int, config pveapi.GuestConfig) error {
	prior := m.CloudInit
	ci := &cloudInitModel{
		Storage:           types.StringNull(),
		Slot:              types.StringValue(defaultCloudInitSlot),
		User:              guestops.OptString(config, keyCIUser),
		PasswordWO:        types.StringNull(),
		PasswordWOVersion: types.Int64Null(),
		SSHKeys:           types.ListNull(types.StringType),
		Upgrade:           guestops.OptBool(config, keyCIUpgrade),
		UserData:          types.StringNull(),
		VendorData:        types.StringNull(),
		NetworkConfig:     types.StringNull(),
		SeedStorage:       types.StringNull(),
		SeedSlot:          types.StringValue(defaultSeedSlot),
		SeedSHA256:        types.StringNull(),
	}
	present := !ci.User.IsNull() || !ci.Upgrade.IsNull()
	if prior != nil {
		present = true
		ci.Slot = prior.Slot
		ci.SeedSlot = prior.SeedSlot
		ci.PasswordWOVersion = prior.PasswordWOVersion
		ci.UserData, ci.VendorData, ci.NetworkConfig = prior.UserData, prior.VendorData, prior.NetworkConfig
	}
	if slot, drive := findCloudInitDrive(config); slot != "" {
		present = true
		ci.Slot = types.StringValue(slot)
		ci.Storage = types.StringValue(drive.Storage)
	}
	if raw, ok := config[keySSHKeys]; ok {
		present = true
		keys := wire.DecodeSSHKeys(raw)
		ci.SSHKeys = stringList(keys)
		if prior != nil && wire.SameSSHKeys(listStrings(prior.SSHKeys), keys) {
			ci.SSHKeys = prior.SSHKeys
		}
	}
	ci.DNS = dnsFromAPI(config)
	var err error
	if ci.IPConfig, err = ipConfigFromAPI(config); err != nil {
		return err
	}
	present = present || ci.DNS != nil || ci.IPConfig != nil

	prefer := ""
	if prior != nil {
		prefer = prior.seedSlot()
	}
	if slot, storage := findSeed(config, vmid, prefer); slot != "" {
		present = true
		delete(m.CDROMs, slot)
		if len(m.CDROMs) == 0 {
			m.CDROMs = nil
		}
		ci.SeedSlot = types.StringValue(slot)
		ci.SeedStorage = types.StringValue(storage)
		if prior != nil && prior.seedSlot() == slot && prior.SeedStorage.ValueString() == storage {
			ci.SeedSHA256 = prior.SeedSHA256
		}
	} else if prior != nil {
		ci.SeedStorage = prior.SeedStorage
	}
	if !present {
		m.CloudInit = nil
		return nil
	}
	m.CloudInit = ci
	return nil
}

func dnsFromAPI(config pveapi.GuestConfig) *cloudInitDNSModel {
	servers, hasServers := config[keyNameserver]
	domain := guestops.OptString(config, keySearchDomain)
	if !hasServers && domain.IsNull() {
		return nil
	}
	dns := &cloudInitDNSModel{Domain: domain, Servers: types.ListNull(types.StringType)}
	if hasServers {
		dns.Servers = stringList(splitAddressList(servers))
	}
	return dns
}

func ipConfigFromAPI(config pveapi.GuestConfig) (map[string]ipConfigModel, error) {
	var out map[string]ipConfigModel
	for key, raw := range config {
		if !wire.IsIPConfigSlot(key) {
			continue
		}
		props, err := wire.ParsePropertyString(raw, "")
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", key, raw, err)
		}
		var ipc ipConfigModel
		if _, v4 := props[ipTokenV4]; v4 || props[ipTokenGW4] != "" {
			ipc.IPv4 = &ipAddressModel{Address: guestops.PropString(props, ipTokenV4), Gateway: guestops.PropString(props, ipTokenGW4)}
		}
		if _, v6 := props[ipTokenV6]; v6 || props[ipTokenGW6] != "" {
			ipc.IPv6 = &ipAddressModel{Address: guestops.PropString(props, ipTokenV6), Gateway: guestops.PropString(props, ipTokenGW6)}
		}
		if out == nil {
			out = map[string]ipConfigModel{}
		}
		out[key] = ipc
	}
	return out, nil
}

// addCloudInitToCreate puts the declared cloud-init keys and PVE's
// cloud-init drive into the create form. The password is written
// separately (see writePassword): it comes from configuration only.
func (m *vmModel) addCloudInitToCreate(form url.Values) {
	ci := m.CloudInit
	if ci == nil {
		return
	}
	for key, value := range cloudInitKeys(ci, nil, nil, keepUnowned) {
		if value != nil {
			form.Set(key, *value)
		}
	}
	if ci.wantsDrive() {
		form.Set(ci.driveSlot(), ci.Storage.ValueString()+":cloudinit")
	}
}

// cloudInit adds the cloud-init keys and PVE's cloud-init drive to an
// update. The drive is written in its allocation form only into an empty
// slot (W27); a drive that moves to another slot or storage is deleted
// here and made again after this request (ensureCloudInitDrive), since
// PVE allows one cloud-init drive per VM. Cloud-init data changes are
// plain key changes: PVE regenerates the drive.
func (u *configUpdate) cloudInit(plan *vmModel, live pveapi.GuestConfig) error {
	ci := plan.CloudInit
	guestops.DiffKeys(u.delta, cloudInitKeys(ci, nil, live, keepUnowned), live, sameCloudInitValue)

	liveSlot, liveDrive := findCloudInitDrive(live)
	if !ci.wantsDrive() {
		if liveSlot != "" {
			u.delta.Delete(liveSlot)
		}
		return nil
	}
	slot, storage := ci.driveSlot(), ci.Storage.ValueString()
	switch {
	case liveSlot == slot && liveDrive.Storage == storage:
		return nil
	case liveSlot != "":
		u.delta.Delete(liveSlot)
		return nil
	}
	if value, occupied := live[slot]; occupied {
		drive, _ := parseDriveSlot(value)
		return fmt.Errorf("cloud_init.slot: %s holds a %s in PVE (%s); choose a free slot for the cloud-init drive", slot, drive.kind, value)
	}
	u.delta.Set(slot, storage+":cloudinit")
	u.allocates = true
	return nil
}
