package lxc

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
// published schemas of bpg/proxmox (proxmox_virtual_environment_container)
// and Telmate/proxmox (proxmox_lxc): the attributes object of one state
// instance, as Terraform hands it to MoveResourceState.
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

func wantString(t *testing.T, what string, got interface {
	IsNull() bool
	ValueString() string
}, want string) {
	t.Helper()
	if got.IsNull() || got.ValueString() != want {
		t.Errorf("%s = %v, want %q", what, got, want)
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

func wantNull(t *testing.T, what string, got interface{ IsNull() bool }) {
	t.Helper()
	if !got.IsNull() {
		t.Errorf("%s = %v, want null", what, got)
	}
}

func TestMoveContainerFromBPG(t *testing.T) {
	t.Parallel()
	moved, err := containerFromBPG(loadSource(t, "bpg_container.json"))
	if err != nil {
		t.Fatal(err)
	}
	m := moved.Model
	wantString(t, "id", m.ID, "130")
	wantInt(t, "vmid", m.VMID, 130)
	wantString(t, "node", m.Node, "pve1")
	wantString(t, "hostname", m.Hostname, "proxy-1")
	wantString(t, "description", m.Description, "reverse proxy\n")
	if tags := m.Tags.Tags(); !slices.Equal(tags, []string{"edge", "prod"}) {
		t.Errorf("tags = %q", tags)
	}
	wantString(t, "pool", m.Pool, "edge")
	wantBool(t, "on_boot (start_on_boot)", m.OnBoot, true)
	wantBool(t, "started", m.Started, true)
	wantBool(t, "unprivileged", m.Unprivileged, true)
	wantInt(t, "cpu.cores", m.CPU.Cores, 2)
	mem, ok := m.memory()
	if !ok {
		t.Fatal("memory is null")
	}
	wantInt(t, "memory.size (dedicated)", mem.Size, 1024)
	wantInt(t, "memory.swap", mem.Swap, 256)
	wantString(t, "root_disk.storage", m.RootDisk.Storage, "local-lvm")
	wantString(t, "root_disk.size (GiB)", m.RootDisk.Size, "8")

	// mount_point blocks take their slot from their position; a volume id
	// names its storage, a path is a bind mount (W36).
	data := m.MountPoints["mp0"]
	wantString(t, "mp0.storage", data.Storage, "local-lvm")
	wantString(t, "mp0.size", data.Size, "10")
	wantString(t, "mp0.path", data.Path, "/srv/data")
	wantNull(t, "mp0.host_path", data.HostPath)
	shared := m.MountPoints["mp1"]
	wantString(t, "mp1.host_path", shared.HostPath, "/srv/host/shared")
	wantNull(t, "mp1.storage", shared.Storage)
	wantNull(t, "mp1.size", shared.Size)
	wantBool(t, "mp1.read_only", shared.ReadOnly, true)
	wantBool(t, "mp1.shared", shared.Shared, true)

	// Addresses come from initialization.ip_config, position by position
	// (W38 keeps them on the device).
	eth0 := m.Network["net0"]
	wantString(t, "net0.name", eth0.Name, "eth0")
	wantString(t, "net0.mac", eth0.MACAddress, "BC:24:11:00:01:30")
	wantString(t, "net0.ipv4.address", eth0.IPv4.Address, "10.0.0.30/24")
	wantString(t, "net0.ipv4.gateway", eth0.IPv4.Gateway, "10.0.0.1")
	wantString(t, "net0.ipv6.address", eth0.IPv6.Address, "auto")
	wantNull(t, "net0.vlan_tag (0)", eth0.VLANTag)
	eth1 := m.Network["net1"]
	wantInt(t, "net1.vlan_tag", eth1.VLANTag, 40)
	wantInt(t, "net1.mtu", eth1.MTU, 1400)
	wantString(t, "net1.ipv4.address", eth1.IPv4.Address, "dhcp")
	if eth1.IPv6 != nil {
		t.Errorf("net1.ipv6 = %+v, want none", eth1.IPv6)
	}

	// Only flags that are on are carried: off and unset both read as null.
	wantBool(t, "features.nesting", m.Features.Nesting, true)
	wantBool(t, "features.keyctl", m.Features.Keyctl, true)
	wantNull(t, "features.fuse", m.Features.Fuse)
	wantString(t, "dns.domain", m.DNS.Domain, "example.com")
	wantString(t, "console.mode", m.Console.Mode, "console")
	wantInt(t, "console.ttys", m.Console.TTYs, 4)
	wantNull(t, "console.enabled (PVE's default)", m.Console.Enabled)

	// W35: the template is not reported by PVE, so it is not carried and
	// never forces a replacement; keys and password are create-time only.
	wantNull(t, "os_template", m.OSTemplate)
	wantNull(t, "password_wo", m.PasswordWO)
	wantNull(t, "ssh_public_keys", m.SSHPublicKeys)
	for _, name := range []string{"initialization.user_account.password", "initialization.user_account.keys", "operating_system.template_file_id"} {
		if !slices.Contains(moved.Dropped, name) {
			t.Errorf("dropped = %q, want %s named", moved.Dropped, name)
		}
	}
}

func TestMoveContainerFromTelmate(t *testing.T) {
	t.Parallel()
	moved, err := containerFromTelmate(loadSource(t, "telmate_lxc.json"))
	if err != nil {
		t.Fatal(err)
	}
	m := moved.Model
	wantInt(t, "vmid", m.VMID, 131)
	wantString(t, "node (current_node)", m.Node, "pve2")
	wantString(t, "hostname", m.Hostname, "cache-1")
	if tags := m.Tags.Tags(); !slices.Equal(tags, []string{"cache", "Prod"}) {
		t.Errorf("tags = %q", tags)
	}
	wantNull(t, "pool", m.Pool)
	wantNull(t, "on_boot (off, PVE's default)", m.OnBoot)
	// start only said whether Telmate started it after creating it.
	wantNull(t, "started", m.Started)
	wantInt(t, "cpu.cores", m.CPU.Cores, 1)
	wantInt(t, "cpu.units", m.CPU.Units, 1024)
	wantNull(t, "cpu.limit (0)", m.CPU.Limit)
	mem, _ := m.memory()
	wantInt(t, "memory.size", mem.Size, 512)
	wantInt(t, "memory.swap", mem.Swap, 512)
	wantString(t, "root_disk.size", m.RootDisk.Size, "8")
	wantString(t, "mp0.storage", m.MountPoints["mp0"].Storage, "local-lvm")
	wantString(t, "mp0.size", m.MountPoints["mp0"].Size, "4")
	wantString(t, "mp0.path", m.MountPoints["mp0"].Path, "/var/cache/app")
	eth0 := m.Network["net0"]
	wantString(t, "net0.ipv4.address", eth0.IPv4.Address, "10.0.1.31/24")
	wantString(t, "net0.ipv4.gateway", eth0.IPv4.Gateway, "10.0.1.1")
	if eth0.IPv6 != nil {
		t.Errorf("net0.ipv6 = %+v, want none", eth0.IPv6)
	}
	wantInt(t, "net0.vlan_tag", eth0.VLANTag, 50)
	wantBool(t, "features.nesting", m.Features.Nesting, true)
	if mounts := setStrings(m.Features.Mount); !slices.Equal(mounts, []string{"nfs", "cifs"}) {
		t.Errorf("features.mount = %q", mounts)
	}
	if servers := listStrings(m.DNS.Servers); !slices.Equal(servers, []string{"10.0.1.53", "10.0.1.54"}) {
		t.Errorf("dns.servers = %q", servers)
	}
	if m.Console != nil {
		t.Errorf("console = %+v, want none: console, cmode and tty are PVE's defaults", m.Console)
	}
	wantNull(t, "os_template (W35)", m.OSTemplate)
	if !slices.Equal(moved.Dropped, []string{"ostemplate", "password", "ssh_public_keys"}) {
		t.Errorf("dropped = %q", moved.Dropped)
	}
}

func TestMoveContainerRefusesWhatIsNotAContainer(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		translate func(guestops.SourceState) (containerTranslation, error)
		state     string
		want      string
	}{
		"bpg template":    {containerFromBPG, `{"vm_id": 9100, "node_name": "pve1", "template": true}`, "template"},
		"bpg no vmid":     {containerFromBPG, `{"node_name": "pve1"}`, "no VMID"},
		"telmate no node": {containerFromTelmate, `{"vmid": 131}`, "no node"},
		"telmate id only": {containerFromTelmate, `{"id": "pve1/lxc/131", "target_node": "pve1"}`, ""},
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
