// Package qemu serves QEMU virtual machines: the pve_vm resource and the
// pve_vm and pve_vms data sources.
package qemu

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

// vmModel is pve_vm's Terraform state. Nested objects are pointers and
// slot maps are Go maps: null in Terraform is nil here.
type vmModel struct {
	// Origin is what the VM was made from; the driver keeps it in private
	// state (see guestops.Origin).
	Origin guestops.Origin `tfsdk:"-"`

	ID                types.String             `tfsdk:"id"`
	Node              types.String             `tfsdk:"node"`
	VMID              types.Int64              `tfsdk:"vmid"`
	Name              types.String             `tfsdk:"name"`
	Description       types.String             `tfsdk:"description"`
	Tags              fwutil.TagSetValue       `tfsdk:"tags"`
	Pool              types.String             `tfsdk:"pool"`
	OnBoot            types.Bool               `tfsdk:"on_boot"`
	Protection        types.Bool               `tfsdk:"protection"`
	Started           types.Bool               `tfsdk:"started"`
	BIOS              types.String             `tfsdk:"bios"`
	Machine           types.String             `tfsdk:"machine"`
	OSType            types.String             `tfsdk:"os_type"`
	SCSIHardware      types.String             `tfsdk:"scsi_hardware"`
	BootOrder         types.List               `tfsdk:"boot_order"`
	CPU               *cpuModel                `tfsdk:"cpu"`
	Memory            *memoryModel             `tfsdk:"memory"`
	Agent             *agentModel              `tfsdk:"agent"`
	Disks             map[string]diskModel     `tfsdk:"disks"`
	CDROMs            map[string]cdromModel    `tfsdk:"cdroms"`
	Network           map[string]nicModel      `tfsdk:"network"`
	EFIDisk           *efiDiskModel            `tfsdk:"efi_disk"`
	TPMState          *tpmStateModel           `tfsdk:"tpm_state"`
	PCIDevices        map[string]pciModel      `tfsdk:"pci_devices"`
	USBDevices        map[string]usbModel      `tfsdk:"usb_devices"`
	Virtiofs          map[string]virtiofsModel `tfsdk:"virtiofs"`
	IPv4Addresses     types.List               `tfsdk:"ipv4_addresses"`
	IPv6Addresses     types.List               `tfsdk:"ipv6_addresses"`
	CloudInit         *cloudInitModel          `tfsdk:"cloud_init"`
	PurgeRemovedDisks types.Bool               `tfsdk:"purge_removed_disks"`
	RebootAfterUpdate types.Bool               `tfsdk:"reboot_after_update"`
	Status            types.String             `tfsdk:"status"`
	Timeouts          timeouts.Value           `tfsdk:"timeouts"`
	Clone             *guestops.CloneModel     `tfsdk:"clone"`
	Restore           *guestops.RestoreModel   `tfsdk:"restore"`
}

// cpuModel maps to the keys cores, sockets, cpu (its cputype), cpuunits,
// cpulimit and numa.
type cpuModel struct {
	Cores   types.Int64   `tfsdk:"cores"`
	Sockets types.Int64   `tfsdk:"sockets"`
	Type    types.String  `tfsdk:"type"`
	Units   types.Int64   `tfsdk:"units"`
	Limit   types.Float64 `tfsdk:"limit"`
	NUMA    types.Bool    `tfsdk:"numa"`
}

// memoryModel maps to memory and balloon, both MiB (W43).
type memoryModel struct {
	Size    types.Int64 `tfsdk:"size"`
	Balloon types.Int64 `tfsdk:"balloon"`
}

// agentModel maps to the agent property string.
type agentModel struct {
	Enabled types.Bool   `tfsdk:"enabled"`
	Trim    types.Bool   `tfsdk:"trim"`
	Type    types.String `tfsdk:"type"`
	// WaitForIP and Timeout live only in Terraform.
	WaitForIP types.Bool   `tfsdk:"wait_for_ip"`
	Timeout   types.String `tfsdk:"timeout"`
}

// Config keys of the top-level attributes.
const (
	keyName        = "name"
	keyDescription = "description"
	keyTags        = "tags"
	keyOnBoot      = "onboot"
	keyProtection  = "protection"
	keyBIOS        = "bios"
	keyMachine     = "machine"
	keyOSType      = "ostype"
	keySCSIHW      = "scsihw"
	keyBoot        = "boot"
	keyCores       = "cores"
	keySockets     = "sockets"
	keyCPU         = "cpu"
	keyCPUUnits    = "cpuunits"
	keyCPULimit    = "cpulimit"
	keyNUMA        = "numa"
	keyMemory      = "memory"
	keyBalloon     = "balloon"
	keyAgent       = "agent"
	keyPool        = "pool"
)

// Property-string keys PVE uses inside cpu, agent and boot.
const (
	cpuTypeKey    = "cputype"
	agentOnKey    = "enabled"
	agentTrimKey  = "fstrim_cloned_disks"
	agentTypeKey  = "type"
	bootOrderKey  = "order"
	bootLegacyKey = "legacy"
)

// fromAPI fills m from a VM's config and status/current. Each attribute is
// set from its config key when the key is present and null when it is
// absent: PVE does not write defaults into the config, so absence is PVE's
// default and configuration that leaves it out plans no change. Values PVE
// does not report (id, node, pool, import_from, the provider-only flags and
// timeouts) stay as they are in m.
func (m *vmModel) fromAPI(vmid int, config pveapi.GuestConfig, status *pveapi.GuestStatus) error {
	m.ID = types.StringValue(strconv.Itoa(vmid))
	m.VMID = types.Int64Value(int64(vmid))
	m.Name = guestops.OptString(config, keyName)
	m.Description = guestops.DescriptionFromAPI(config, m.Description)
	m.OnBoot = guestops.OptBool(config, keyOnBoot)
	m.Protection = guestops.OptBool(config, keyProtection)
	m.BIOS = guestops.OptString(config, keyBIOS)
	m.Machine = guestops.OptString(config, keyMachine)
	m.OSType = guestops.OptString(config, keyOSType)
	m.SCSIHardware = guestops.OptString(config, keySCSIHW)

	tags, err := guestops.TagsFromAPI(config)
	if err != nil {
		return err
	}
	m.Tags = tags

	bootOrder, err := bootOrderFromAPI(config)
	if err != nil {
		return err
	}
	m.BootOrder = bootOrder

	if m.CPU, err = cpuFromAPI(config); err != nil {
		return err
	}
	if m.Memory, err = memoryFromAPI(config); err != nil {
		return err
	}
	priorAgent := m.Agent
	if m.Agent, err = agentFromAPI(config); err != nil {
		return err
	}
	m.Agent.keepProviderOptions(priorAgent)
	if m.Disks, err = disksFromAPI(config, m.Disks); err != nil {
		return err
	}
	if m.CDROMs, err = cdromsFromAPI(config); err != nil {
		return err
	}
	if m.Network, err = networkFromAPI(config, m.Network); err != nil {
		return err
	}
	if m.EFIDisk, err = efiDiskFromAPI(config); err != nil {
		return err
	}
	if m.TPMState, err = tpmStateFromAPI(config); err != nil {
		return err
	}
	// A model never read before (an import) takes every live PCI device.
	if m.PCIDevices, err = pciDevicesFromAPI(config, m.PCIDevices, m.Status.IsNull()); err != nil {
		return err
	}
	if m.USBDevices, err = devicesFromAPI(config, wire.IsUSBSlot, m.USBDevices, m.Status.IsNull(), usbFromValue); err != nil {
		return err
	}
	if m.Virtiofs, err = devicesFromAPI(config, wire.IsVirtiofsSlot, m.Virtiofs, m.Status.IsNull(), virtiofsFromValue); err != nil {
		return err
	}
	m.addressesNotNull()
	if err := m.cloudInitFromAPI(vmid, config); err != nil {
		return err
	}

	if status != nil {
		m.Status = types.StringValue(status.PowerState())
		// A paused or suspended VM still has its process: it is started.
		m.Started = types.BoolValue(status.Status == pveapi.PowerRunning)
	}
	if m.PurgeRemovedDisks.IsNull() || m.PurgeRemovedDisks.IsUnknown() {
		m.PurgeRemovedDisks = types.BoolValue(false)
	}
	if m.RebootAfterUpdate.IsNull() || m.RebootAfterUpdate.IsUnknown() {
		m.RebootAfterUpdate = types.BoolValue(false)
	}
	return nil
}

func bootOrderFromAPI(config pveapi.GuestConfig) (types.List, error) {
	raw, ok := config[keyBoot]
	if !ok {
		return types.ListNull(types.StringType), nil
	}
	props, err := wire.ParsePropertyString(raw, bootLegacyKey)
	if err != nil {
		return types.ListNull(types.StringType), fmt.Errorf("boot %q: %w", raw, err)
	}
	order, ok := props[bootOrderKey]
	if !ok {
		// The legacy "cdn" form names device classes, not slots.
		return types.ListNull(types.StringType), nil
	}
	return stringList(strings.Split(order, ";")), nil
}

func cpuFromAPI(config pveapi.GuestConfig) (*cpuModel, error) {
	var cpu cpuModel
	var err error
	present := false
	if cpu.Cores, present, err = guestops.OptInt(config, keyCores, present); err != nil {
		return nil, err
	}
	if cpu.Sockets, present, err = guestops.OptInt(config, keySockets, present); err != nil {
		return nil, err
	}
	if cpu.Units, present, err = guestops.OptInt(config, keyCPUUnits, present); err != nil {
		return nil, err
	}
	cpu.Type = types.StringNull()
	if raw, ok := config[keyCPU]; ok {
		present = true
		props, err := wire.ParsePropertyString(raw, cpuTypeKey)
		if err != nil {
			return nil, fmt.Errorf("cpu %q: %w", raw, err)
		}
		if t, ok := props[cpuTypeKey]; ok {
			cpu.Type = types.StringValue(t)
		}
	}
	cpu.Limit = types.Float64Null()
	if raw, ok := config[keyCPULimit]; ok {
		present = true
		limit, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			return nil, fmt.Errorf("cpulimit %q: %w", raw, err)
		}
		cpu.Limit = types.Float64Value(limit)
	}
	cpu.NUMA = guestops.OptBool(config, keyNUMA)
	if !cpu.NUMA.IsNull() {
		present = true
	}
	if !present {
		return nil, nil
	}
	return &cpu, nil
}

func memoryFromAPI(config pveapi.GuestConfig) (*memoryModel, error) {
	mem := memoryModel{Size: types.Int64Null()}
	present := false
	if raw, ok := config[keyMemory]; ok {
		mib, err := wire.ParseMemoryMiB(raw)
		if err != nil {
			return nil, err
		}
		mem.Size = types.Int64Value(mib)
		present = true
	}
	var err error
	if mem.Balloon, present, err = guestops.OptInt(config, keyBalloon, present); err != nil {
		return nil, err
	}
	if !present {
		return nil, nil
	}
	return &mem, nil
}

func agentFromAPI(config pveapi.GuestConfig) (*agentModel, error) {
	raw, ok := config[keyAgent]
	if !ok {
		return nil, nil
	}
	props, err := wire.ParsePropertyString(raw, agentOnKey)
	if err != nil {
		return nil, fmt.Errorf("agent %q: %w", raw, err)
	}
	agent := agentModel{Enabled: types.BoolValue(false), Trim: types.BoolNull(), Type: types.StringNull()}
	if v, ok := props[agentOnKey]; ok {
		on, err := wire.ParsePropertyBool(v)
		if err != nil {
			return nil, fmt.Errorf("agent %q: enabled: %w", raw, err)
		}
		agent.Enabled = types.BoolValue(on)
	}
	if agent.Trim, err = guestops.PropBool(props, agentTrimKey); err != nil {
		return nil, fmt.Errorf("agent %q: %w", raw, err)
	}
	if v, ok := props[agentTypeKey]; ok {
		agent.Type = types.StringValue(v)
	}
	return &agent, nil
}

// toCreate is the POST /nodes/{node}/qemu form for plan, without vmid
// (pveapi adds it). Everything declared goes into this one request: disks
// in create form (W21, W25), booleans as 1/0 (W6), tags in PVE's
// normalised form (W19), pool membership (W48). The VM is not started here:
// power is a separate action.
func (m *vmModel) toCreate() (url.Values, error) {
	form := url.Values{}
	guestops.SetFormString(form, keyName, m.Name)
	guestops.SetFormString(form, keyDescription, m.Description)
	guestops.SetFormString(form, keyBIOS, m.BIOS)
	guestops.SetFormString(form, keyMachine, m.Machine)
	guestops.SetFormString(form, keyOSType, m.OSType)
	guestops.SetFormString(form, keySCSIHW, m.SCSIHardware)
	guestops.SetFormString(form, keyPool, m.Pool)
	guestops.SetFormBool(form, keyOnBoot, m.OnBoot)
	guestops.SetFormBool(form, keyProtection, m.Protection)

	tags, err := guestops.WantedTags(m.Tags)
	if err != nil {
		return nil, err
	}
	if tags != nil {
		form.Set(keyTags, *tags)
	}
	if order := listStrings(m.BootOrder); len(order) > 0 {
		form.Set(keyBoot, bootValue(order))
	}
	for key, value := range m.scalarKeys(nil) {
		if value != nil {
			form.Set(key, *value)
		}
	}
	if err := diskSlots.AddToCreate(form, m.Disks); err != nil {
		return nil, err
	}
	if err := cdromSlots.AddToCreate(form, m.CDROMs); err != nil {
		return nil, err
	}
	if err := nicSlots.AddToCreate(form, m.Network); err != nil {
		return nil, err
	}
	if err := m.addFirmwareToCreate(form); err != nil {
		return nil, err
	}
	if err := pciSlots.AddToCreate(form, m.PCIDevices); err != nil {
		return nil, err
	}
	if err := usbSlots.AddToCreate(form, m.USBDevices); err != nil {
		return nil, err
	}
	if err := virtiofsSlots.AddToCreate(form, m.Virtiofs); err != nil {
		return nil, err
	}
	m.addCloudInitToCreate(form)
	return form, nil
}

// scalarKeys gives the wanted value of every key that cpu, memory and agent
// manage: nil means "absent" (delete it, or do not send it). live is the
// VM's current config, whose options the provider does not model (cpu
// flags, agent freeze-fs) are kept; it is nil at create.
func (m *vmModel) scalarKeys(live pveapi.GuestConfig) map[string]*string {
	out := map[string]*string{}
	cpu := m.CPU
	if cpu == nil {
		cpu = &cpuModel{}
	}
	out[keyCores] = guestops.WantedInt(cpu.Cores)
	out[keySockets] = guestops.WantedInt(cpu.Sockets)
	out[keyCPUUnits] = guestops.WantedInt(cpu.Units)
	out[keyNUMA] = guestops.WantedBool(cpu.NUMA)
	out[keyCPULimit] = nil
	if guestops.Known(cpu.Limit) {
		s := strconv.FormatFloat(cpu.Limit.ValueFloat64(), 'f', -1, 64)
		out[keyCPULimit] = &s
	}
	out[keyCPU] = cpuValue(cpu.Type, live[keyCPU])

	mem := m.Memory
	if mem == nil {
		mem = &memoryModel{}
	}
	out[keyMemory] = nil
	if guestops.Known(mem.Size) {
		s := wire.FormatMemoryMiB(mem.Size.ValueInt64())
		out[keyMemory] = &s
	}
	out[keyBalloon] = guestops.WantedInt(mem.Balloon)
	out[keyAgent] = agentValue(m.Agent, live[keyAgent])
	return out
}

// cpuValue is the cpu key with cputype set to want; other options of the
// live value (flags, hidden, ...) are kept. nil when nothing remains.
func cpuValue(want types.String, live string) *string {
	props := map[string]string{}
	if live != "" {
		if parsed, err := wire.ParsePropertyString(live, cpuTypeKey); err == nil {
			props = parsed
		}
	}
	delete(props, cpuTypeKey)
	if guestops.Known(want) {
		props[cpuTypeKey] = want.ValueString()
	}
	if len(props) == 0 {
		return nil
	}
	s := wire.FormatPropertyString(props, cpuTypeKey)
	return &s
}

// agentValue is the agent property string for a, keeping the live value's
// options the provider does not model. nil when a is nil.
func agentValue(a *agentModel, live string) *string {
	if a == nil {
		return nil
	}
	props := map[string]string{}
	if live != "" {
		if parsed, err := wire.ParsePropertyString(live, agentOnKey); err == nil {
			props = parsed
		}
	}
	props[agentOnKey] = wire.Bool(a.Enabled.ValueBool())
	guestops.SetPropBool(props, agentTrimKey, a.Trim)
	guestops.SetPropString(props, agentTypeKey, a.Type)
	s := wire.FormatPropertyString(props, agentOnKey)
	return &s
}

func bootValue(order []string) string {
	return bootOrderKey + "=" + strings.Join(order, ";")
}

// vmid returns the VMID as int.
func (m *vmModel) vmid() int { return int(m.VMID.ValueInt64()) }

func stringList(items []string) types.List {
	elems := make([]attr.Value, 0, len(items))
	for _, it := range items {
		if it != "" {
			elems = append(elems, types.StringValue(it))
		}
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
