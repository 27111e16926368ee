package pvesim

import (
	"net/http"
	"strings"
	"testing"
)

// W49: a serial port on a host device and a host USB device are root@pam's
// alone, at create and at update, and deleting one is too; a token of
// root@pam is refused with PVE's texts. A "socket" serial port, a
// "spice" USB port and a mapped USB device need VM.Config.HWType only
// (qemu-server src/PVE/API2/Qemu.pm $check_vm_create_serial_perm,
// check_usb_perm, check_vm_create_usb_perm and update_vm's loops).
func TestW49SerialAndUSBHostDevicesNeedRootPam(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Passwords: []string{"root@pam=secret"}})
	e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "101", "serial0", "/dev/ttyS0")).
		wantStatus(t, http.StatusInternalServerError, "only root can set 'serial0' config for real devices")
	e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "101", "usb0", "host=1234:5678")).
		wantStatus(t, http.StatusInternalServerError, "only root can set 'usb0' config for real devices")
	e.createVM(t, "100", "serial0", "socket", "usb0", "host=spice")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("serial1", "/dev/ttyS1")).
		wantStatus(t, http.StatusInternalServerError, "only root can modify 'serial1' config for real devices")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("usb1", "host=1-2")).
		wantStatus(t, http.StatusInternalServerError, "only root can set 'usb1' config for real devices")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("usb1", "mapping=stick")).wantOK(t)
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("serial1", "socket")).wantOK(t)

	tk := login(t, e, "root@pam", "secret")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("serial2", "/dev/ttyS2", "usb2", "host=1234:5678"),
		withTicket(tk.Ticket), withHeader(csrfHeader, tk.CSRF)).wantOK(t)
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("serial2", "socket")).
		wantStatus(t, http.StatusInternalServerError, "only root can modify 'serial2' config for real devices")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("delete", "serial2")).
		wantStatus(t, http.StatusInternalServerError, "only root can delete 'serial2' config for real devices")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("delete", "usb2")).
		wantStatus(t, http.StatusInternalServerError, "only root can set 'usb2' config for real devices")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("delete", "serial1,usb1")).wantOK(t)
}

// W49: a disk given as a plain file system path, or imported from one,
// is root@pam's: anyone else gets check_volume_access's 500 (pve-storage
// src/PVE/Storage.pm check_volume_access, called from qemu-server
// src/PVE/API2/Qemu.pm $check_storage_access).
func TestW49AbsoluteDiskPathNeedsRootPam(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Passwords: []string{"root@pam=secret"}})
	e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "101", "scsi0", "/dev/sdb")).
		wantStatus(t, http.StatusInternalServerError, "Only root can pass arbitrary filesystem paths.")
	e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "101", "scsi0", "local-lvm:0,import-from=/var/tmp/disk.qcow2")).
		wantStatus(t, http.StatusInternalServerError, "Only root can pass arbitrary filesystem paths.")
	e.createVM(t, "100")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("scsi1", "/dev/sdc")).
		wantStatus(t, http.StatusInternalServerError, "Only root can pass arbitrary filesystem paths.")
	tk := login(t, e, "root@pam", "secret")
	a := e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("scsi1", "/dev/sdc"),
		withTicket(tk.Ticket), withHeader(csrfHeader, tk.CSRF))
	if strings.Contains(string(a.body), "Only root") {
		t.Errorf("root@pam refused a path: %s", a.body)
	}
}

// W49: a virtiofs share needs VM.Config.Disk on the VM and Mapping.Use on
// its directory mapping, at create, at update (the old value and the new
// one) and at deletion; root@pam itself needs nothing. PVE does not ask
// whether the mapping exists when the config is written (qemu-server
// src/PVE/API2/Qemu.pm check_dir_perm, check_vm_create_dir_perm and
// update_vm's loops; the mapping is looked up at VM start).
func TestW49VirtiofsNeedsMappingUse(t *testing.T) {
	t.Parallel()
	e := aclEnv(t, "")
	bob := withToken(bobCI)
	e.createVM(t, "100")
	e.call(t, http.MethodPut, "/access/acl", form("path", "/vms/100", "users", "bob@pve", "roles", "PVEVMAdmin")).wantOK(t)
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("virtiofs0", "share,cache=never"), bob).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/mapping/dir/share, Mapping.Use)")
	e.call(t, http.MethodPut, "/access/acl", form("path", "/mapping/dir/share", "users", "bob@pve", "roles", "PVEMappingUser")).wantOK(t)
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("virtiofs0", "share,cache=never"), bob).wantOK(t)
	// Moving the slot to another mapping needs Mapping.Use on both.
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("virtiofs0", "other"), bob).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/mapping/dir/other, Mapping.Use)")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("virtiofs1", "other")).wantOK(t)
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("delete", "virtiofs1"), bob).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/mapping/dir/other, Mapping.Use)")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("delete", "virtiofs0"), bob).wantOK(t)
	// At create, with the pool-less VM path.
	e.call(t, http.MethodPut, "/access/acl", form("path", "/vms/101", "users", "bob@pve", "roles", "PVEVMAdmin")).wantOK(t)
	e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "101", "virtiofs0", "other"), bob).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/mapping/dir/other, Mapping.Use)")
	e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "101", "virtiofs0", "share"), bob).wantOK(t)
}
