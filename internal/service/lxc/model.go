// Package lxc serves LXC containers: the pve_container resource and the
// pve_container and pve_containers data sources.
package lxc

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// containerModel is pve_container's Terraform state. Nested objects are
// pointers and slot maps are Go maps: null in Terraform is nil here.
// memory is an object value because it may be unknown in a plan: PVE
// writes its own memory and swap at create when the configuration sets
// none.
type containerModel struct {
	// Origin is what the container was made from; the driver keeps it in
	// private state (see guestops.Origin).
	Origin guestops.Origin `tfsdk:"-"`

	ID                types.String               `tfsdk:"id"`
	Node              types.String               `tfsdk:"node"`
	VMID              types.Int64                `tfsdk:"vmid"`
	Hostname          types.String               `tfsdk:"hostname"`
	Description       types.String               `tfsdk:"description"`
	Tags              fwutil.TagSetValue         `tfsdk:"tags"`
	Pool              types.String               `tfsdk:"pool"`
	OnBoot            types.Bool                 `tfsdk:"on_boot"`
	Protection        types.Bool                 `tfsdk:"protection"`
	Started           types.Bool                 `tfsdk:"started"`
	OSTemplate        types.String               `tfsdk:"os_template"`
	Unprivileged      types.Bool                 `tfsdk:"unprivileged"`
	CPU               *cpuModel                  `tfsdk:"cpu"`
	Memory            types.Object               `tfsdk:"memory"`
	RootDisk          *rootDiskModel             `tfsdk:"root_disk"`
	MountPoints       map[string]mountPointModel `tfsdk:"mount_points"`
	Network           map[string]nicModel        `tfsdk:"network"`
	Devices           map[string]deviceModel     `tfsdk:"devices"`
	Features          *featuresModel             `tfsdk:"features"`
	DNS               *dnsModel                  `tfsdk:"dns"`
	Console           *consoleModel              `tfsdk:"console"`
	PasswordWO        types.String               `tfsdk:"password_wo"`
	PasswordWOVersion types.Int64                `tfsdk:"password_wo_version"`
	SSHPublicKeys     types.Set                  `tfsdk:"ssh_public_keys"`
	PurgeRemovedDisks types.Bool                 `tfsdk:"purge_removed_disks"`
	RebootAfterUpdate types.Bool                 `tfsdk:"reboot_after_update"`
	Status            types.String               `tfsdk:"status"`
	Timeouts          timeouts.Value             `tfsdk:"timeouts"`
	Clone             *guestops.CloneModel       `tfsdk:"clone"`
	Restore           *guestops.RestoreModel     `tfsdk:"restore"`
}

// cpuModel maps to cores, cpulimit and cpuunits.
type cpuModel struct {
	Cores types.Int64   `tfsdk:"cores"`
	Limit types.Float64 `tfsdk:"limit"`
	Units types.Int64   `tfsdk:"units"`
}

// memoryModel maps to memory and swap, both MiB.
type memoryModel struct {
	Size types.Int64 `tfsdk:"size"`
	Swap types.Int64 `tfsdk:"swap"`
}

var memoryAttrTypes = map[string]attr.Type{"size": types.Int64Type, "swap": types.Int64Type}

// dnsModel maps to searchdomain and nameserver.
type dnsModel struct {
	Domain  types.String `tfsdk:"domain"`
	Servers types.List   `tfsdk:"servers"`
}

// consoleModel maps to console, cmode and tty.
type consoleModel struct {
	Enabled types.Bool   `tfsdk:"enabled"`
	Mode    types.String `tfsdk:"mode"`
	TTYs    types.Int64  `tfsdk:"ttys"`
}

// Config keys of the top-level attributes.
const (
	keyHostname     = "hostname"
	keyUnprivileged = "unprivileged"
	keyCores        = "cores"
	keyCPULimit     = "cpulimit"
	keyCPUUnits     = "cpuunits"
	keyMemory       = "memory"
	keySwap         = "swap"
	keyRootFS       = "rootfs"
	keyFeatures     = "features"
	keySearchDomain = "searchdomain"
	keyNameserver   = "nameserver"
	keyConsole      = "console"
	keyConsoleMode  = "cmode"
	keyTTY          = "tty"
)

// Parameters of the create request that are not config keys.
const (
	paramOSTemplate    = "ostemplate"
	paramPassword      = "password"
	paramSSHPublicKeys = "ssh-public-keys"
)

// fromAPI fills m from a container's config and status/current. An
// attribute is set from its config key when the key is present and is null
// when it is absent, except where PVE writes a value of its own at create
// (hostname, memory, swap, unprivileged: Computed attributes that show
// PVE's value). Values PVE does not report (id, node, pool, os_template
// (W35), the create-time secrets and keys, the provider-only flags and
// timeouts) stay as they are in m; false feature flags that PVE leaves out
// stay false.
func (m *containerModel) fromAPI(vmid int, config pveapi.GuestConfig, status *pveapi.GuestStatus) error {
	m.ID = types.StringValue(strconv.Itoa(vmid))
	m.VMID = types.Int64Value(int64(vmid))
	m.Hostname = guestops.OptString(config, keyHostname)
	m.Description = guestops.DescriptionFromAPI(config, m.Description)
	m.OnBoot = guestops.OptBool(config, guestops.KeyOnBoot)
	m.Protection = guestops.OptBool(config, guestops.KeyProtection)
	// A container without the key is privileged: PVE writes it only when
	// set (W34).
	m.Unprivileged = guestops.OptBool(config, keyUnprivileged)
	if m.Unprivileged.IsNull() {
		m.Unprivileged = types.BoolValue(false)
	}
	m.PasswordWO = types.StringNull()

	var err error
	if m.Tags, err = guestops.TagsFromAPI(config); err != nil {
		return err
	}
	if m.CPU, err = cpuFromAPI(config); err != nil {
		return err
	}
	if m.Memory, err = memoryFromAPI(config); err != nil {
		return err
	}
	if m.RootDisk, err = rootDiskFromAPI(config); err != nil {
		return err
	}
	if m.MountPoints, err = mountPointsFromAPI(config); err != nil {
		return err
	}
	if m.Network, err = networkFromAPI(config, m.Network); err != nil {
		return err
	}
	if m.Devices, err = devicesFromAPI(config); err != nil {
		return err
	}
	if m.Features, err = featuresFromAPI(config, m.Features); err != nil {
		return err
	}
	m.DNS = dnsFromAPI(config)
	if m.Console, err = consoleFromAPI(config); err != nil {
		return err
	}

	if status != nil {
		m.Status = types.StringValue(status.PowerState())
		m.Started = types.BoolValue(status.Status == pveapi.PowerRunning)
	}
	if !guestops.Known(m.PurgeRemovedDisks) {
		m.PurgeRemovedDisks = types.BoolValue(false)
	}
	if !guestops.Known(m.RebootAfterUpdate) {
		m.RebootAfterUpdate = types.BoolValue(false)
	}
	return nil
}

func cpuFromAPI(config pveapi.GuestConfig) (*cpuModel, error) {
	var cpu cpuModel
	var err error
	present := false
	if cpu.Cores, present, err = guestops.OptInt(config, keyCores, present); err != nil {
		return nil, err
	}
	if cpu.Units, present, err = guestops.OptInt(config, keyCPUUnits, present); err != nil {
		return nil, err
	}
	if cpu.Limit, err = guestops.OptFloat(config, keyCPULimit); err != nil {
		return nil, err
	}
	if !present && cpu.Limit.IsNull() {
		return nil, nil
	}
	return &cpu, nil
}

func memoryFromAPI(config pveapi.GuestConfig) (types.Object, error) {
	size, present, err := guestops.OptInt(config, keyMemory, false)
	if err != nil {
		return types.ObjectNull(memoryAttrTypes), err
	}
	swap, present, err := guestops.OptInt(config, keySwap, present)
	if err != nil {
		return types.ObjectNull(memoryAttrTypes), err
	}
	if !present {
		return types.ObjectNull(memoryAttrTypes), nil
	}
	return types.ObjectValueMust(memoryAttrTypes, map[string]attr.Value{"size": size, "swap": swap}), nil
}

// memory returns the memory settings of a known memory object; ok is false
// for a null or unknown one.
func (m *containerModel) memory() (mem memoryModel, ok bool) {
	if !guestops.Known(m.Memory) {
		return memoryModel{}, false
	}
	attrs := m.Memory.Attributes()
	size, _ := attrs["size"].(types.Int64)
	swap, _ := attrs["swap"].(types.Int64)
	return memoryModel{Size: size, Swap: swap}, true
}

func dnsFromAPI(config pveapi.GuestConfig) *dnsModel {
	domain, hasDomain := config[keySearchDomain]
	servers, hasServers := config[keyNameserver]
	if !hasDomain && !hasServers {
		return nil
	}
	dns := &dnsModel{Domain: types.StringNull(), Servers: types.ListNull(types.StringType)}
	if hasDomain {
		dns.Domain = types.StringValue(strings.Join(wire.SplitList(domain), " "))
	}
	if hasServers {
		dns.Servers = stringList(wire.SplitList(servers))
	}
	return dns
}

func consoleFromAPI(config pveapi.GuestConfig) (*consoleModel, error) {
	tty, present, err := guestops.OptInt(config, keyTTY, false)
	if err != nil {
		return nil, err
	}
	console := &consoleModel{
		Enabled: guestops.OptBool(config, keyConsole),
		Mode:    guestops.OptString(config, keyConsoleMode),
		TTYs:    tty,
	}
	if !present && console.Enabled.IsNull() && console.Mode.IsNull() {
		return nil, nil
	}
	return console, nil
}

// toCreate is the POST /nodes/{node}/lxc form for plan, without vmid
// (pveapi adds it): the template (W35), root disk and volume mount points
// in create form (W21, W37), bind mounts (W36), NICs with addresses inline
// (W38), features as one composite (W33), booleans as 1/0 (W6), tags in
// PVE's form (W19), pool membership (W48), root's password and keys.
// unprivileged is sent as planned: true when left out of a create from a
// template (unprivilegedByDefault), as PVE 8 would otherwise create a
// privileged container; unknown only for a restore, which keeps the
// archive's value (W34). The console's tty count is sent with the rest:
// PVE takes it at create (W39). The container is not started here: power
// is a separate action.
func (m *containerModel) toCreate(password types.String) (url.Values, error) {
	form := url.Values{}
	guestops.SetFormString(form, paramOSTemplate, m.OSTemplate)
	guestops.SetFormString(form, keyHostname, m.Hostname)
	guestops.SetFormString(form, guestops.KeyDescription, m.Description)
	guestops.SetFormString(form, guestops.KeyPool, m.Pool)
	guestops.SetFormBool(form, guestops.KeyOnBoot, m.OnBoot)
	guestops.SetFormBool(form, guestops.KeyProtection, m.Protection)
	guestops.SetFormBool(form, keyUnprivileged, m.Unprivileged)
	guestops.SetFormString(form, paramPassword, password)
	if keys := wire.SSHKeyLines(setStrings(m.SSHPublicKeys)); len(keys) > 0 {
		form.Set(paramSSHPublicKeys, strings.Join(keys, "\n"))
	}
	tags, err := guestops.WantedTags(m.Tags)
	if err != nil {
		return nil, err
	}
	if tags != nil {
		form.Set(guestops.KeyTags, *tags)
	}
	wanted, err := m.scalarKeys(nil)
	if err != nil {
		return nil, err
	}
	for key, value := range wanted {
		if value != nil {
			form.Set(key, *value)
		}
	}
	if m.RootDisk == nil {
		return nil, fmt.Errorf("root_disk is required")
	}
	root, err := m.RootDisk.createForm()
	if err != nil {
		return nil, fmt.Errorf("root_disk: %w", err)
	}
	form.Set(keyRootFS, root)
	if err := mountPointSlots.AddToCreate(form, m.MountPoints); err != nil {
		return nil, err
	}
	if err := nicSlots.AddToCreate(form, m.Network); err != nil {
		return nil, err
	}
	if err := deviceSlots.AddToCreate(form, m.Devices); err != nil {
		return nil, err
	}
	return form, nil
}

// scalarKeys gives the wanted value of every key that cpu, memory,
// hostname, features, dns and console manage: nil means absent (delete it,
// or do not send it). Keys of Computed attributes (hostname, memory, swap)
// are left out when unknown or null: PVE keeps its own value then. live is
// the container's current config, whose feature flags the provider does
// not model are kept; it is nil at create.
func (m *containerModel) scalarKeys(live pveapi.GuestConfig) (map[string]*string, error) {
	out := map[string]*string{}
	cpu := m.CPU
	if cpu == nil {
		cpu = &cpuModel{}
	}
	out[keyCores] = guestops.WantedInt(cpu.Cores)
	out[keyCPULimit] = guestops.WantedFloat(cpu.Limit)
	out[keyCPUUnits] = guestops.WantedInt(cpu.Units)

	if guestops.Known(m.Hostname) {
		out[keyHostname] = guestops.WantedString(m.Hostname)
	}
	if mem, ok := m.memory(); ok {
		if guestops.Known(mem.Size) {
			out[keyMemory] = guestops.WantedInt(mem.Size)
		}
		if guestops.Known(mem.Swap) {
			out[keySwap] = guestops.WantedInt(mem.Swap)
		}
	}

	features, err := featuresValue(m.Features, live[keyFeatures])
	if err != nil {
		return nil, err
	}
	out[keyFeatures] = features

	dns := m.DNS
	if dns == nil {
		dns = &dnsModel{}
	}
	out[keySearchDomain] = guestops.WantedString(dns.Domain)
	out[keyNameserver] = nil
	if servers := listStrings(dns.Servers); len(servers) > 0 {
		s := strings.Join(servers, " ")
		out[keyNameserver] = &s
	}

	console := m.Console
	if console == nil {
		console = &consoleModel{}
	}
	out[keyConsole] = guestops.WantedBool(console.Enabled)
	out[keyConsoleMode] = guestops.WantedString(console.Mode)
	out[keyTTY] = guestops.WantedInt(console.TTYs)
	return out, nil
}

// vmid returns the VMID as int; 0 when it is not known yet.
func (m *containerModel) vmid() int { return int(m.VMID.ValueInt64()) }

func stringList(items []string) types.List {
	elems := make([]attr.Value, 0, len(items))
	for _, it := range items {
		elems = append(elems, types.StringValue(it))
	}
	return types.ListValueMust(types.StringType, elems)
}

func listStrings(l types.List) []string {
	if !guestops.Known(l) {
		return nil
	}
	out := make([]string, 0, len(l.Elements()))
	for _, e := range l.Elements() {
		if s, ok := e.(types.String); ok && guestops.Known(s) {
			out = append(out, s.ValueString())
		}
	}
	return out
}

func setStrings(s types.Set) []string {
	if !guestops.Known(s) {
		return nil
	}
	out := make([]string, 0, len(s.Elements()))
	for _, e := range s.Elements() {
		if v, ok := e.(types.String); ok && guestops.Known(v) {
			out = append(out, v.ValueString())
		}
	}
	return out
}
