package qemu

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

// checkInputs finds, before any request, configuration PVE would refuse
// or ignore only at apply time. Values known only after apply are left to
// PVE.
func checkInputs(m *vmModel) []guestops.Issue {
	var issues []guestops.Issue
	issues = append(issues, checkCloudInitDrive(m)...)
	issues = append(issues, checkIPConfigs(m)...)
	issues = append(issues, checkBalloon(m)...)
	return issues
}

// checkCloudInitDrive refuses cloud-init keys with nowhere to go. PVE keeps
// ciuser, sshkeys, ipconfigN and the other keys in the VM's config, but a
// guest sees them only through a cloud-init drive (qemu-server,
// src/PVE/QemuServer/Cloudinit.pm, generate_cloudinit_config: it writes
// the keys into the drive it finds in the config, and does nothing without
// one). A VM made by a clone or a restore may bring its source's drive.
func checkCloudInitDrive(m *vmModel) []guestops.Issue {
	ci := m.CloudInit
	if ci == nil || !ci.Storage.IsNull() || !ci.UserData.IsNull() || m.Clone != nil || m.Restore != nil {
		return nil
	}
	keys := ci.driveKeys()
	if len(keys) == 0 {
		return nil
	}
	return []guestops.Issue{{
		Path:    cloudInitPath("storage"),
		Summary: "Cloud-Init Drive Required",
		Detail: fmt.Sprintf("cloud_init sets %s, which the guest reads only from PVE's cloud-init drive, and the VM would have none. "+
			"Set cloud_init.storage to a storage with images content (e.g. \"local-lvm\") to create the drive, "+
			"or give the whole configuration as user_data with seed_storage instead.", strings.Join(keys, ", ")),
	}}
}

// checkIPConfigs checks each ipconfigN beyond its own grammar: PVE takes a
// gateway only with an address of its family (qemu-server,
// src/PVE/QemuServer/Network.pm, the pve-qm-ipconfig format: gw requires
// ip, gw6 requires ip6), and writes addresses only for the network devices
// the VM has (Cloudinit.pm iterates the netN keys): an ipconfigN without
// netN is accepted and ignored, which the plan warns about.
func checkIPConfigs(m *vmModel) []guestops.Issue {
	if m.CloudInit == nil {
		return nil
	}
	var issues []guestops.Issue
	for _, key := range slices.Sorted(maps.Keys(m.CloudInit.IPConfig)) {
		ipc := m.CloudInit.IPConfig[key]
		at := cloudInitPath("ip_config").AtMapKey(key)
		for _, family := range []struct {
			name string
			ip   *ipAddressModel
		}{{"ipv4", ipc.IPv4}, {"ipv6", ipc.IPv6}} {
			if family.ip != nil && family.ip.Address.IsNull() && !family.ip.Gateway.IsNull() {
				issues = append(issues, guestops.Issue{Path: at.AtName(family.name).AtName("address"), Summary: "Gateway Without Address",
					Detail: fmt.Sprintf("%s.%s sets a gateway but no address, and PVE takes a gateway only together with an address. "+
						"Set address (a static address with prefix length; with dhcp leave the gateway out).", key, family.name)})
			}
		}
		slot := "net" + strings.TrimPrefix(key, "ipconfig")
		if _, declared := m.Network[slot]; !declared && m.Clone == nil && m.Restore == nil {
			issues = append(issues, guestops.Issue{Path: at, Warning: true, Summary: "Address Without Network Device",
				Detail: fmt.Sprintf("cloud_init.ip_config.%s configures network device %s, which the configuration does not declare. "+
					"PVE keeps the setting but cloud-init applies it only to an existing %s: declare network.%s, or use the ipconfig key of the device you mean.",
					key, slot, slot, slot)})
		}
	}
	return issues
}

// checkBalloon refuses a balloon target above the memory size: PVE refuses
// it on every config change ("balloon value too large (must be smaller
// than assigned memory)", qemu-server, src/PVE/API2/Qemu.pm,
// update_vm_api), so such a VM could never be updated.
func checkBalloon(m *vmModel) []guestops.Issue {
	if m.Memory == nil || !guestops.Known(m.Memory.Size) || !guestops.Known(m.Memory.Balloon) {
		return nil
	}
	size, balloon := m.Memory.Size.ValueInt64(), m.Memory.Balloon.ValueInt64()
	if balloon <= size {
		return nil
	}
	return []guestops.Issue{{
		Path:    path.Root("memory").AtName("balloon"),
		Summary: "Balloon Larger Than Memory",
		Detail: fmt.Sprintf("memory.balloon (%d MiB) is larger than memory.size (%d MiB); PVE refuses a balloon target above the memory size. "+
			"Set balloon to at most %d, to 0 to disable the balloon device, or raise size.", balloon, size, size),
	}}
}
