package qemu_test

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// moveSource is a VM of another provider: its recorded state in
// testdata/move_state and the guest that state describes, created in the
// simulator outside Terraform.
type moveSource struct {
	provider, typeName, file string
	node                     string
	vmid                     int
	pool                     string
	guest                    url.Values
	secret                   string
	// dropped are the source attributes the move's warning must name.
	dropped []string
}

var vmMoveSources = map[string]moveSource{
	"bpg": {
		provider: "registry.terraform.io/bpg/proxmox", typeName: "proxmox_virtual_environment_vm", file: "bpg_vm.json",
		node: "pve1", vmid: 120, pool: "web", secret: "S3cret-from-bpg", dropped: []string{"initialization.user_account.password"},
		guest: url.Values{
			"name": {"web-1"}, "description": {"Web front end\nowned by ops"}, "tags": {"prod;web"}, "onboot": {"1"},
			"bios": {"seabios"}, "machine": {"q35"}, "ostype": {"l26"}, "scsihw": {"virtio-scsi-single"}, "boot": {"order=scsi0;net0"},
			"cores": {"2"}, "sockets": {"1"}, "cpu": {"x86-64-v2-AES"}, "cpuunits": {"1024"}, "memory": {"2048"}, "balloon": {"1024"},
			"agent":  {"1,fstrim_cloned_disks=1,type=virtio"},
			"scsi0":  {"local-lvm:32,discard=on,ssd=1,iothread=1"},
			"scsi1":  {"local-lvm:100,backup=0"},
			"ide0":   {"none,media=cdrom"},
			"ide2":   {"local-lvm:cloudinit"},
			"net0":   {"virtio=BC:24:11:00:01:20,bridge=vmbr0,firewall=1"},
			"net1":   {"e1000=BC:24:11:00:01:21,bridge=vmbr0,tag=20,rate=12.5"},
			"ciuser": {"ops"}, "cipassword": {"S3cret-from-bpg"},
			"sshkeys":      {wire.EncodeSSHKeys([]string{"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG1vdmUtc3RhdGUta2V5LWJwZy1mb3ItdGVzdHMtMzJi ops@example.com"})},
			"searchdomain": {"example.com"}, "nameserver": {"10.0.0.53 10.0.0.54"},
			"ipconfig0": {"ip=10.0.0.20/24,gw=10.0.0.1"}, "ipconfig1": {"ip=dhcp,ip6=auto"},
		},
	},
	"telmate": {
		provider: "registry.terraform.io/telmate/proxmox", typeName: "proxmox_vm_qemu", file: "telmate_vm_qemu.json",
		node: "pve2", vmid: 121, pool: "db", secret: "S3cret-from-telmate", dropped: []string{"clone", "cipassword"},
		guest: url.Values{
			"name": {"db-1"}, "description": {"Managed by Terraform."}, "tags": {"db;prod"}, "onboot": {"1"}, "protection": {"1"},
			"bios": {"seabios"}, "ostype": {"l26"}, "scsihw": {"virtio-scsi-single"}, "boot": {"order=scsi0;ide2;net0"},
			"cores": {"4"}, "sockets": {"1"}, "cpu": {"host"}, "memory": {"4096"}, "balloon": {"512"}, "agent": {"1"},
			"scsi0":  {"local-lvm:20,cache=writeback,discard=on,ssd=1,iothread=1,replicate=0"},
			"scsi1":  {"local-lvm:2.5,replicate=0"},
			"ide2":   {"local-lvm:cloudinit"},
			"ide3":   {"local:iso/debian-13-netinst.iso,media=cdrom"},
			"net0":   {"virtio=BC:24:11:00:03:21,bridge=vmbr0,firewall=1"},
			"net1":   {"virtio=BC:24:11:00:02:21,bridge=vmbr0,tag=30,link_down=1,mtu=1,queues=4"},
			"ciuser": {"deploy"}, "cipassword": {"S3cret-from-telmate"},
			"sshkeys": {wire.EncodeSSHKeys([]string{
				"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG1vdmUtc3RhdGUta2V5LW9uZS1mb3ItdGVzdHMtMzJi deploy@example.com",
				"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG1vdmUtc3RhdGUta2V5LXR3by1mb3ItdGVzdHMtMzJi ops@example.com",
			})},
			"searchdomain": {"db.example.com"}, "nameserver": {"10.0.1.53 10.0.1.54"},
			"ipconfig0": {"ip=10.0.1.21/24,gw=10.0.1.1"}, "ipconfig1": {"ip=dhcp,ip6=auto"},
		},
	},
	"telmate 2.x": {
		provider: "registry.terraform.io/telmate/proxmox", typeName: "proxmox_vm_qemu", file: "telmate_vm_qemu_v2.json",
		node: "pve3", vmid: 122,
		guest: url.Values{
			"name": {"legacy-1"}, "description": {"legacy guest"}, "ostype": {"other"}, "scsihw": {"lsi"},
			"cores": {"2"}, "sockets": {"1"}, "cpu": {"kvm64"}, "memory": {"1024"},
			"virtio0": {"local-lvm:10,discard=on,backup=1"},
			"net0":    {"e1000=BC:24:11:00:01:22,bridge=vmbr0"},
		},
	},
}

// createSourceGuest makes the guest a source state describes, outside
// Terraform, as the other provider left it.
func createSourceGuest(t *testing.T, p *acctest.Protocol, src moveSource) {
	t.Helper()
	ctx := context.Background()
	guest := url.Values{}
	for k, v := range src.guest {
		guest[k] = v
	}
	if src.pool != "" {
		if err := p.Client.CreatePool(ctx, src.pool, ""); err != nil {
			t.Fatal(err)
		}
		guest.Set("pool", src.pool)
	}
	upid, err := p.Client.CreateGuest(ctx, src.node, pveapi.GuestTypeQemu, src.vmid, guest)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Client.WaitTask(ctx, upid); err != nil {
		t.Fatal(err)
	}
}

// moveState runs MoveResourceState as Terraform does for a `moved` block
// whose from and to are of different resource types.
func moveState(t *testing.T, p *acctest.Protocol, provider, sourceType, target string, raw []byte) *tfprotov6.MoveResourceStateResponse {
	t.Helper()
	resp, err := p.Server.MoveResourceState(context.Background(), &tfprotov6.MoveResourceStateRequest{
		SourceProviderAddress: provider,
		SourceTypeName:        sourceType,
		SourceState:           &tfprotov6.RawState{JSON: raw},
		TargetTypeName:        target,
	})
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func errorsOf(diags []*tfprotov6.Diagnostic) []string {
	var out []string
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			out = append(out, d.Summary+": "+d.Detail)
		}
	}
	return out
}

func warningsOf(diags []*tfprotov6.Diagnostic) string {
	var out []string
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityWarning {
			out = append(out, d.Summary+": "+d.Detail)
		}
	}
	return strings.Join(out, "\n")
}

// A moved VM, once refreshed, is exactly what an import of the same VM
// gives, and the configuration that matches the guest plans no change:
// the move never plans a replacement by itself. Secrets of the source
// (cipassword, W31) never reach the state.
func TestMoveStateVMEndsWhereImportEnds(t *testing.T) {
	t.Parallel()
	for name, src := range vmMoveSources {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := acctest.NewProtocol(t)
			createSourceGuest(t, p, src)
			raw, err := os.ReadFile(filepath.Join("testdata", "move_state", src.file))
			if err != nil {
				t.Fatal(err)
			}

			resp := moveState(t, p, src.provider, src.typeName, "pve_vm", raw)
			if errs := errorsOf(resp.Diagnostics); len(errs) > 0 || resp.TargetState == nil {
				t.Fatalf("move: %v", errs)
			}
			warnings := warningsOf(resp.Diagnostics)
			for _, name := range src.dropped {
				if !strings.Contains(warnings, name) {
					t.Errorf("warnings %q do not name %s, which is not carried over", warnings, name)
				}
			}
			moved := p.StateValue(t, "pve_vm", resp.TargetState)
			if src.secret != "" && strings.Contains(moved.String(), src.secret) {
				t.Fatal("the source's password reached the moved state")
			}

			refreshed := p.Read(t, "pve_vm", resp.TargetState, resp.TargetPrivate)
			imported := p.Import(t, "pve_vm", src.node+"/"+strconv.Itoa(src.vmid))
			assertSameAsImport(t, p.StateValue(t, "pve_vm", refreshed), p.StateValue(t, "pve_vm", imported))

			config := p.ConfigFromState(t, "pve_vm", refreshed)
			planned := p.Plan(t, "pve_vm", refreshed, config)
			if !p.StateValue(t, "pve_vm", planned).Equal(p.StateValue(t, "pve_vm", refreshed)) {
				t.Fatal("the configuration matching the moved VM plans a change")
			}
			if _, writes := p.Requests(); writes != 1+boolInt(src.pool != "") {
				// The guest and its pool: the move and the refresh write nothing.
				t.Errorf("%d writes, want only the ones that set up the guest", writes)
			}
		})
	}
}

func TestMoveStateVMRefusesOtherSources(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	for name, tc := range map[string]struct {
		provider, typeName, state, want string
	}{
		"container type": {"registry.terraform.io/bpg/proxmox", "proxmox_virtual_environment_container", `{"vm_id": 120}`, "Unable to Move Resource State"},
		"other provider": {"registry.terraform.io/hashicorp/null", "proxmox_vm_qemu", `{"vmid": 120}`, "Unable to Move Resource State"},
		"bpg template":   {"registry.terraform.io/bpg/proxmox", "proxmox_virtual_environment_vm", `{"vm_id": 9000, "node_name": "pve1", "template": true}`, "template"},
		"not an object":  {"registry.terraform.io/telmate/proxmox", "proxmox_vm_qemu", `[]`, "Unable To Move VM State"},
	} {
		resp := moveState(t, p, tc.provider, tc.typeName, "pve_vm", []byte(tc.state))
		errs := errorsOf(resp.Diagnostics)
		if len(errs) == 0 || !strings.Contains(strings.Join(errs, "\n"), tc.want) {
			t.Errorf("%s: errors %q, want one with %q", name, errs, tc.want)
		}
	}
}

// assertSameAsImport compares a moved and refreshed state with an
// imported one. Tags may differ in case only: the refresh keeps the
// source's spelling where PVE folded it (W19), as it keeps a
// configuration's.
func assertSameAsImport(t *testing.T, moved, imported tftypes.Value) {
	t.Helper()
	diffs, err := moved.Diff(imported)
	if err != nil {
		t.Fatal(err)
	}
	tagsAgree := slices.Equal(lowerTags(t, moved), lowerTags(t, imported))
	for _, d := range diffs {
		if steps := d.Path.Steps(); tagsAgree && len(steps) > 0 && steps[0] == tftypes.AttributeName("tags") {
			continue
		}
		t.Errorf("moved and refreshed state differs from an import at %s: %s, import has %s", d.Path, d.Value1, d.Value2)
	}
}

// lowerTags is the state's tag set, lowercased and sorted.
func lowerTags(t *testing.T, state tftypes.Value) []string {
	t.Helper()
	v, _, err := tftypes.WalkAttributePath(state, tftypes.NewAttributePath().WithAttributeName("tags"))
	if err != nil {
		t.Fatal(err)
	}
	var elems []tftypes.Value
	if err := v.(tftypes.Value).As(&elems); err != nil {
		t.Fatal(err)
	}
	out := make([]string, 0, len(elems))
	for _, e := range elems {
		var s string
		if err := e.As(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.ToLower(s))
	}
	slices.Sort(out)
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
