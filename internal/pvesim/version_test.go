package pvesim

import (
	"net/http"
	"strings"
	"testing"
)

func TestVersionProfiles(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ option, version, release string }{
		{"", "9.1.4", "9.1"},
		{"8.4", "8.4.18", "8.4"},
		{"9.1", "9.1.4", "9.1"},
		{"9.2", "9.2.11", "9.2"},
	} {
		e := newEnv(t, Options{PVEVersion: tc.option})
		a := e.call(t, http.MethodGet, "/version", nil)
		a.wantOK(t)
		var v struct{ Version, Release, Repoid string }
		a.decode(t, &v)
		if v.Version != tc.version || v.Release != tc.release || len(v.Repoid) != 16 {
			t.Errorf("PVEVersion %q: /version = %+v", tc.option, v)
		}
	}
	if _, err := New(Options{PVEVersion: "7.4"}); err == nil || !strings.Contains(err.Error(), "8.4, 9.1, 9.2") {
		t.Errorf("PVEVersion 7.4: err = %v", err)
	}
}

// The 8.4 profile checks requests with PVE 8.4's schema: OCI container
// keys (pve-container 6.x, PVE 9) are unknown there.
func TestPVE84Schema(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{PVEVersion: "8.4"})
	e.postCT(t, "200", []string{"entrypoint", "/bin/sh"}).wantParamError(t, "entrypoint",
		"property is not defined in schema and the schema does not allow additional properties")
}

// pve-common src/PVE/JSONSchema.pm check_object: PVE 9's text for a
// property another one requires (0f0e791, pve-common 9.0.8), PVE 8's before.
func TestRequiresWordingByVersion(t *testing.T) {
	t.Parallel()
	for version, want := range map[string]string{
		"8.4": "missing property - 'force' requires this property",
		"9.1": "missing property required by 'force'",
		"9.2": "missing property required by 'force'",
	} {
		e := newEnv(t, Options{PVEVersion: version})
		e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "100", "force", "1")).
			wantParamError(t, "archive", want)
	}
}

// pve-container src/PVE/API2/LXC.pm create_vm: 103068a ("api: create:
// default to unprivileged containers") and 4cc73b7 ("create/restore:
// require Sys.Modify for privileged containers"), both pve-container 6.0.6
// (PVE 9.0). PVE 8.4 (stable-bookworm) creates a privileged container when
// "unprivileged" is omitted and asks for no Sys.Modify.
func TestUnprivilegedDefaultByVersion(t *testing.T) {
	t.Parallel()
	privs := []string{"VM.Allocate", "VM.Config.Options", "VM.Config.Disk", "VM.Config.Network",
		"VM.Config.Memory", "VM.Config.CPU", "Datastore.AllocateSpace", "Datastore.AllocateTemplate",
		"Datastore.Audit", "SDN.Use", "VM.Audit"}

	e8 := newEnv(t, Options{PVEVersion: "8.4", Privileges: map[string][]string{testTokenUser: privs}})
	e8.createCT(t, "200", "rootfs", "local-lvm:1")
	if cfg := e8.ctConfig(t, "pve1", "200"); cfg["unprivileged"] != "" {
		t.Errorf("8.4: unprivileged = %q, want it unset (privileged)", cfg["unprivileged"])
	}
	e8.createCT(t, "201", "rootfs", "local-lvm:1", "unprivileged", "1")
	if cfg := e8.ctConfig(t, "pve1", "201"); cfg["unprivileged"] != "1" {
		t.Errorf("8.4 explicit: unprivileged = %q", cfg["unprivileged"])
	}
	// A privileged container's feature flags stay root@pam's on 8.4 too
	// (check_ct_modify_config_perm): this is what a token meets when its
	// container came out privileged by default.
	e8.setCT(t, "200", []string{"features", "nesting=1"}).
		wantStatus(t, http.StatusForbidden, "Permission check failed (changing feature flags for privileged container is only allowed for root@pam)")
	e8.setCT(t, "201", []string{"features", "nesting=1"}).wantOK(t)

	e9 := newEnv(t, Options{Privileges: map[string][]string{testTokenUser: privs}})
	e9.createCT(t, "200", "rootfs", "local-lvm:1")
	if cfg := e9.ctConfig(t, "pve1", "200"); cfg["unprivileged"] != "1" {
		t.Errorf("9.1: unprivileged = %q, want 1", cfg["unprivileged"])
	}
	e9.postCT(t, "202", []string{"rootfs", "local-lvm:1", "unprivileged", "0"}).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/, Sys.Modify)")
}

// qemu-server src/PVE/API2/Qemu/Agent.pm register_command: b92a40ce ("api:
// agent: use more specific guest agent privileges", PVE 9.0) replaced
// VM.Monitor with VM.GuestAgent.* (or VM.GuestAgent.Unrestricted).
func TestAgentPrivilegesByVersion(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		version, priv string
		ok            bool
		denied        string
	}{
		{"8.4", "VM.Monitor", true, ""},
		{"8.4", "VM.GuestAgent.Audit", false, "Permission check failed (/vms/100, VM.Monitor)"},
		{"9.1", "VM.GuestAgent.Audit", true, ""},
		{"9.1", "VM.GuestAgent.Unrestricted", true, ""},
		{"9.1", "VM.Monitor", false, "Permission check failed (/vms/100, VM.GuestAgent.Audit|VM.GuestAgent.Unrestricted)"},
	} {
		e := newEnv(t, Options{PVEVersion: tc.version})
		e.createVM(t, "100", "agent", "1", "start", "1")
		e.sim.setPrivileges(testTokenUser, []string{tc.priv})
		a := e.call(t, http.MethodGet, agentPath, nil)
		if tc.ok {
			a.wantOK(t)
		} else {
			a.wantStatus(t, http.StatusForbidden, tc.denied)
		}
	}
}

// qemu-server src/PVE/QemuServer/OVMF.pm create_efidisk writes ms-cert=2023k
// since 3736160d (9.1.5; 8.4.6 on bookworm), "2023" in the 9.1 profile's
// qemu-server 9.1.3. src/PVE/QemuServer.pm check_efi_vars, for an EFI disk
// with pre-enrolled keys but not that marker: 8.4.6 prints a notice
// (stable-bookworm 984931c7, 89275934); 9.1.3 prints an older one, for
// win10/win11 guests only; 9.1.10 (the 9.2 updates) logs its first
// sentence as a warning (log_warn, counted in WARNINGS; 53495177).
func TestEFICertByVersion(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		version, cert, ostype, status string
		want, absent                  []string
	}{
		{"8.4", "2023k", "l26", "OK", []string{
			"EFI disk without 'ms-cert=2023k' option, suggesting that not all UEFI 2023\n" +
				"certificates from Microsoft are enrolled yet. The UEFI 2011 certificates expire",
			"run 'qm enroll-efi-keys 101' to enroll\nthe new certificates.\n\nFor Windows with BitLocker",
			"Otherwise, you will be prompted for the BitLocker recovery key on the next boot.",
		}, []string{"WARN"}},
		{"9.1", "2023", "l26", "OK", nil, []string{"EFI disk", "WARN"}},
		{"9.1", "2023", "win11", "OK", []string{
			"EFI disk without 'ms-cert=2023' option, suggesting that the Microsoft UEFI 2023 certificate is not enrolled yet.",
			"While the VM is shut down, run 'qm enroll-efi-keys 101' to enroll it.",
		}, []string{"WARN", "2023k", "recovery key"}},
		{"9.2", "2023k", "l26", "WARNINGS: 1", []string{
			"WARN: EFI disk without 'ms-cert=2023k' option, suggesting that not all UEFI 2023\ncertificates from Microsoft are enrolled yet.",
			"run 'qm enroll-efi-keys 101' to enroll the new certificates.",
		}, nil},
	} {
		name := tc.version + "/" + tc.ostype
		e := newEnv(t, Options{PVEVersion: tc.version})
		e.createVM(t, "100", "bios", "ovmf", "ostype", tc.ostype, "efidisk0", "local-lvm:1,efitype=4m,pre-enrolled-keys=1")
		if got := e.vmConfig(t, "pve1", "100")["efidisk0"]; !strings.Contains(got, ",ms-cert="+tc.cert+",") {
			t.Errorf("%s: efidisk0 = %q, want ms-cert=%s", name, got, tc.cert)
		}
		// An EFI disk from before the marker: pre-enrolled keys, no ms-cert.
		e.createVM(t, "101", "bios", "ovmf", "ostype", tc.ostype, "efidisk0", "local-lvm:1,efitype=4m,pre-enrolled-keys=1")
		e.call(t, http.MethodPut, "/nodes/pve1/qemu/101/config",
			form("efidisk0", "local-lvm:vm-101-disk-0,efitype=4m,pre-enrolled-keys=1,size=528K")).wantOK(t)
		info := e.task(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/101/status/start", nil))
		log := strings.Join(info.Log, "\n")
		if info.ExitStatus != tc.status {
			t.Errorf("%s start: %s, want %s; log %q", name, info.ExitStatus, tc.status, info.Log)
		}
		for _, want := range tc.want {
			if !strings.Contains(log, want) {
				t.Errorf("%s start: log lacks %q:\n%s", name, want, log)
			}
		}
		for _, absent := range tc.absent {
			if strings.Contains(log, absent) {
				t.Errorf("%s start: log has %q:\n%s", name, absent, log)
			}
		}
		// With the marker there is nothing to say.
		info = e.task(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/status/start", nil))
		if log := strings.Join(info.Log, "\n"); info.ExitStatus != "OK" || strings.Contains(log, "EFI disk") {
			t.Errorf("%s start with ms-cert=%s: %s, log %q", name, tc.cert, info.ExitStatus, info.Log)
		}
	}
}

// pve-manager PVE/API2/Pool.pm create_pool: 7eadbed6 ("api: create pool:
// force first character to be a letter for new pools", 9.0.0~12); the
// parent's absence is reported with both names (4448f8d3, nested pools).
func TestPoolNamesByVersion(t *testing.T) {
	t.Parallel()
	e9 := newEnv(t, Options{})
	e9.call(t, http.MethodPost, "/pools", form("poolid", "1st")).
		wantStatus(t, http.StatusInternalServerError, "create pool failed: pool name must start with a letter")
	e9.call(t, http.MethodPost, "/pools", form("poolid", "team")).wantOK(t)
	e9.call(t, http.MethodPost, "/pools", form("poolid", "team/_x")).
		wantStatus(t, http.StatusInternalServerError, "create pool failed: pool name must start with a letter")
	e9.call(t, http.MethodPost, "/pools", form("poolid", "team/x1")).wantOK(t)

	e8 := newEnv(t, Options{PVEVersion: "8.4"})
	e8.call(t, http.MethodPost, "/pools", form("poolid", "1st")).wantOK(t)
	e8.call(t, http.MethodPost, "/pools", form("poolid", "1st/_x")).wantOK(t)
	e8.call(t, http.MethodPost, "/pools", form("poolid", "none/x")).
		wantStatus(t, http.StatusInternalServerError, "create pool failed: parent 'none' of pool 'none/x' does not exist")
}
