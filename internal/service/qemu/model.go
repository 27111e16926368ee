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
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// vmModel is pve_vm's Terraform state. Nested objects are pointers and
// slot maps are Go maps: null in Terraform is nil here.
type vmModel struct {
	ID                types.String          `tfsdk:"id"`
	Node              types.String          `tfsdk:"node"`
	VMID              types.Int64           `tfsdk:"vmid"`
	Name              types.String          `tfsdk:"name"`
	Description       types.String          `tfsdk:"description"`
	Tags              fwutil.TagSetValue    `tfsdk:"tags"`
	Pool              types.String          `tfsdk:"pool"`
	OnBoot            types.Bool            `tfsdk:"on_boot"`
	Protection        types.Bool            `tfsdk:"protection"`
	Started           types.Bool            `tfsdk:"started"`
	BIOS              types.String          `tfsdk:"bios"`
	Machine           types.String          `tfsdk:"machine"`
	OSType            types.String          `tfsdk:"os_type"`
	SCSIHardware      types.String          `tfsdk:"scsi_hardware"`
	BootOrder         types.List            `tfsdk:"boot_order"`
	CPU               *cpuModel             `tfsdk:"cpu"`
	Memory            *memoryModel          `tfsdk:"memory"`
	Agent             *agentModel           `tfsdk:"agent"`
	Disks             map[string]diskModel  `tfsdk:"disks"`
	CDROMs            map[string]cdromModel `tfsdk:"cdroms"`
	Network           map[string]nicModel   `tfsdk:"network"`
	PurgeRemovedDisks types.Bool            `tfsdk:"purge_removed_disks"`
	RebootAfterUpdate types.Bool            `tfsdk:"reboot_after_update"`
	Status            types.String          `tfsdk:"status"`
	Timeouts          timeouts.Value        `tfsdk:"timeouts"`
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
	m.Name = optString(config, keyName)
	m.Description = descriptionFromAPI(config, m.Description)
	m.OnBoot = optBool(config, keyOnBoot)
	m.Protection = optBool(config, keyProtection)
	m.BIOS = optString(config, keyBIOS)
	m.Machine = optString(config, keyMachine)
	m.OSType = optString(config, keyOSType)
	m.SCSIHardware = optString(config, keySCSIHW)

	if raw, ok := config[keyTags]; ok {
		tags, err := wire.ParseTags(raw)
		if err != nil {
			return fmt.Errorf("tags %q: %w", raw, err)
		}
		if len(tags) == 0 {
			m.Tags = fwutil.TagSetNull()
		} else {
			m.Tags = fwutil.TagSetOf(tags)
		}
	} else {
		m.Tags = fwutil.TagSetNull()
	}

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
	if m.Agent, err = agentFromAPI(config); err != nil {
		return err
	}
	if m.Disks, err = disksFromAPI(config, m.Disks); err != nil {
		return err
	}
	if m.CDROMs, err = cdromsFromAPI(config); err != nil {
		return err
	}
	if m.Network, err = networkFromAPI(config, m.Network); err != nil {
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

// descriptionFromAPI reads the description verbatim (W20). PVE drops
// trailing whitespace when it stores one, so a prior value that differs
// only by that (a heredoc's final newline) is kept as written.
func descriptionFromAPI(config pveapi.GuestConfig, prior types.String) types.String {
	stored := optString(config, keyDescription)
	if known(stored) && known(prior) && strings.TrimRight(prior.ValueString(), " \t\r\n") == stored.ValueString() {
		return prior
	}
	return stored
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
	if cpu.Cores, present, err = optInt(config, keyCores, present); err != nil {
		return nil, err
	}
	if cpu.Sockets, present, err = optInt(config, keySockets, present); err != nil {
		return nil, err
	}
	if cpu.Units, present, err = optInt(config, keyCPUUnits, present); err != nil {
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
	cpu.NUMA = optBool(config, keyNUMA)
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
	if mem.Balloon, present, err = optInt(config, keyBalloon, present); err != nil {
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
	if agent.Trim, err = propBool(props, agentTrimKey); err != nil {
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
	setString(form, keyName, m.Name)
	setString(form, keyDescription, m.Description)
	setString(form, keyBIOS, m.BIOS)
	setString(form, keyMachine, m.Machine)
	setString(form, keyOSType, m.OSType)
	setString(form, keySCSIHW, m.SCSIHardware)
	setString(form, keyPool, m.Pool)
	setBool(form, keyOnBoot, m.OnBoot)
	setBool(form, keyProtection, m.Protection)

	tags, err := m.Tags.Normalized()
	if err != nil {
		return nil, fmt.Errorf("tags: %w", err)
	}
	if len(tags) > 0 {
		form.Set(keyTags, wire.FormatTags(tags))
	}
	if order := listStrings(m.BootOrder); len(order) > 0 {
		form.Set(keyBoot, bootValue(order))
	}
	for key, value := range m.scalarKeys(nil) {
		if value != nil {
			form.Set(key, *value)
		}
	}
	for slot, disk := range m.Disks {
		value, err := disk.createForm()
		if err != nil {
			return nil, fmt.Errorf("disks.%s: %w", slot, err)
		}
		form.Set(slot, value)
	}
	for slot, cdrom := range m.CDROMs {
		value, err := cdrom.value(nil)
		if err != nil {
			return nil, fmt.Errorf("cdroms.%s: %w", slot, err)
		}
		form.Set(slot, value)
	}
	for slot, nic := range m.Network {
		value, err := nic.value(nil)
		if err != nil {
			return nil, fmt.Errorf("network.%s: %w", slot, err)
		}
		form.Set(slot, value)
	}
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
	out[keyCores] = intPtr(cpu.Cores)
	out[keySockets] = intPtr(cpu.Sockets)
	out[keyCPUUnits] = intPtr(cpu.Units)
	out[keyNUMA] = boolPtr(cpu.NUMA)
	out[keyCPULimit] = nil
	if known(cpu.Limit) {
		s := strconv.FormatFloat(cpu.Limit.ValueFloat64(), 'f', -1, 64)
		out[keyCPULimit] = &s
	}
	out[keyCPU] = cpuValue(cpu.Type, live[keyCPU])

	mem := m.Memory
	if mem == nil {
		mem = &memoryModel{}
	}
	out[keyMemory] = nil
	if known(mem.Size) {
		s := wire.FormatMemoryMiB(mem.Size.ValueInt64())
		out[keyMemory] = &s
	}
	out[keyBalloon] = intPtr(mem.Balloon)
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
	if known(want) {
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
	setPropBool(props, agentTrimKey, a.Trim)
	setPropString(props, agentTypeKey, a.Type)
	s := wire.FormatPropertyString(props, agentOnKey)
	return &s
}

func bootValue(order []string) string {
	return bootOrderKey + "=" + strings.Join(order, ";")
}

// vmid returns the VMID as int.
func (m *vmModel) vmid() int { return int(m.VMID.ValueInt64()) }

func known[T interface {
	IsNull() bool
	IsUnknown() bool
}](v T) bool {
	return !v.IsNull() && !v.IsUnknown()
}

func optString(config pveapi.GuestConfig, key string) types.String {
	if v, ok := config[key]; ok {
		return types.StringValue(v)
	}
	return types.StringNull()
}

func optBool(config pveapi.GuestConfig, key string) types.Bool {
	v, ok := config[key]
	if !ok {
		return types.BoolNull()
	}
	b, _ := pveapi.ParseBool(v)
	return types.BoolValue(b)
}

// optInt reads an integer key; present becomes true when the key is there.
func optInt(config pveapi.GuestConfig, key string, present bool) (types.Int64, bool, error) {
	v, ok := config[key]
	if !ok {
		return types.Int64Null(), present, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return types.Int64Null(), present, fmt.Errorf("%s %q: not an integer", key, v)
	}
	return types.Int64Value(n), true, nil
}

func propBool(props map[string]string, key string) (types.Bool, error) {
	v, ok := props[key]
	if !ok {
		return types.BoolNull(), nil
	}
	b, err := wire.ParsePropertyBool(v)
	if err != nil {
		return types.BoolNull(), fmt.Errorf("%s: %w", key, err)
	}
	return types.BoolValue(b), nil
}

func propString(props map[string]string, key string) types.String {
	if v, ok := props[key]; ok {
		return types.StringValue(v)
	}
	return types.StringNull()
}

func propInt(props map[string]string, key string) (types.Int64, error) {
	v, ok := props[key]
	if !ok {
		return types.Int64Null(), nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return types.Int64Null(), fmt.Errorf("%s %q: not an integer", key, v)
	}
	return types.Int64Value(n), nil
}

func setPropBool(props map[string]string, key string, v types.Bool) {
	if known(v) {
		props[key] = wire.Bool(v.ValueBool())
	} else {
		delete(props, key)
	}
}

func setPropString(props map[string]string, key string, v types.String) {
	if known(v) {
		props[key] = v.ValueString()
	} else {
		delete(props, key)
	}
}

func setPropInt(props map[string]string, key string, v types.Int64) {
	if known(v) {
		props[key] = strconv.FormatInt(v.ValueInt64(), 10)
	} else {
		delete(props, key)
	}
}

func setString(form url.Values, key string, v types.String) {
	if known(v) {
		form.Set(key, v.ValueString())
	}
}

func setBool(form url.Values, key string, v types.Bool) {
	if known(v) {
		form.Set(key, wire.Bool(v.ValueBool()))
	}
}

func intPtr(v types.Int64) *string {
	if !known(v) {
		return nil
	}
	s := strconv.FormatInt(v.ValueInt64(), 10)
	return &s
}

func boolPtr(v types.Bool) *string {
	if !known(v) {
		return nil
	}
	s := wire.Bool(v.ValueBool())
	return &s
}

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
	if !known(l) {
		return nil
	}
	out := make([]string, 0, len(l.Elements()))
	for _, e := range l.Elements() {
		if s, ok := e.(types.String); ok && known(s) {
			out = append(out, s.ValueString())
		}
	}
	return out
}
