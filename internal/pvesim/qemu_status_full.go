package pvesim

import (
	"regexp"
	"sort"
	"strings"
)

// What vmstatus adds for a running VM (qemu-server src/PVE/QemuServer.pm
// vmstatus) besides the counters it already had: the cgroup pressure
// averages, and with full (status/current, vmlist?full=1) a byte count per
// tap device and QMP's query-blockstats per drive. The simulator's guests
// do no I/O, so every number is 0.

// runningPressure is vmstatus's pressure* fields: the avg10 of the VM's
// cgroup (read_cgroup_pressure of qemu.slice/VMID.scope).
func runningPressure(d map[string]any) {
	for _, k := range []string{"pressurecpusome", "pressurecpufull", "pressureiosome", "pressureiofull",
		"pressurememorysome", "pressurememoryfull"} {
		d[k] = 0
	}
}

// runningFullDetails is what full adds for a running VM: "nics", one entry
// per tap device (tapVMIDiN for netN), and "blockstat", one entry per
// attached drive with the counters of QMP's BlockDeviceStats (a subset:
// bytes, operations and total times of reads, writes and flushes).
func runningFullDetails(d map[string]any, g *Guest) {
	nics := map[string]any{}
	block := map[string]any{}
	keys := make([]string, 0, len(g.Config))
	for k := range g.Config {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch {
		case isNumberedKey(k, "net"):
			nics["tap"+itoa(g.VMID)+"i"+k[len("net"):]] = map[string]any{"netin": 0, "netout": 0}
		case isNumberedKey(k, "ide") || isNumberedKey(k, "sata") || isNumberedKey(k, "scsi") || isNumberedKey(k, "virtio"):
			block[k] = map[string]any{
				"rd_bytes": 0, "wr_bytes": 0, "rd_operations": 0, "wr_operations": 0, "flush_operations": 0,
				"rd_total_time_ns": 0, "wr_total_time_ns": 0, "flush_total_time_ns": 0,
				"unmap_bytes": 0, "unmap_operations": 0, "unmap_total_time_ns": 0,
			}
		}
	}
	if len(nics) > 0 {
		d["nics"] = nics
	}
	d["blockstat"] = block
}

// statusDisplayFields is vm_status's spice and clipboard keys (qemu-server
// src/PVE/API2/Qemu.pm vm_status): with a vga setting, spice is 1 for a
// virtio or qxl display (vga_conf_has_spice), and clipboard is the
// setting's clipboard option, null when it has none.
func (cs *guestSchema) statusDisplayFields(st map[string]any, cfg map[string]string) {
	vga, ok := cfg["vga"]
	if !ok {
		return
	}
	props, msg := cs.qemu.PropertyString("vga", vga)
	if msg != "" {
		return
	}
	typ := props["type"]
	if strings.HasPrefix(typ, "virtio") || spiceDisplay.MatchString(typ) {
		st["spice"] = 1
	}
	if clip, ok := props["clipboard"]; ok {
		st["clipboard"] = clip
	} else {
		st["clipboard"] = nil
	}
}

// spiceDisplay is vga_conf_has_spice's display types.
var spiceDisplay = regexp.MustCompile(`^qxl[234]?$`)
