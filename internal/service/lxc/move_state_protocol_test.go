package lxc_test

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
)

// containerMoveSource is a container of another provider: its recorded
// state in testdata/move_state and the container that state describes,
// created in the simulator outside Terraform.
type containerMoveSource struct {
	provider, typeName, file string
	node                     string
	vmid                     int
	pool                     string
	create                   url.Values
	// rootOnly are keys a token may not write (W33, W36): they are put
	// into the config behind the API's back, as root@pam would have.
	rootOnly map[string]string
	secret   string
	dropped  []string
}

const moveTemplate = "local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst"

var containerMoveSources = map[string]containerMoveSource{
	"bpg": {
		provider: "registry.terraform.io/bpg/proxmox", typeName: "proxmox_virtual_environment_container", file: "bpg_container.json",
		node: "pve1", vmid: 130, pool: "edge", secret: "S3cret-from-bpg",
		dropped: []string{"initialization.user_account.password", "operating_system.template_file_id"},
		create: url.Values{
			"ostemplate": {moveTemplate}, "password": {"S3cret-from-bpg"},
			"hostname": {"proxy-1"}, "description": {"reverse proxy\n"}, "tags": {"edge;prod"}, "onboot": {"1"}, "unprivileged": {"1"},
			"cores": {"2"}, "cpuunits": {"1024"}, "memory": {"1024"}, "swap": {"256"},
			"rootfs": {"local-lvm:8"}, "mp0": {"local-lvm:10,mp=/srv/data,backup=1,replicate=1"},
			"net0":         {"name=eth0,bridge=vmbr0,hwaddr=BC:24:11:00:01:30,firewall=1,ip=10.0.0.30/24,gw=10.0.0.1,ip6=auto"},
			"net1":         {"name=eth1,bridge=vmbr0,hwaddr=BC:24:11:00:02:30,mtu=1400,rate=25,tag=40,ip=dhcp"},
			"nameserver":   {"10.0.0.53"},
			"searchdomain": {"example.com"}, "console": {"1"}, "cmode": {"console"},
		},
		rootOnly: map[string]string{
			"features": "nesting=1,keyctl=1",
			"mp1":      "/srv/host/shared,mp=/mnt/shared,ro=1,shared=1",
			"tty":      "4",
		},
	},
	"telmate": {
		provider: "registry.terraform.io/telmate/proxmox", typeName: "proxmox_lxc", file: "telmate_lxc.json",
		node: "pve2", vmid: 131, secret: "S3cret-from-telmate",
		dropped: []string{"ostemplate", "password", "ssh_public_keys"},
		create: url.Values{
			"ostemplate": {moveTemplate}, "password": {"S3cret-from-telmate"},
			"hostname": {"cache-1"}, "description": {"cache"}, "tags": {"cache;prod"}, "onboot": {"0"}, "unprivileged": {"1"},
			"cores": {"1"}, "cpuunits": {"1024"}, "memory": {"512"}, "swap": {"512"},
			"rootfs": {"local-lvm:8"}, "mp0": {"local-lvm:4,mp=/var/cache/app,backup=1"},
			"net0":         {"name=eth0,bridge=vmbr0,hwaddr=BC:24:11:00:01:31,ip=10.0.1.31/24,gw=10.0.1.1,tag=50"},
			"nameserver":   {"10.0.1.53 10.0.1.54"},
			"searchdomain": {"cache.example.com"}, "console": {"1"}, "cmode": {"tty"},
		},
		rootOnly: map[string]string{"features": "nesting=1,mount=nfs;cifs", "tty": "2"},
	},
}

func createSourceContainer(t *testing.T, p *acctest.Protocol, src containerMoveSource) {
	t.Helper()
	ctx := context.Background()
	params := url.Values{}
	for k, v := range src.create {
		params[k] = v
	}
	if src.pool != "" {
		if err := p.Client.CreatePool(ctx, src.pool, ""); err != nil {
			t.Fatal(err)
		}
		params.Set("pool", src.pool)
	}
	upid, err := p.Client.CreateGuest(ctx, src.node, pveapi.GuestTypeLXC, src.vmid, params)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Client.WaitTask(ctx, upid); err != nil {
		t.Fatal(err)
	}
	for key, value := range src.rootOnly {
		if err := p.Sim.SetGuestConfig(src.vmid, key, value); err != nil {
			t.Fatal(err)
		}
	}
}

func moveState(t *testing.T, p *acctest.Protocol, provider, sourceType string, raw []byte) *tfprotov6.MoveResourceStateResponse {
	t.Helper()
	resp, err := p.Server.MoveResourceState(context.Background(), &tfprotov6.MoveResourceStateRequest{
		SourceProviderAddress: provider,
		SourceTypeName:        sourceType,
		SourceState:           &tfprotov6.RawState{JSON: raw},
		TargetTypeName:        "pve_container",
	})
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func diagnosticsOf(diags []*tfprotov6.Diagnostic, severity tfprotov6.DiagnosticSeverity) string {
	var out []string
	for _, d := range diags {
		if d.Severity == severity {
			out = append(out, d.Summary+": "+d.Detail)
		}
	}
	return strings.Join(out, "\n")
}

// A moved container, once refreshed, is what an import of it gives (the
// template stays unknown, W35), and the configuration matching it plans
// no change. Root's password never reaches the state.
func TestMoveStateContainerEndsWhereImportEnds(t *testing.T) {
	t.Parallel()
	for name, src := range containerMoveSources {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := acctest.NewProtocol(t)
			createSourceContainer(t, p, src)
			raw, err := os.ReadFile(filepath.Join("testdata", "move_state", src.file))
			if err != nil {
				t.Fatal(err)
			}
			resp := moveState(t, p, src.provider, src.typeName, raw)
			if errs := diagnosticsOf(resp.Diagnostics, tfprotov6.DiagnosticSeverityError); errs != "" || resp.TargetState == nil {
				t.Fatalf("move: %s", errs)
			}
			warnings := diagnosticsOf(resp.Diagnostics, tfprotov6.DiagnosticSeverityWarning)
			for _, dropped := range src.dropped {
				if !strings.Contains(warnings, dropped) {
					t.Errorf("warnings %q do not name %s, which is not carried over", warnings, dropped)
				}
			}
			if strings.Contains(p.StateValue(t, "pve_container", resp.TargetState).String(), src.secret) {
				t.Fatal("the source's password reached the moved state")
			}

			p.Sim.ResetCounters()
			refreshed := p.Read(t, "pve_container", resp.TargetState, resp.TargetPrivate)
			if _, writes := p.Requests(); writes != 0 {
				t.Errorf("the refresh after the move wrote %d times", writes)
			}
			imported := p.Import(t, "pve_container", src.node+"/"+strconv.Itoa(src.vmid))
			assertSameAsImport(t, p.StateValue(t, "pve_container", refreshed), p.StateValue(t, "pve_container", imported))

			config := p.ConfigFromState(t, "pve_container", refreshed)
			planned := p.Plan(t, "pve_container", refreshed, config)
			if !p.StateValue(t, "pve_container", planned).Equal(p.StateValue(t, "pve_container", refreshed)) {
				t.Fatal("the configuration matching the moved container plans a change")
			}
		})
	}
}

func TestMoveStateContainerRefusesOtherSources(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	for name, tc := range map[string]struct {
		provider, typeName, state, want string
	}{
		"vm type":        {"registry.terraform.io/telmate/proxmox", "proxmox_vm_qemu", `{"vmid": 131}`, "Unable to Move Resource State"},
		"other provider": {"registry.terraform.io/hashicorp/null", "proxmox_lxc", `{"vmid": 131}`, "Unable to Move Resource State"},
		"bpg template":   {"registry.terraform.io/bpg/proxmox", "proxmox_virtual_environment_container", `{"vm_id": 9100, "node_name": "pve1", "template": true}`, "template"},
		"no vmid":        {"registry.terraform.io/telmate/proxmox", "proxmox_lxc", `{"target_node": "pve1"}`, "no VMID"},
	} {
		resp := moveState(t, p, tc.provider, tc.typeName, []byte(tc.state))
		if errs := diagnosticsOf(resp.Diagnostics, tfprotov6.DiagnosticSeverityError); !strings.Contains(errs, tc.want) {
			t.Errorf("%s: errors %q, want one with %q", name, errs, tc.want)
		}
	}
}

// assertSameAsImport compares a moved and refreshed state with an
// imported one. Where PVE folds a value (tags to lowercase, W19; trailing
// newlines of the description), the refresh keeps the source's spelling,
// as it keeps a configuration's: those may differ in spelling only.
func assertSameAsImport(t *testing.T, moved, imported tftypes.Value) {
	t.Helper()
	diffs, err := moved.Diff(imported)
	if err != nil {
		t.Fatal(err)
	}
	tagsAgree := slices.Equal(lowerTags(t, moved), lowerTags(t, imported))
	for _, d := range diffs {
		steps := d.Path.Steps()
		if tagsAgree && len(steps) > 0 && steps[0] == tftypes.AttributeName("tags") {
			continue
		}
		if len(steps) == 1 && steps[0] == tftypes.AttributeName("description") && sameTrimmed(d.Value1, d.Value2) {
			continue
		}
		t.Errorf("moved and refreshed state differs from an import at %s: %s, import has %s", d.Path, d.Value1, d.Value2)
	}
}

func sameTrimmed(a, b *tftypes.Value) bool {
	var x, y string
	if a == nil || b == nil || a.As(&x) != nil || b.As(&y) != nil {
		return false
	}
	return strings.TrimRight(x, "\n") == strings.TrimRight(y, "\n")
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
