package qemu

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

// Source states in testdata/move_state are written by hand from the
// published schemas of bpg/proxmox (proxmox_virtual_environment_vm) and
// Telmate/proxmox (proxmox_vm_qemu, 3.x and 2.x): the attributes object of
// one state instance, as Terraform hands it to MoveResourceState.
func loadSource(t *testing.T, name string) guestops.SourceState {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "move_state", name))
	if err != nil {
		t.Fatal(err)
	}
	src, err := guestops.DecodeSourceState(raw)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func wantString(t *testing.T, what string, got types.String, want string) {
	t.Helper()
	if got.IsNull() || got.ValueString() != want {
		t.Errorf("%s = %v, want %q", what, got, want)
	}
}

func wantNullString(t *testing.T, what string, got types.String) {
	t.Helper()
	if !got.IsNull() {
		t.Errorf("%s = %v, want null", what, got)
	}
}

func wantInt(t *testing.T, what string, got types.Int64, want int64) {
	t.Helper()
	if got.IsNull() || got.ValueInt64() != want {
		t.Errorf("%s = %v, want %d", what, got, want)
	}
}

func wantBool(t *testing.T, what string, got types.Bool, want bool) {
	t.Helper()
	if got.IsNull() || got.ValueBool() != want {
		t.Errorf("%s = %v, want %t", what, got, want)
	}
}

func wantList(t *testing.T, what string, got types.List, want ...string) {
	t.Helper()
	if have := listStrings(got); !slices.Equal(have, want) {
		t.Errorf("%s = %q, want %q", what, have, want)
	}
}

func wantSize(t *testing.T, what string, got interface{ ValueString() string }, want string) {
	t.Helper()
	if got.ValueString() != want {
		t.Errorf("%s = %q, want %q", what, got.ValueString(), want)
	}
}

func TestMoveVMFromBPG(t *testing.T) {
	t.Parallel()
	moved, err := vmFromBPG(loadSource(t, "bpg_vm.json"))
	if err != nil {
		t.Fatal(err)
	}
	m := moved.Model
	wantString(t, "id", m.ID, "120")
	wantInt(t, "vmid", m.VMID, 120)
	wantString(t, "node", m.Node, "pve1")
	wantString(t, "name", m.Name, "web-1")
	wantString(t, "description", m.Description, "Web front end\nowned by ops")
	if tags := m.Tags.Tags(); !slices.Equal(tags, []string{"prod", "web"}) {
		t.Errorf("tags = %q", tags)
	}
	wantString(t, "pool", m.Pool, "web")
	wantBool(t, "on_boot", m.OnBoot, true)
	wantBool(t, "started", m.Started, true)
	wantString(t, "machine", m.Machine, "q35")
	wantString(t, "os_type", m.OSType, "l26")
	wantString(t, "scsi_hardware", m.SCSIHardware, "virtio-scsi-single")
	wantList(t, "boot_order", m.BootOrder, "scsi0", "net0")
	wantInt(t, "cpu.cores", m.CPU.Cores, 2)
	wantString(t, "cpu.type", m.CPU.Type, "x86-64-v2-AES")
	if !m.CPU.Limit.IsNull() {
		t.Errorf("cpu.limit 0 (no limit in bpg) = %v, want null", m.CPU.Limit)
	}
	wantInt(t, "memory.size", m.Memory.Size, 2048)
	wantInt(t, "memory.balloon (bpg floating)", m.Memory.Balloon, 1024)
	wantBool(t, "agent.enabled", m.Agent.Enabled, true)
	wantBool(t, "agent.trim", m.Agent.Trim, true)
	wantBool(t, "agent.wait_for_ip", m.Agent.WaitForIP, false)

	// Sizes are whole GiB in bpg; discard is "on"/"ignore".
	root := m.Disks["scsi0"]
	wantString(t, "scsi0.storage", root.Storage, "local-lvm")
	wantSize(t, "scsi0.size", root.Size, "32")
	wantBool(t, "scsi0.discard", root.Discard, true)
	wantBool(t, "scsi0.ssd", root.SSD, true)
	wantBool(t, "scsi0.iothread", root.IOThread, true)
	wantNullString(t, "scsi0.import_from (W25)", root.ImportFrom)
	wantNullString(t, "scsi0.volume", root.Volume)
	data := m.Disks["scsi1"]
	wantSize(t, "scsi1.size", data.Size, "100")
	// Values that are PVE's defaults (bpg records them all) are null, as
	// a configuration that leaves them out has them.
	if !data.Discard.IsNull() || !data.Cache.IsNull() || !data.AIO.IsNull() || !data.Replicate.IsNull() {
		t.Errorf("scsi1 carries PVE's defaults: %+v", data)
	}
	wantBool(t, "scsi1.backup", data.Backup, false)
	wantString(t, "cdroms.ide0.file", m.CDROMs["ide0"].File, "none")

	// network_device blocks take their slot from their position.
	wantString(t, "net0.mac", m.Network["net0"].MACAddress, "BC:24:11:00:01:20")
	wantBool(t, "net0.firewall", m.Network["net0"].Firewall, true)
	if !m.Network["net0"].VLANTag.IsNull() {
		t.Errorf("net0.vlan_tag 0 (untagged in bpg) = %v, want null", m.Network["net0"].VLANTag)
	}
	wantString(t, "net1.Model", m.Network["net1"].Model, "e1000")
	wantInt(t, "net1.vlan_tag", m.Network["net1"].VLANTag, 20)
	if rate := m.Network["net1"].Rate; rate.ValueFloat64() != 12.5 {
		t.Errorf("net1.rate = %v", rate)
	}

	ci := m.CloudInit
	wantString(t, "cloud_init.storage", ci.Storage, "local-lvm")
	wantString(t, "cloud_init.slot", ci.Slot, "ide2")
	wantString(t, "cloud_init.seed_slot", ci.SeedSlot, defaultSeedSlot)
	wantString(t, "cloud_init.user", ci.User, "ops")
	wantBool(t, "cloud_init.upgrade", ci.Upgrade, false)
	wantList(t, "cloud_init.ssh_keys", ci.SSHKeys, "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG1vdmUtc3RhdGUta2V5LWJwZy1mb3ItdGVzdHMtMzJi ops@example.com")
	wantString(t, "cloud_init.dns.domain", ci.DNS.Domain, "example.com")
	wantList(t, "cloud_init.dns.servers", ci.DNS.Servers, "10.0.0.53", "10.0.0.54")
	wantString(t, "ipconfig0.ipv4.address", ci.IPConfig["ipconfig0"].IPv4.Address, "10.0.0.20/24")
	wantString(t, "ipconfig0.ipv4.gateway", ci.IPConfig["ipconfig0"].IPv4.Gateway, "10.0.0.1")
	wantString(t, "ipconfig1.ipv4.address", ci.IPConfig["ipconfig1"].IPv4.Address, "dhcp")
	wantString(t, "ipconfig1.ipv6.address", ci.IPConfig["ipconfig1"].IPv6.Address, "auto")
	// W31: the password is never copied, only named in the warning.
	wantNullString(t, "cloud_init.password_wo", ci.PasswordWO)
	if !slices.Contains(moved.Dropped, "initialization.user_account.password") {
		t.Errorf("dropped = %q, want the password named", moved.Dropped)
	}
	if m.Clone != nil {
		t.Error("clone is set; it would force a replacement")
	}
}

func TestMoveVMFromTelmate(t *testing.T) {
	t.Parallel()
	moved, err := vmFromTelmate(loadSource(t, "telmate_vm_qemu.json"))
	if err != nil {
		t.Fatal(err)
	}
	m := moved.Model
	wantInt(t, "vmid", m.VMID, 121)
	// The node the guest was last seen on wins over target_node.
	wantString(t, "node", m.Node, "pve2")
	wantString(t, "name", m.Name, "db-1")
	if tags := m.Tags.Tags(); !slices.Equal(tags, []string{"DB", "prod"}) {
		t.Errorf("tags = %q", tags)
	}
	wantString(t, "pool", m.Pool, "db")
	wantBool(t, "protection", m.Protection, true)
	wantBool(t, "started (vm_state running)", m.Started, true)
	wantString(t, "os_type (qemu_os)", m.OSType, "l26")
	wantList(t, "boot_order", m.BootOrder, "scsi0", "ide2", "net0")
	wantBool(t, "agent.enabled", m.Agent.Enabled, true)
	wantInt(t, "cpu.cores", m.CPU.Cores, 4)
	wantString(t, "cpu.type", m.CPU.Type, "host")
	wantInt(t, "memory.size", m.Memory.Size, 4096)
	wantInt(t, "memory.balloon", m.Memory.Balloon, 512)

	// Telmate sizes carry a unit; whole GiB is spelled as configuration
	// writes it.
	wantSize(t, "scsi0.size", m.Disks["scsi0"].Size, "20")
	wantBool(t, "scsi0.ssd (emulatessd)", m.Disks["scsi0"].SSD, true)
	wantString(t, "scsi0.cache", m.Disks["scsi0"].Cache, "writeback")
	wantSize(t, "scsi1.size", m.Disks["scsi1"].Size, "2560M")
	wantNullString(t, "scsi1.cache", m.Disks["scsi1"].Cache)
	if _, ok := m.Disks["ide2"]; ok {
		t.Error("the cloud-init drive was taken for a data disk")
	}
	wantString(t, "cdroms.ide3.file", m.CDROMs["ide3"].File, "local:iso/debian-13-netinst.iso")

	wantString(t, "net0.mac", m.Network["net0"].MACAddress, "BC:24:11:00:03:21")
	wantInt(t, "net1.vlan_tag", m.Network["net1"].VLANTag, 30)
	wantBool(t, "net1.link_down", m.Network["net1"].LinkDown, true)
	wantInt(t, "net1.mtu", m.Network["net1"].MTU, 1)
	wantInt(t, "net1.queues", m.Network["net1"].Queues, 4)

	ci := m.CloudInit
	wantString(t, "cloud_init.storage", ci.Storage, "local-lvm")
	wantString(t, "cloud_init.slot", ci.Slot, "ide2")
	wantString(t, "cloud_init.user", ci.User, "deploy")
	wantList(t, "cloud_init.ssh_keys", ci.SSHKeys,
		"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG1vdmUtc3RhdGUta2V5LW9uZS1mb3ItdGVzdHMtMzJi deploy@example.com",
		"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG1vdmUtc3RhdGUta2V5LXR3by1mb3ItdGVzdHMtMzJi ops@example.com")
	wantString(t, "cloud_init.dns.domain", ci.DNS.Domain, "db.example.com")
	wantList(t, "cloud_init.dns.servers", ci.DNS.Servers, "10.0.1.53", "10.0.1.54")
	wantString(t, "ipconfig0.ipv4.gateway", ci.IPConfig["ipconfig0"].IPv4.Gateway, "10.0.1.1")
	wantString(t, "ipconfig1.ipv6.address", ci.IPConfig["ipconfig1"].IPv6.Address, "auto")
	if _, ok := ci.IPConfig["ipconfig2"]; ok {
		t.Error("an empty ipconfig2 was carried over")
	}
	// W31: cipassword never reaches the model.
	wantNullString(t, "cloud_init.password_wo", ci.PasswordWO)
	if !slices.Equal(moved.Dropped, []string{"clone", "cipassword"}) {
		t.Errorf("dropped = %q, want clone and cipassword", moved.Dropped)
	}
}

func TestMoveVMFromTelmateLegacySchema(t *testing.T) {
	t.Parallel()
	moved, err := vmFromTelmate(loadSource(t, "telmate_vm_qemu_v2.json"))
	if err != nil {
		t.Fatal(err)
	}
	m := moved.Model
	wantInt(t, "vmid", m.VMID, 122)
	wantString(t, "node", m.Node, "pve3")
	wantString(t, "description (desc)", m.Description, "legacy guest")
	if !m.Tags.IsNull() {
		t.Errorf("tags = %v, want null", m.Tags)
	}
	wantInt(t, "cpu.cores", m.CPU.Cores, 2)
	wantString(t, "cpu.type (2.x cpu)", m.CPU.Type, "kvm64")
	// "cdn" is PVE's legacy boot form, which names device classes.
	if !m.BootOrder.IsNull() {
		t.Errorf("boot_order = %v, want null", m.BootOrder)
	}
	wantBool(t, "agent.enabled", m.Agent.Enabled, false)
	disk, ok := m.Disks["virtio0"]
	if !ok {
		t.Fatalf("disks = %v, want virtio0 (type virtio, slot 0)", m.Disks)
	}
	wantSize(t, "virtio0.size", disk.Size, "10")
	wantBool(t, "virtio0.discard (on)", disk.Discard, true)
	wantBool(t, "virtio0.ssd (1)", disk.SSD, true)
	if !disk.IOThread.IsNull() {
		t.Errorf("virtio0.iothread 0 (PVE's default) = %v, want null", disk.IOThread)
	}
	if !m.Network["net0"].VLANTag.IsNull() {
		t.Errorf("net0.vlan_tag -1 (untagged) = %v, want null", m.Network["net0"].VLANTag)
	}
	if m.CloudInit != nil {
		t.Errorf("cloud_init = %+v, want none: every cloud-init value is empty", m.CloudInit)
	}
	if len(moved.Dropped) != 0 {
		t.Errorf("dropped = %q, want nothing", moved.Dropped)
	}
}

func TestMoveVMRefusesWhatIsNotAVM(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		translate func(guestops.SourceState) (vmTranslation, error)
		state     string
		want      string
	}{
		"bpg template":    {vmFromBPG, `{"vm_id": 9000, "node_name": "pve1", "template": true}`, "template"},
		"bpg no node":     {vmFromBPG, `{"vm_id": 120, "node_name": ""}`, "no node"},
		"telmate no id":   {vmFromTelmate, `{"target_node": "pve1", "vmid": 0}`, "no VMID"},
		"telmate id only": {vmFromTelmate, `{"id": "pve1/qemu/130", "target_node": "pve1"}`, ""},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src, err := guestops.DecodeSourceState([]byte(tc.state))
			if err != nil {
				t.Fatal(err)
			}
			_, err = tc.translate(src)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error = %v, want one naming %q", err, tc.want)
			}
		})
	}
}

func TestFromProxmoxProvider(t *testing.T) {
	t.Parallel()
	for address, want := range map[string]bool{
		"registry.terraform.io/bpg/proxmox":     true,
		"registry.terraform.io/telmate/proxmox": true,
		"registry.opentofu.org/Telmate/proxmox": true,
		"registry.terraform.io/proxops/pve":     false,
		"registry.terraform.io/hashicorp/aws":   false,
	} {
		if got := guestops.FromProxmoxProvider(address); got != want {
			t.Errorf("guestops.FromProxmoxProvider(%q) = %t, want %t", address, got, want)
		}
	}
}
