package qemu_test

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/provider"
)

// validator runs pve_vm's configuration validation through the provider
// protocol, as Terraform does before a plan, without starting Terraform:
// fast enough to try every validated attribute.
type validator struct {
	server tfprotov6.ProviderServer
	typ    tftypes.Type
}

func newValidator(t *testing.T) *validator {
	t.Helper()
	server, err := providerserver.NewProtocol6WithError(provider.New("test")())()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := server.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	s, ok := resp.ResourceSchemas["pve_vm"]
	if !ok {
		t.Fatal("pve_vm is not registered")
	}
	return &validator{server: server, typ: s.ValueType()}
}

// diagnostics validates config and returns every diagnostic.
func (v *validator) diagnostics(t *testing.T, config map[string]any) []*tfprotov6.Diagnostic {
	t.Helper()
	value, err := toValue(v.typ, config)
	if err != nil {
		t.Fatal(err)
	}
	dv, err := tfprotov6.NewDynamicValue(v.typ, value)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := v.server.ValidateResourceConfig(context.Background(), &tfprotov6.ValidateResourceConfigRequest{TypeName: "pve_vm", Config: &dv})
	if err != nil {
		t.Fatal(err)
	}
	return resp.Diagnostics
}

// validate returns the error diagnostics for config, each as
// "PATH: SUMMARY: DETAIL".
func (v *validator) validate(t *testing.T, config map[string]any) []string {
	t.Helper()
	var out []string
	for _, d := range v.diagnostics(t, config) {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			out = append(out, fmt.Sprintf("%s: %s: %s", attrPath(d.Attribute), d.Summary, d.Detail))
		}
	}
	return out
}

func attrPath(p *tftypes.AttributePath) string {
	if p == nil {
		return ""
	}
	var parts []string
	for _, step := range p.Steps() {
		switch s := step.(type) {
		case tftypes.AttributeName:
			parts = append(parts, string(s))
		case tftypes.ElementKeyString:
			parts = append(parts, string(s))
		case tftypes.ElementKeyValue:
			parts = append(parts, "*")
		default:
			parts = append(parts, fmt.Sprint(s))
		}
	}
	return strings.Join(parts, ".")
}

// toValue builds a Terraform value of typ from plain Go values: maps for
// objects and maps, slices for lists and sets; absent attributes are null.
func toValue(typ tftypes.Type, v any) (tftypes.Value, error) {
	if v == nil {
		return tftypes.NewValue(typ, nil), nil
	}
	switch t := typ.(type) {
	case tftypes.Object:
		m, ok := v.(map[string]any)
		if !ok {
			return tftypes.Value{}, fmt.Errorf("object needs a map, got %T", v)
		}
		vals := make(map[string]tftypes.Value, len(t.AttributeTypes))
		for name, at := range t.AttributeTypes {
			val, err := toValue(at, m[name])
			if err != nil {
				return tftypes.Value{}, fmt.Errorf("%s: %w", name, err)
			}
			vals[name] = val
		}
		for name := range m {
			if _, ok := t.AttributeTypes[name]; !ok {
				return tftypes.Value{}, fmt.Errorf("no attribute %q", name)
			}
		}
		return tftypes.NewValue(t, vals), nil
	case tftypes.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return tftypes.Value{}, fmt.Errorf("map needs a map, got %T", v)
		}
		vals := make(map[string]tftypes.Value, len(m))
		for k, e := range m {
			val, err := toValue(t.ElementType, e)
			if err != nil {
				return tftypes.Value{}, fmt.Errorf("%s: %w", k, err)
			}
			vals[k] = val
		}
		return tftypes.NewValue(t, vals), nil
	case tftypes.Set, tftypes.List:
		items, ok := v.([]any)
		if !ok {
			return tftypes.Value{}, fmt.Errorf("collection needs a slice, got %T", v)
		}
		var elemType tftypes.Type
		if s, ok := t.(tftypes.Set); ok {
			elemType = s.ElementType
		} else {
			elemType = t.(tftypes.List).ElementType
		}
		vals := make([]tftypes.Value, 0, len(items))
		for _, e := range items {
			val, err := toValue(elemType, e)
			if err != nil {
				return tftypes.Value{}, err
			}
			vals = append(vals, val)
		}
		return tftypes.NewValue(t, vals), nil
	}
	switch x := v.(type) {
	case int:
		return tftypes.NewValue(typ, big.NewFloat(float64(x))), nil
	case float64:
		return tftypes.NewValue(typ, big.NewFloat(x)), nil
	}
	return tftypes.NewValue(typ, v), nil
}

// ciWith is a cloud_init with PVE's drive and ipconfig0 set to ipc.
func ciWith(ipc map[string]any) map[string]any {
	return map[string]any{"storage": "local-lvm", "ip_config": map[string]any{"ipconfig0": ipc}}
}

// ipv4 is an ipconfig with an IPv4 address and gateway, each left out
// when empty.
func ipv4(address, gateway string) map[string]any {
	family := map[string]any{}
	if address != "" {
		family["address"] = address
	}
	if gateway != "" {
		family["gateway"] = gateway
	}
	return map[string]any{"ipv4": family}
}

func baseConfig() map[string]any {
	return map[string]any{
		"node":    "pve1",
		"disks":   map[string]any{"scsi0": map[string]any{"storage": "local-lvm", "size": "8"}},
		"network": map[string]any{"net0": map[string]any{"bridge": "vmbr0"}},
		"cdroms":  map[string]any{"ide2": map[string]any{"file": "local:iso/debian-13-netinst.iso"}},
	}
}

func TestVMSchemaAcceptsTheIssueExample(t *testing.T) {
	t.Parallel()
	v := newValidator(t)
	config := map[string]any{
		"node": "pve1", "vmid": 120, "name": "web-1", "description": "...", "tags": []any{"web", "prod"},
		"pool": "prod", "on_boot": true, "protection": false, "started": true, "bios": "ovmf", "machine": "q35",
		"os_type": "l26", "scsi_hardware": "virtio-scsi-single", "boot_order": []any{"scsi0", "net0"},
		"cpu":    map[string]any{"cores": 2, "sockets": 1, "type": "x86-64-v2-AES", "units": 100, "limit": 0, "numa": false},
		"memory": map[string]any{"size": 2048, "balloon": 1024},
		"agent":  map[string]any{"enabled": true, "trim": false},
		"disks": map[string]any{
			"scsi0": map[string]any{"storage": "local-lvm", "size": "32", "discard": true, "ssd": true, "iothread": true},
			"scsi1": map[string]any{"storage": "local-lvm", "size": "100", "backup": false},
		},
		"cdroms":              map[string]any{"ide2": map[string]any{"file": "local:iso/debian-13-netinst.iso"}},
		"network":             map[string]any{"net0": map[string]any{"bridge": "vmbr0", "model": "virtio", "vlan_tag": 20, "firewall": true}},
		"purge_removed_disks": false,
		"timeouts":            map[string]any{"create": "20m", "update": "20m", "delete": "10m"},
	}
	if errs := v.validate(t, config); len(errs) != 0 {
		t.Errorf("the issue's example must validate: %v", errs)
	}
}

// TestVMSchemaRejectsBadInput tries one bad value per validated attribute
// and expects an error at that attribute.
func TestVMSchemaRejectsBadInput(t *testing.T) {
	t.Parallel()
	v := newValidator(t)
	disk := func(extra map[string]any) map[string]any {
		d := map[string]any{"storage": "local-lvm", "size": "8"}
		for k, x := range extra {
			d[k] = x
		}
		return d
	}
	cases := []struct {
		name   string
		change func(c map[string]any)
		path   string
		want   string
	}{
		{"node", func(c map[string]any) { c["node"] = "pve_1" }, "node", "must be a PVE node name"},
		{"vmid", func(c map[string]any) { c["vmid"] = 99 }, "vmid", "between 100 and 999999999"},
		{"name", func(c map[string]any) { c["name"] = "web_1" }, "name", "must be a DNS name"},
		{"description", func(c map[string]any) { c["description"] = "" }, "description", "length must be between 1 and 8192"},
		{"tags invalid W19", func(c map[string]any) { c["tags"] = []any{"bad tag"} }, "tags.*", "Invalid Tag"},
		{"tags empty", func(c map[string]any) { c["tags"] = []any{} }, "tags", "at least 1"},
		{"pool", func(c map[string]any) { c["pool"] = "a b" }, "pool", "must be a pool id"},
		{"bios", func(c map[string]any) { c["bios"] = "uefi" }, "bios", "value must be one of"},
		{"machine", func(c map[string]any) { c["machine"] = "q36" }, "machine", "must be a QEMU machine type"},
		{"os_type", func(c map[string]any) { c["os_type"] = "linux" }, "os_type", "value must be one of"},
		{"scsi_hardware", func(c map[string]any) { c["scsi_hardware"] = "virtio" }, "scsi_hardware", "value must be one of"},
		{"boot_order device", func(c map[string]any) { c["boot_order"] = []any{"floppy0"} }, "boot_order.0", "must be a disk, CD-ROM or network slot"},
		{"boot_order repeated", func(c map[string]any) { c["boot_order"] = []any{"scsi0", "scsi0"} }, "boot_order", "duplicate values"},
		{"cpu.cores", func(c map[string]any) { c["cpu"] = map[string]any{"cores": 0} }, "cpu.cores", "at least 1"},
		{"cpu.sockets", func(c map[string]any) { c["cpu"] = map[string]any{"sockets": 0} }, "cpu.sockets", "at least 1"},
		{"cpu.type", func(c map[string]any) { c["cpu"] = map[string]any{"type": "bad type"} }, "cpu.type", "must be a CPU model name"},
		{"cpu.units", func(c map[string]any) { c["cpu"] = map[string]any{"units": 0} }, "cpu.units", "between 1 and 262144"},
		{"cpu.limit", func(c map[string]any) { c["cpu"] = map[string]any{"limit": 200} }, "cpu.limit", "between"},
		{"cpu empty", func(c map[string]any) { c["cpu"] = map[string]any{} }, "cpu", "Empty CPU Settings"},
		{"memory.size", func(c map[string]any) { c["memory"] = map[string]any{"size": 8} }, "memory.size", "at least 16"},
		{"memory.balloon", func(c map[string]any) { c["memory"] = map[string]any{"balloon": -1} }, "memory.balloon", "at least 0"},
		{"memory empty", func(c map[string]any) { c["memory"] = map[string]any{} }, "memory", "Empty Memory Settings"},
		{"agent.type", func(c map[string]any) { c["agent"] = map[string]any{"enabled": true, "type": "usb"} }, "agent.type", "value must be one of"},
		{"disks slot", func(c map[string]any) { c["disks"] = map[string]any{"scsi31": disk(nil)} }, "disks.scsi31", "must be a disk slot"},
		{"disks virtio range", func(c map[string]any) { c["disks"] = map[string]any{"virtio16": disk(nil)} }, "disks.virtio16", "must be a disk slot"},
		{"disks empty", func(c map[string]any) { c["disks"] = map[string]any{} }, "disks", "at least 1"},
		{"disks.storage", func(c map[string]any) { c["disks"] = map[string]any{"scsi0": disk(map[string]any{"storage": "1bad"})} }, "disks.scsi0.storage", "must be a storage id"},
		{"disks.size", func(c map[string]any) { c["disks"] = map[string]any{"scsi0": disk(map[string]any{"size": "lots"})} }, "disks.scsi0.size", "Invalid Disk Size"},
		{"disks.size zero", func(c map[string]any) { c["disks"] = map[string]any{"scsi0": disk(map[string]any{"size": "0"})} }, "disks.scsi0.size", "greater than zero"},
		{"disks.size missing", func(c map[string]any) { c["disks"] = map[string]any{"scsi0": map[string]any{"storage": "local-lvm"}} }, "disks.scsi0.size", "Disk Size Required"},
		{"disks.cache", func(c map[string]any) { c["disks"] = map[string]any{"scsi0": disk(map[string]any{"cache": "fast"})} }, "disks.scsi0.cache", "value must be one of"},
		{"disks.aio", func(c map[string]any) { c["disks"] = map[string]any{"scsi0": disk(map[string]any{"aio": "posix"})} }, "disks.scsi0.aio", "value must be one of"},
		{"disks.import_from", func(c map[string]any) {
			c["disks"] = map[string]any{"scsi0": disk(map[string]any{"import_from": "local:5"})}
		}, "disks.scsi0.import_from", "must be a volume id"},
		{"disks.ssd on virtio W26", func(c map[string]any) { c["disks"] = map[string]any{"virtio0": disk(map[string]any{"ssd": true})} }, "disks.virtio0.ssd", "virtio bus"},
		{"disks.iothread on sata W26", func(c map[string]any) { c["disks"] = map[string]any{"sata0": disk(map[string]any{"iothread": true})} }, "disks.sata0.iothread", "sata bus"},
		{"slot used twice", func(c map[string]any) { c["disks"] = map[string]any{"ide2": disk(nil)} }, "cdroms.ide2", "Slot Used Twice"},
		{"cdroms slot", func(c map[string]any) { c["cdroms"] = map[string]any{"virtio0": map[string]any{"file": "none"}} }, "cdroms.virtio0", "must be a CD-ROM slot"},
		{"cdroms.file", func(c map[string]any) { c["cdroms"] = map[string]any{"ide2": map[string]any{"file": "local:4"}} }, "cdroms.ide2.file", "must be an ISO volume id"},
		{"network slot", func(c map[string]any) { c["network"] = map[string]any{"net32": map[string]any{"bridge": "vmbr0"}} }, "network.net32", "must be a network slot"},
		{"network.model", func(c map[string]any) { c["network"] = map[string]any{"net0": map[string]any{"model": "rtl"}} }, "network.net0.model", "value must be one of"},
		{"network.bridge", func(c map[string]any) { c["network"] = map[string]any{"net0": map[string]any{"bridge": "vm br"}} }, "network.net0.bridge", "must be a bridge name"},
		{"network.mac_address", func(c map[string]any) { c["network"] = map[string]any{"net0": map[string]any{"mac_address": "zz"}} }, "network.net0.mac_address", "must be a MAC address"},
		{"network.vlan_tag", func(c map[string]any) { c["network"] = map[string]any{"net0": map[string]any{"vlan_tag": 4095}} }, "network.net0.vlan_tag", "between 1 and 4094"},
		{"network.mtu", func(c map[string]any) { c["network"] = map[string]any{"net0": map[string]any{"mtu": 0}} }, "network.net0.mtu", "between 1 and 65520"},
		{"network.rate", func(c map[string]any) { c["network"] = map[string]any{"net0": map[string]any{"rate": -1}} }, "network.net0.rate", "at least 0"},
		{"network.queues", func(c map[string]any) { c["network"] = map[string]any{"net0": map[string]any{"queues": 65}} }, "network.net0.queues", "between 0 and 64"},
		{"cloud_init.ip_config address", func(c map[string]any) { c["cloud_init"] = ciWith(ipv4("10.0.0.300/24", "")) },
			"cloud_init.ip_config.ipconfig0.ipv4.address", `"10.0.0.300" in "10.0.0.300/24" is not an IPv4 address`},
		{"cloud_init.ip_config prefix", func(c map[string]any) { c["cloud_init"] = ciWith(ipv4("10.0.0.5/33", "")) },
			"cloud_init.ip_config.ipconfig0.ipv4.address", "not a number from 8 to 32"},
		{"cloud_init.ip_config short prefix", func(c map[string]any) { c["cloud_init"] = ciWith(ipv4("10.0.0.5/7", "")) },
			"cloud_init.ip_config.ipconfig0.ipv4.address", "not a number from 8 to 32"},
		{"cloud_init.ip_config gateway", func(c map[string]any) { c["cloud_init"] = ciWith(ipv4("10.0.0.5/24", "gw")) },
			"cloud_init.ip_config.ipconfig0.ipv4.gateway", `Invalid Gateway: PVE refuses this value: "gw" is not an IPv4 address`},
		{"cloud_init.ip_config ipv6 prefix", func(c map[string]any) {
			c["cloud_init"] = ciWith(map[string]any{"ipv6": map[string]any{"address": "2001:db8::5/129"}})
		}, "cloud_init.ip_config.ipconfig0.ipv6.address", "not a number from 8 to 128"},
		{"cloud_init.ip_config gateway without address", func(c map[string]any) { c["cloud_init"] = ciWith(ipv4("", "10.0.0.1")) },
			"cloud_init.ip_config.ipconfig0.ipv4.address", "Gateway Without Address"},
		{"cloud_init keys without a drive", func(c map[string]any) { c["cloud_init"] = map[string]any{"user": "debian"} },
			"cloud_init.storage", "Cloud-Init Drive Required"},
		{"memory.balloon above size", func(c map[string]any) { c["memory"] = map[string]any{"size": 1024, "balloon": 2048} },
			"memory.balloon", "Balloon Larger Than Memory"},
		{"clone.source_vmid", func(c map[string]any) { c["clone"] = map[string]any{"source_vmid": 99} }, "clone.source_vmid", "between 100 and 999999999"},
		{"clone.source_node", func(c map[string]any) { c["clone"] = map[string]any{"source_vmid": 9000, "source_node": "pve_1"} }, "clone.source_node", "must be a PVE node name"},
		{"clone.source_node with a domain", func(c map[string]any) {
			c["clone"] = map[string]any{"source_vmid": 9000, "source_node": "pve1.example.com"}
		}, "clone.source_node", "must be a PVE node name"},
		{"clone.storage", func(c map[string]any) { c["clone"] = map[string]any{"source_vmid": 9000, "storage": "1bad"} }, "clone.storage", "must be a storage id"},
		{"restore.archive", func(c map[string]any) { c["restore"] = map[string]any{"archive": "local:iso/debian.iso"} }, "restore.archive", "is not a vzdump backup archive"},
		{"restore.archive of a container", func(c map[string]any) {
			c["restore"] = map[string]any{"archive": "local:backup/vzdump-lxc-130-2026_11_01-00_00_00.tar.zst"}
		}, "restore.archive", "restores only qemu archives"},
		{"restore.storage", func(c map[string]any) {
			c["restore"] = map[string]any{"archive": "local:backup/vzdump-qemu-120-2026_11_01-00_00_00.vma.zst", "storage": "1bad"}
		}, "restore.storage", "must be a storage id"},
		{"restore with clone", func(c map[string]any) {
			c["clone"] = map[string]any{"source_vmid": 9000}
			c["restore"] = map[string]any{"archive": "local:backup/vzdump-qemu-120-2026_11_01-00_00_00.vma.zst"}
		}, "restore", "Invalid Attribute Combination"},
		{"usb_devices slot", func(c map[string]any) { c["usb_devices"] = map[string]any{"usb15": map[string]any{"mapping": "stick"}} }, "usb_devices.usb15", "must be a USB slot"},
		{"usb_devices.host", func(c map[string]any) { c["usb_devices"] = map[string]any{"usb0": map[string]any{"host": "046d-c52b"}} }, "usb_devices.usb0.host", "must be a vendor:product id"},
		{"usb_devices both", func(c map[string]any) {
			c["usb_devices"] = map[string]any{"usb0": map[string]any{"host": "046d:c52b", "mapping": "stick"}}
		}, "usb_devices.usb0.mapping", "Invalid Attribute Combination"},
		{"usb_devices neither", func(c map[string]any) { c["usb_devices"] = map[string]any{"usb0": map[string]any{"usb3": true}} }, "usb_devices.usb0.mapping", "Invalid Attribute Combination"},
		{"virtiofs slot", func(c map[string]any) {
			c["virtiofs"] = map[string]any{"virtiofs10": map[string]any{"mapping": "share"}}
		}, "virtiofs.virtiofs10", "must be a virtiofs slot"},
		{"virtiofs.cache", func(c map[string]any) {
			c["virtiofs"] = map[string]any{"virtiofs0": map[string]any{"mapping": "share", "cache": "fast"}}
		}, "virtiofs.virtiofs0.cache", "value must be one of"},
		{"virtiofs.mapping", func(c map[string]any) {
			c["virtiofs"] = map[string]any{"virtiofs0": map[string]any{"mapping": "1share"}}
		}, "virtiofs.virtiofs0.mapping", "must be a resource mapping id"},
	}
	for _, c := range cases {
		config := baseConfig()
		c.change(config)
		errs := v.validate(t, config)
		found := false
		for _, e := range errs {
			if strings.HasPrefix(e, c.path+": ") && strings.Contains(e, c.want) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: want an error at %s containing %q, got %q", c.name, c.path, c.want, errs)
		}
	}
}
