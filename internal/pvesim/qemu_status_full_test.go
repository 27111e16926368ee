package pvesim

import (
	"net/http"
	"testing"
)

// status/current of a running VM carries what qemu-server's vmstatus
// reports with full (src/PVE/QemuServer.pm vmstatus): pressure averages,
// diskread and diskwrite with a blockstat entry per drive, a nics entry
// per tap device; and vm_status adds spice and clipboard for a display
// setting (src/PVE/API2/Qemu.pm vm_status). A stopped VM has none of the
// running fields.
func TestVMStatusCurrentFields(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "scsi0", "local-lvm:4", "net0", "virtio,bridge=vmbr0", "vga", "qxl,clipboard=vnc")
	status := func() map[string]any {
		var st map[string]any
		e.call(t, http.MethodGet, "/nodes/pve1/qemu/100/status/current", nil).decode(t, &st)
		return st
	}
	st := status()
	for _, k := range []string{"diskread", "diskwrite", "blockstat", "nics", "pressurecpusome", "pid"} {
		if _, ok := st[k]; ok {
			t.Errorf("stopped VM reports %s", k)
		}
	}
	if st["spice"] != float64(1) || st["clipboard"] != "vnc" {
		t.Errorf("spice %v clipboard %v", st["spice"], st["clipboard"])
	}
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/status/start", nil))
	st = status()
	for _, k := range []string{"diskread", "diskwrite", "pressurecpusome", "pressurecpufull", "pressureiosome",
		"pressureiofull", "pressurememorysome", "pressurememoryfull", "running-qemu", "running-machine", "proxmox-support"} {
		if _, ok := st[k]; !ok {
			t.Errorf("running VM lacks %s: %v", k, st)
		}
	}
	if block, _ := st["blockstat"].(map[string]any); block["scsi0"] == nil {
		t.Errorf("blockstat = %v", st["blockstat"])
	}
	if nics, _ := st["nics"].(map[string]any); nics["tap100i0"] == nil {
		t.Errorf("nics = %v", st["nics"])
	}
}
