package pvesim

import (
	"net/http"
	"strings"
	"testing"
)

// defaultGuestSchema is the guest config schema of the default profile.
func defaultGuestSchema(t *testing.T) *guestSchema {
	t.Helper()
	p, err := lookupProfile("")
	if err != nil {
		t.Fatal(err)
	}
	return p.conf
}

// qemu-server src/PVE/API2/Qemu.pm update_vm_api and pve-container
// src/PVE/API2/LXC/Config.pm update_vm refuse to delete a key their
// release's option_exists does not know. allow-ksm (qemu-server 9.0) and
// entrypoint (pve-container 6.0, OCI containers) are keys of the PVE 9
// config schemas only (apidoc.json; not in apidoc-pve8.4.json).
func TestConfigSchemaOptionExistsByVersion(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"8.4", "9.1", "9.2"} {
		e := newEnv(t, Options{PVEVersion: version})
		e.createVM(t, "100")
		e.createCT(t, "200", "rootfs", "local-lvm:1")
		vm := e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("delete", "allow-ksm"))
		ct := e.setCT(t, "200", []string{"delete", "entrypoint"})
		if version == "8.4" {
			vm.wantParamError(t, "delete", "unknown option 'allow-ksm'")
			ct.wantParamError(t, "delete", "unknown option 'entrypoint'")
			continue
		}
		vm.wantOK(t)
		ct.wantOK(t)
	}
}

// qemu-server src/PVE/QemuServer/Drive.pm: PVE 8.4's drive format still has
// the disk geometry options cyls, heads, secs and trans, which qemu-server
// 9.0 dropped (apidoc-pve8.4.json scsi[n]; not in apidoc.json). parse_drive
// with 8.4's schema takes them, so the disk is created and keeps them.
func TestConfigSchemaDriveGeometryByVersion(t *testing.T) {
	t.Parallel()
	e8 := newEnv(t, Options{PVEVersion: "8.4"})
	e8.createVM(t, "100", "scsi0", "local-lvm:1,cyls=16,heads=16,secs=63,trans=lba")
	if got := e8.vmConfig(t, "pve1", "100")["scsi0"]; got != "local-lvm:vm-100-disk-0,cyls=16,heads=16,secs=63,size=1G,trans=lba" {
		t.Errorf("8.4 scsi0 = %q", got)
	}
	e9 := newEnv(t, Options{})
	e9.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "100", "scsi0", "local-lvm:1,cyls=16")).
		wantParamError(t, "scsi0", "invalid format - invalid key in comma-separated list property: cyls\n")
}

// qemu-server src/PVE/QemuServer.pm restore_merge_config parses the
// restored config with the release's parse_vm_config, whose check_type
// refuses an unknown key ("unknown setting") and a property string its
// format does not parse; not strict, so the key is dropped with a plain
// warning. allow-ksm and agent's freeze-fs are PVE 9 only.
func TestQemuRestoreDropsKeysTheReleaseDoesNotKnow(t *testing.T) {
	t.Parallel()
	const archive = "local:backup/vzdump-qemu-170-2026_11_01-00_00_00.vma.zst"
	for _, version := range []string{"8.4", "9.1"} {
		e := newEnv(t, Options{PVEVersion: version})
		if err := e.sim.AddBackup("pve1", archive, "agent: 1,freeze-fs=1\nallow-ksm: 0\ncores: 2\nname: db\n"); err != nil {
			t.Fatal(err)
		}
		info := e.taskOK(t, e.postRestoreVM(t, "171", archive))
		cfg := e.vmConfig(t, "pve1", "171")
		log := strings.Join(info.Log, "\n")
		if version == "9.1" {
			wantConfig(t, cfg, map[string]string{"agent": "1,freeze-fs=1", "allow-ksm": "0", "cores": "2"})
			if strings.Contains(log, "unable to parse") {
				t.Errorf("9.1 restore log:\n%s", log)
			}
			continue
		}
		wantConfig(t, cfg, map[string]string{"agent": "", "allow-ksm": "", "cores": "2", "name": "db"})
		for _, want := range []string{
			"vm 171 - unable to parse value of 'agent' - invalid key in comma-separated list property: freeze-fs",
			"vm 171 - unable to parse value of 'allow-ksm' - unknown setting 'allow-ksm'",
		} {
			if !strings.Contains(log, want) {
				t.Errorf("8.4 restore log lacks %q:\n%s", want, log)
			}
		}
		if info.ExitStatus != "OK" {
			t.Errorf("8.4 restore ended %q", info.ExitStatus)
		}
	}
}
