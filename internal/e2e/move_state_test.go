package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// Terraform (1.11) moves state across providers with a `moved` block, but
// it needs every provider the state names: with bpg/proxmox or
// Telmate/proxmox missing, plan stops at "Missing required provider". It
// never asks the source provider about the moved resource (the target
// provider gets the raw state), so any provider at that address will do.
// This test binary plays that provider when it runs under the name
// terraform-provider-proxmox: an empty provider that serves no resource
// type at all.
const fakeSourceBinary = "terraform-provider-proxmox"

func init() {
	if filepath.Base(os.Args[0]) != fakeSourceBinary {
		return
	}
	err := providerserver.Serve(context.Background(), func() provider.Provider { return emptyProvider{} },
		providerserver.ServeOpts{Address: "registry.terraform.io/bpg/proxmox"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// emptyProvider stands in for bpg/proxmox and Telmate/proxmox.
type emptyProvider struct{}

func (emptyProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "proxmox"
}
func (emptyProvider) Schema(context.Context, provider.SchemaRequest, *provider.SchemaResponse) {}
func (emptyProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}
func (emptyProvider) Resources(context.Context) []func() resource.Resource       { return nil }
func (emptyProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }

// withSourceProviders points bpg/proxmox and Telmate/proxmox at this test
// binary, next to the provider under test, in e's CLI configuration.
func (e *env) withSourceProviders() {
	e.t.Helper()
	self, err := os.Executable()
	if err != nil {
		e.t.Fatal(err)
	}
	dir := e.t.TempDir()
	if err := os.Symlink(self, filepath.Join(dir, fakeSourceBinary)); err != nil {
		e.t.Fatal(err)
	}
	rc := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    \"proxops/pve\" = %q\n    \"bpg/proxmox\" = %q\n    \"telmate/proxmox\" = %q\n  }\n  direct {}\n}\n",
		providerPlugins(e.t), dir, dir)
	if err := os.WriteFile(e.cliConf, []byte(rc), 0o600); err != nil {
		e.t.Fatal(err)
	}
}

// inProcess sends a client's requests straight to the simulator's handler.
type inProcess struct{ handler http.Handler }

func (t inProcess) RoundTrip(req *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	t.handler.ServeHTTP(rec, req)
	return rec.Result(), nil
}

// sourceInstance is one resource of another provider in a state file
// written by hand: its attributes are the recorded states the service
// packages test their translation with.
type sourceInstance struct {
	typeName, name, provider, attributesFile string
}

func writeSourceState(t *testing.T, dir string, instances []sourceInstance) {
	t.Helper()
	var resources []map[string]any
	for _, in := range instances {
		raw, err := os.ReadFile(in.attributesFile)
		if err != nil {
			t.Fatal(err)
		}
		resources = append(resources, map[string]any{
			"mode": "managed", "type": in.typeName, "name": in.name,
			"provider": fmt.Sprintf("provider[%q]", in.provider),
			"instances": []map[string]any{{
				"schema_version": 0, "attributes": json.RawMessage(raw), "sensitive_attributes": []any{},
			}},
		})
	}
	state, err := json.MarshalIndent(map[string]any{
		"version": 4, "terraform_version": "1.11.4", "serial": 7, "lineage": "0b7c5e4e-6c1f-4c34-9a55-3d9e1f0c2a10",
		"outputs": map[string]any{}, "resources": resources,
	}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "terraform.tfstate"), state, 0o600); err != nil {
		t.Fatal(err)
	}
}

// moveGuests creates, outside Terraform, the running guests the recorded
// states describe: bpg's VM 120 and container 130 on pve1, Telmate's VM
// 121 and container 131 on pve2.
func moveGuests(t *testing.T, sim *pvesim.Sim, token string) {
	t.Helper()
	client, err := pveapi.New(pveapi.Config{
		Endpoint: "http://127.0.0.1:8006", APIToken: token,
		HTTPClient: &http.Client{Transport: inProcess{sim.Handler()}}, RetryMax: -1, TaskPollInterval: time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	wait := func(upid string, err error) {
		t.Helper()
		if err == nil {
			_, err = client.WaitTask(ctx, upid)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, pool := range []string{"web", "db", "edge"} {
		if err := client.CreatePool(ctx, pool, ""); err != nil {
			t.Fatal(err)
		}
	}
	wait(client.CreateGuest(ctx, "pve1", pveapi.GuestTypeQemu, 120, url.Values{
		"name": {"web-1"}, "description": {"Web front end\nowned by ops"}, "tags": {"prod;web"}, "pool": {"web"}, "onboot": {"1"},
		"bios": {"seabios"}, "machine": {"q35"}, "ostype": {"l26"}, "scsihw": {"virtio-scsi-single"}, "boot": {"order=scsi0;net0"},
		"cores": {"2"}, "sockets": {"1"}, "cpu": {"x86-64-v2-AES"}, "cpuunits": {"1024"}, "memory": {"2048"}, "balloon": {"1024"},
		"agent": {"1,fstrim_cloned_disks=1,type=virtio"},
		"scsi0": {"local-lvm:32,discard=on,ssd=1,iothread=1"}, "scsi1": {"local-lvm:100,backup=0"},
		"ide0": {"none,media=cdrom"}, "ide2": {"local-lvm:cloudinit"},
		"net0":   {"virtio=BC:24:11:00:01:20,bridge=vmbr0,firewall=1"},
		"net1":   {"e1000=BC:24:11:00:01:21,bridge=vmbr0,tag=20,rate=12.5"},
		"ciuser": {"ops"}, "cipassword": {"S3cret-from-bpg"}, "sshkeys": {wire.EncodeSSHKeys([]string{bpgKey})},
		"searchdomain": {"example.com"}, "nameserver": {"10.0.0.53 10.0.0.54"},
		"ipconfig0": {"ip=10.0.0.20/24,gw=10.0.0.1"}, "ipconfig1": {"ip=dhcp,ip6=auto"},
	}))
	wait(client.GuestStatusAction(ctx, "pve1", pveapi.GuestTypeQemu, 120, "start", nil))
	wait(client.CreateGuest(ctx, "pve2", pveapi.GuestTypeQemu, 121, url.Values{
		"name": {"db-1"}, "description": {"Managed by Terraform."}, "tags": {"db;prod"}, "pool": {"db"}, "onboot": {"1"}, "protection": {"1"},
		"bios": {"seabios"}, "ostype": {"l26"}, "scsihw": {"virtio-scsi-single"}, "boot": {"order=scsi0;ide2;net0"},
		"cores": {"4"}, "sockets": {"1"}, "cpu": {"host"}, "memory": {"4096"}, "balloon": {"512"}, "agent": {"1"},
		"scsi0": {"local-lvm:20,cache=writeback,discard=on,ssd=1,iothread=1,replicate=0"}, "scsi1": {"local-lvm:2.5,replicate=0"},
		"ide2": {"local-lvm:cloudinit"}, "ide3": {"local:iso/debian-13-netinst.iso,media=cdrom"},
		"net0":   {"virtio=BC:24:11:00:03:21,bridge=vmbr0,firewall=1"},
		"net1":   {"virtio=BC:24:11:00:02:21,bridge=vmbr0,tag=30,link_down=1,mtu=1,queues=4"},
		"ciuser": {"deploy"}, "cipassword": {"S3cret-from-telmate"}, "sshkeys": {wire.EncodeSSHKeys(telmateKeys)},
		"searchdomain": {"db.example.com"}, "nameserver": {"10.0.1.53 10.0.1.54"},
		"ipconfig0": {"ip=10.0.1.21/24,gw=10.0.1.1"}, "ipconfig1": {"ip=dhcp,ip6=auto"},
	}))
	wait(client.GuestStatusAction(ctx, "pve2", pveapi.GuestTypeQemu, 121, "start", nil))
	wait(client.CreateGuest(ctx, "pve1", pveapi.GuestTypeLXC, 130, url.Values{
		"ostemplate": {ctTemplate}, "password": {"S3cret-from-bpg"}, "pool": {"edge"},
		"hostname": {"proxy-1"}, "description": {"reverse proxy\n"}, "tags": {"edge;prod"}, "onboot": {"1"}, "unprivileged": {"1"},
		"cores": {"2"}, "cpuunits": {"1024"}, "memory": {"1024"}, "swap": {"256"},
		"rootfs": {"local-lvm:8"}, "mp0": {"local-lvm:10,mp=/srv/data,backup=1,replicate=1"},
		"net0":         {"name=eth0,bridge=vmbr0,hwaddr=BC:24:11:00:01:30,firewall=1,ip=10.0.0.30/24,gw=10.0.0.1,ip6=auto"},
		"net1":         {"name=eth1,bridge=vmbr0,hwaddr=BC:24:11:00:02:30,mtu=1400,rate=25,tag=40,ip=dhcp"},
		"nameserver":   {"10.0.0.53"},
		"searchdomain": {"example.com"}, "console": {"1"}, "cmode": {"console"},
		"tty": {"4"},
	}))
	// bpg ran as root@pam: the bind mount (W36) and keyctl (W33).
	for key, value := range map[string]string{
		"features": "nesting=1,keyctl=1", "mp1": "/srv/host/shared,mp=/mnt/shared,ro=1,shared=1",
	} {
		if err := sim.SetGuestConfig(130, key, value); err != nil {
			t.Fatal(err)
		}
	}
	wait(client.GuestStatusAction(ctx, "pve1", pveapi.GuestTypeLXC, 130, "start", nil))
	wait(client.CreateGuest(ctx, "pve2", pveapi.GuestTypeLXC, 131, url.Values{
		"ostemplate": {ctTemplate}, "password": {"S3cret-from-telmate"},
		"hostname": {"cache-1"}, "description": {"cache"}, "tags": {"cache;prod"}, "onboot": {"0"}, "unprivileged": {"1"},
		"cores": {"1"}, "cpuunits": {"1024"}, "memory": {"512"}, "swap": {"512"},
		"rootfs": {"local-lvm:8"}, "mp0": {"local-lvm:4,mp=/var/cache/app,backup=1"},
		"net0":         {"name=eth0,bridge=vmbr0,hwaddr=BC:24:11:00:01:31,ip=10.0.1.31/24,gw=10.0.1.1,tag=50"},
		"nameserver":   {"10.0.1.53 10.0.1.54"},
		"searchdomain": {"cache.example.com"}, "console": {"1"}, "cmode": {"tty"},
	}))
	// Telmate ran as root@pam: the features only root may set (W33).
	if err := sim.SetGuestConfig(131, "features", "nesting=1,mount=nfs;cifs"); err != nil {
		t.Fatal(err)
	}
	wait(client.GuestStatusAction(ctx, "pve2", pveapi.GuestTypeLXC, 131, "start", nil))
}

const bpgKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG1vdmUtc3RhdGUta2V5LWJwZy1mb3ItdGVzdHMtMzJi ops@example.com"

var telmateKeys = []string{
	"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG1vdmUtc3RhdGUta2V5LW9uZS1mb3ItdGVzdHMtMzJi deploy@example.com",
	"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG1vdmUtc3RhdGUta2V5LXR3by1mb3ItdGVzdHMtMzJi ops@example.com",
}

// movedConfig is what an operator writes for the two guests in this
// provider's terms, with the moved blocks that take the state over.
var movedConfig = `
moved {
  from = proxmox_virtual_environment_vm.web
  to   = pve_vm.web
}

moved {
  from = proxmox_vm_qemu.db
  to   = pve_vm.db
}

moved {
  from = proxmox_virtual_environment_container.proxy
  to   = pve_container.proxy
}

moved {
  from = proxmox_lxc.cache
  to   = pve_container.cache
}

resource "pve_vm" "web" {
  node          = "pve1"
  vmid          = 120
  name          = "web-1"
  description   = "Web front end\nowned by ops"
  tags          = ["prod", "web"]
  pool          = "web"
  on_boot       = true
  bios          = "seabios"
  machine       = "q35"
  os_type       = "l26"
  scsi_hardware = "virtio-scsi-single"
  boot_order    = ["scsi0", "net0"]
  cpu           = { cores = 2, sockets = 1, type = "x86-64-v2-AES", units = 1024 }
  memory        = { size = 2048, balloon = 1024 }
  agent         = { enabled = true, trim = true, type = "virtio" }
  disks = {
    scsi0 = { storage = "local-lvm", size = 32, discard = true, ssd = true, iothread = true }
    scsi1 = { storage = "local-lvm", size = 100, backup = false }
  }
  cdroms = { ide0 = { file = "none" } }
  network = {
    net0 = { bridge = "vmbr0", mac_address = "BC:24:11:00:01:20", firewall = true }
    net1 = { model = "e1000", bridge = "vmbr0", mac_address = "BC:24:11:00:01:21", vlan_tag = 20, rate = 12.5 }
  }
  cloud_init = {
    storage  = "local-lvm"
    user     = "ops"
    ssh_keys = ["` + bpgKey + `"]
    dns      = { domain = "example.com", servers = ["10.0.0.53", "10.0.0.54"] }
    ip_config = {
      ipconfig0 = { ipv4 = { address = "10.0.0.20/24", gateway = "10.0.0.1" } }
      ipconfig1 = { ipv4 = { address = "dhcp" }, ipv6 = { address = "auto" } }
    }
  }
}

resource "pve_vm" "db" {
  node          = "pve2"
  vmid          = 121
  name          = "db-1"
  description   = "Managed by Terraform."
  tags          = ["db", "prod"]
  pool          = "db"
  on_boot       = true
  protection    = true
  bios          = "seabios"
  os_type       = "l26"
  scsi_hardware = "virtio-scsi-single"
  boot_order    = ["scsi0", "ide2", "net0"]
  cpu           = { cores = 4, sockets = 1, type = "host" }
  memory        = { size = 4096, balloon = 512 }
  agent         = { enabled = true }
  disks = {
    scsi0 = { storage = "local-lvm", size = 20, cache = "writeback", discard = true, ssd = true, iothread = true, replicate = false }
    scsi1 = { storage = "local-lvm", size = "2560M", replicate = false }
  }
  cdroms = { ide3 = { file = "local:iso/debian-13-netinst.iso" } }
  network = {
    net0 = { bridge = "vmbr0", mac_address = "BC:24:11:00:03:21", firewall = true }
    net1 = { bridge = "vmbr0", mac_address = "BC:24:11:00:02:21", vlan_tag = 30, link_down = true, mtu = 1, queues = 4 }
  }
  cloud_init = {
    storage  = "local-lvm"
    user     = "deploy"
    ssh_keys = ["` + telmateKeys[0] + `", "` + telmateKeys[1] + `"]
    dns      = { domain = "db.example.com", servers = ["10.0.1.53", "10.0.1.54"] }
    ip_config = {
      ipconfig0 = { ipv4 = { address = "10.0.1.21/24", gateway = "10.0.1.1" } }
      ipconfig1 = { ipv4 = { address = "dhcp" }, ipv6 = { address = "auto" } }
    }
  }
}

resource "pve_container" "proxy" {
  node         = "pve1"
  vmid         = 130
  hostname     = "proxy-1"
  description  = "reverse proxy\n"
  tags         = ["edge", "prod"]
  pool         = "edge"
  on_boot      = true
  unprivileged = true
  cpu          = { cores = 2, units = 1024 }
  memory       = { size = 1024, swap = 256 }
  root_disk    = { storage = "local-lvm", size = 8 }
  mount_points = {
    mp0 = { storage = "local-lvm", size = 10, path = "/srv/data", backup = true, replicate = true }
    mp1 = { host_path = "/srv/host/shared", path = "/mnt/shared", read_only = true, shared = true }
  }
  network = {
    net0 = {
      name        = "eth0"
      bridge      = "vmbr0"
      mac_address = "BC:24:11:00:01:30"
      firewall    = true
      ipv4        = { address = "10.0.0.30/24", gateway = "10.0.0.1" }
      ipv6        = { address = "auto" }
    }
    net1 = {
      name        = "eth1"
      bridge      = "vmbr0"
      mac_address = "BC:24:11:00:02:30"
      mtu         = 1400
      rate        = 25
      vlan_tag    = 40
      ipv4        = { address = "dhcp" }
    }
  }
  features = { nesting = true, keyctl = true }
  dns      = { domain = "example.com", servers = ["10.0.0.53"] }
  console  = { enabled = true, mode = "console", ttys = 4 }
}

resource "pve_container" "cache" {
  node         = "pve2"
  vmid         = 131
  hostname     = "cache-1"
  description  = "cache"
  tags         = ["cache", "prod"]
  on_boot      = false
  unprivileged = true
  cpu          = { cores = 1, units = 1024 }
  memory       = { size = 512, swap = 512 }
  root_disk    = { storage = "local-lvm", size = 8 }
  mount_points = {
    mp0 = { storage = "local-lvm", size = 4, path = "/var/cache/app", backup = true }
  }
  network = {
    net0 = {
      name        = "eth0"
      bridge      = "vmbr0"
      mac_address = "BC:24:11:00:01:31"
      vlan_tag    = 50
      ipv4        = { address = "10.0.1.31/24", gateway = "10.0.1.1" }
    }
  }
  features = { nesting = true, mount = ["nfs", "cifs"] }
  dns      = { domain = "cache.example.com", servers = ["10.0.1.53", "10.0.1.54"] }
  console  = { enabled = true, mode = "tty" }
}
`

// The guide's steps, run as written: a state holding a VM and a container
// of each provider, the new configuration with moved blocks, a plan
// that only moves, an apply that writes nothing to PVE, an empty plan
// after it, and the old providers no longer needed.
func TestMoveStateFromOtherProviders(t *testing.T) {
	t.Parallel()
	token := "root@pam!seed=" + randomHex(t, 16)
	// bpg's container has a bind mount, which only root@pam with a password
	// may change (W36): the provider logs in as such, as bpg did.
	e := newEnv(t, envOptions{sim: pvesim.Options{Nodes: 2, Tokens: []string{token}}, passwordAuth: true})
	moveGuests(t, e.sim, token)
	writeSourceState(t, e.dir, []sourceInstance{
		{"proxmox_virtual_environment_vm", "web", "registry.terraform.io/bpg/proxmox", "../service/qemu/testdata/move_state/bpg_vm.json"},
		{"proxmox_vm_qemu", "db", "registry.terraform.io/telmate/proxmox", "../service/qemu/testdata/move_state/telmate_vm_qemu.json"},
		{"proxmox_virtual_environment_container", "proxy", "registry.terraform.io/bpg/proxmox", "../service/lxc/testdata/move_state/bpg_container.json"},
		{"proxmox_lxc", "cache", "registry.terraform.io/telmate/proxmox", "../service/lxc/testdata/move_state/telmate_lxc.json"},
	})
	e.write(e.dir, movedConfig)
	plain, err := os.ReadFile(e.cliConf)
	if err != nil {
		t.Fatal(err)
	}

	// Without the source providers Terraform refuses the state. OpenTofu
	// reads the state's registry.terraform.io addresses as its own
	// registry's and says so in its own words.
	missing := []string{"Missing required provider", "registry.terraform.io/bpg/proxmox"}
	if openTofuVersion(t) != "" {
		missing = []string{"Failed to load plugin schemas", `unavailable provider "registry.opentofu.org/bpg/proxmox"`}
	}
	r := e.run(e.dir, "plan", "-input=false", "-no-color")
	if r.exitCode != 1 || !strings.Contains(r.output, missing[0]) || !strings.Contains(r.output, missing[1]) {
		t.Fatalf("plan without the source providers: exit %d, want the missing-provider error:\n%s", r.exitCode, r.output)
	}

	e.withSourceProviders()
	before := moveConfigs(e.sim)
	r = e.run(e.dir, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	for _, want := range []string{
		"proxmox_virtual_environment_vm.web has moved to pve_vm.web",
		"proxmox_vm_qemu.db has moved to pve_vm.db",
		"proxmox_virtual_environment_container.proxy has moved to pve_container.proxy",
		"proxmox_lxc.cache has moved to pve_container.cache",
		"0 to add, 0 to change, 0 to destroy",
	} {
		if !strings.Contains(r.output, want) {
			t.Errorf("plan output lacks %q", want)
		}
	}
	if r.exitCode != 2 || strings.Contains(r.output, "must be replaced") || t.Failed() {
		t.Fatalf("plan of the move: exit %d, want only moves:\n%s", r.exitCode, r.output)
	}
	if warn := "Source Values Not Carried Over"; !strings.Contains(r.output, warn) {
		t.Errorf("plan output lacks the warning %q naming what is not carried over", warn)
	}

	// Even without the refresh the translated state plans no replacement:
	// at most in-place differences where the source recorded its own
	// defaults, which the refresh reads back from PVE.
	r = e.run(e.dir, "plan", "-refresh=false", "-input=false", "-no-color")
	if r.exitCode != 0 || strings.Contains(r.output, "must be replaced") || !strings.Contains(r.output, "0 to destroy") {
		t.Errorf("plan -refresh=false of the move: exit %d, want no replacement:\n%s", r.exitCode, r.output)
	}

	e.sim.ResetCounters()
	e.mustApply(e.dir, 4)
	for _, req := range writesOf(e.sim) {
		t.Errorf("the move wrote to PVE: %s", req)
	}
	if after := moveConfigs(e.sim); after != before {
		t.Errorf("guests changed by the move:\nbefore: %s\nafter:  %s", before, after)
	}
	e.mustPlanEmpty(e.dir)

	state, err := os.ReadFile(filepath.Join(e.dir, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	for _, leaked := range []string{"S3cret-from-bpg", "S3cret-from-telmate", "proxmox_virtual_environment_", "proxmox_vm_qemu", "proxmox_lxc"} {
		if strings.Contains(string(state), leaked) {
			t.Errorf("state after the move still holds %q", leaked)
		}
	}

	// Once moved, the state no longer needs the old providers.
	if err := os.WriteFile(e.cliConf, plain, 0o600); err != nil {
		t.Fatal(err)
	}
	e.mustPlanEmpty(e.dir)

	// The template PVE cannot report (W35) is null after the move; setting
	// it then never replaces the container and writes nothing to PVE.
	e.write(e.dir, strings.Replace(movedConfig, `hostname     = "cache-1"`,
		`hostname     = "cache-1"`+"\n  os_template  = \""+ctTemplate+"\"", 1))
	r = e.run(e.dir, "plan", "-input=false", "-no-color")
	if r.exitCode != 0 || strings.Contains(r.output, "must be replaced") || !strings.Contains(r.output, "0 to destroy") {
		t.Fatalf("plan with os_template after the move: exit %d, want no replacement:\n%s", r.exitCode, r.output)
	}
	e.sim.ResetCounters()
	e.mustApply(e.dir, 4)
	for _, req := range writesOf(e.sim) {
		t.Errorf("recording os_template wrote to PVE: %s", req)
	}
	e.mustPlanEmpty(e.dir)
}

// writesOf lists the requests that changed something in PVE; logging in
// (POST /access/ticket) changes nothing.
func writesOf(sim *pvesim.Sim) []string {
	var out []string
	for _, req := range sim.Requests() {
		if req.Method != http.MethodGet && !strings.HasSuffix(req.Path, "/access/ticket") {
			out = append(out, req.Method+" "+req.Path)
		}
	}
	return out
}

// moveConfigs snapshots the two guests' configs and power states.
func moveConfigs(sim *pvesim.Sim) string {
	var b strings.Builder
	for _, vmid := range []int{120, 121, 130, 131} {
		config, _ := sim.GuestConfig(vmid)
		encoded, _ := json.Marshal(config)
		fmt.Fprintf(&b, "%d %s %s\n", vmid, sim.PowerState(vmid), encoded)
	}
	return b.String()
}
