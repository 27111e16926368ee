package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// Whole-cluster adoption: guests made outside Terraform, the way an
// administrator makes them with qm, pct or the web UI, are adopted by one
// configuration fed by the pve_vms and pve_containers data sources.

// brownfieldGuest is one guest created through PVE's API before Terraform
// ever sees the cluster.
type brownfieldGuest struct {
	vmid    int
	node    string
	kind    pvesim.GuestType
	params  url.Values
	running bool
	// template marks the VM as a template after its creation.
	template bool
}

// The guests tagged prod that are not templates: the ones every adoption
// pattern must take over, 8 VMs and 6 containers on three nodes. Some carry
// the tag in mixed case ("Prod", "PROD"), which PVE folds (W19).
var (
	adoptedVMs        = []int{101, 102, 103, 104, 105, 106, 107, 108}
	adoptedContainers = []int{201, 202, 203, 204, 205, 206}
)

// apiForm builds a request form from key, value pairs.
func apiForm(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v
}

// brownfield is the cluster as found: a web tier, databases, a cloud-init
// VM seeded from an image, a UEFI VM with a CD-ROM, a protected VM on
// shared storage, containers with mount points, static and DHCP addresses
// and two NICs, plus guests the filter must leave alone (a lab VM, a lab
// container, a template tagged prod).
func brownfield() []brownfieldGuest {
	web := func(vmid int, node, name string, running bool) brownfieldGuest {
		return brownfieldGuest{vmid: vmid, node: node, kind: pvesim.QEMU, running: running, params: apiForm(
			"name", name, "tags", "Prod;Web", "pool", "prod", "ostype", "l26",
			"cores", "2", "memory", "2048", "scsihw", "virtio-scsi-single",
			"scsi0", "local-lvm:8,discard=on,iothread=1", "scsi1", "local-lvm:4,backup=0",
			"net0", "virtio,bridge=vmbr0,firewall=1", "onboot", "1", "agent", "1",
			"boot", "order=scsi0;net0",
		)}
	}
	db := func(vmid int, node, name string) brownfieldGuest {
		return brownfieldGuest{vmid: vmid, node: node, kind: pvesim.QEMU, running: true, params: apiForm(
			"name", name, "tags", "prod;DB", "ostype", "l26", "cpu", "host",
			"sockets", "2", "cores", "4", "memory", "8192", "balloon", "2048",
			"scsihw", "virtio-scsi-single", "scsi0", "local-lvm:16,iothread=1",
			"scsi1", "local-lvm:32,discard=on,ssd=1,iothread=1",
			"net0", "virtio,bridge=vmbr0", "net1", "virtio,bridge=vmbr0,tag=20,mtu=1",
		)}
	}
	ct := func(vmid int, node, hostname string, running bool, kv ...string) brownfieldGuest {
		p := apiForm(
			"hostname", hostname, "ostemplate", ctTemplate, "unprivileged", "1",
			"features", "nesting=1", "memory", "512", "swap", "512", "cores", "1",
			"rootfs", "local-lvm:4", "net0", "name=eth0,bridge=vmbr0,ip=dhcp,firewall=1",
		)
		for i := 0; i+1 < len(kv); i += 2 {
			p.Set(kv[i], kv[i+1])
		}
		return brownfieldGuest{vmid: vmid, node: node, kind: pvesim.LXC, running: running, params: p}
	}
	return []brownfieldGuest{
		web(101, "pve1", "web-01", true),
		web(102, "pve2", "web-02", true),
		web(103, "pve3", "web-03", false),
		db(104, "pve1", "db-01"),
		db(105, "pve2", "db-02"),
		{vmid: 106, node: "pve3", kind: pvesim.QEMU, running: true, params: apiForm(
			"name", "ci-runner-01", "tags", "PROD;ci", "pool", "prod", "memory", "4096", "cores", "4",
			"scsihw", "virtio-scsi-single",
			// W25: seeded from an image; PVE does not report import-from.
			"scsi0", "local-lvm:0,import-from=local:import/debian-13-genericcloud-amd64.qcow2",
			"ide2", "local-lvm:cloudinit", "ciuser", "debian", "ipconfig0", "ip=dhcp",
			"net0", "virtio,bridge=vmbr0", "serial0", "socket", "vga", "serial0",
			"boot", "order=scsi0",
		)},
		{vmid: 107, node: "pve1", kind: pvesim.QEMU, params: apiForm(
			"name", "build-01", "tags", "prod;build", "bios", "ovmf", "machine", "q35",
			"efidisk0", "local-lvm:1,efitype=4m,pre-enrolled-keys=1",
			"virtio0", "local-lvm:20", "ide2", "local:iso/debian-13-netinst.iso,media=cdrom",
			"net0", "e1000,bridge=vmbr0", "memory", "4096",
		)},
		{vmid: 108, node: "pve2", kind: pvesim.QEMU, running: true, params: apiForm(
			"name", "mon-01", "tags", "prod;monitoring", "pool", "prod", "protection", "1",
			"description", "Monitoring.\nOwner: ops team.",
			"scsihw", "virtio-scsi-single", "scsi0", "shared-nfs:10", "net0", "virtio,bridge=vmbr0",
		)},
		{vmid: 110, node: "pve3", kind: pvesim.QEMU, params: apiForm(
			"name", "lab-01", "tags", "lab", "scsi0", "local-lvm:2", "net0", "virtio,bridge=vmbr0",
		)},
		{vmid: 111, node: "pve1", kind: pvesim.QEMU, template: true, params: apiForm(
			"name", "golden-image", "tags", "prod;golden", "scsihw", "virtio-scsi-single", "scsi0", "local-lvm:4",
		)},
		ct(201, "pve1", "dns-01", true, "tags", "Prod;DNS", "pool", "prod", "onboot", "1"),
		ct(202, "pve2", "dns-02", true, "tags", "prod;dns", "pool", "prod", "onboot", "1"),
		ct(203, "pve3", "cache-01", true, "tags", "prod;cache",
			"mp0", "local-lvm:8,mp=/var/cache/app,backup=1",
			"net0", "name=eth0,bridge=vmbr0,ip=192.0.2.50/24,gw=192.0.2.1"),
		ct(204, "pve1", "proxy-01", true, "tags", "prod;edge",
			"net1", "name=eth1,bridge=vmbr0,tag=30,ip=198.51.100.4/24",
			"nameserver", "192.0.2.53", "searchdomain", "example.net"),
		ct(205, "pve2", "log-01", true, "tags", "prod;logs", "description", "Central syslog.",
			"mp0", "local-lvm:4,mp=/srv/logs,acl=1"),
		ct(206, "pve3", "queue-01", false, "tags", "prod;queue", "cpulimit", "1.5", "memory", "1024"),
		ct(210, "pve2", "sandbox-01", true, "tags", "lab"),
	}
}

// inProcessTransport serves requests with the simulator's handler in
// process: the guests are made through PVE's API, as a user would make
// them, without a second TLS listener.
type inProcessTransport struct{ handler http.Handler }

func (t inProcessTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	t.handler.ServeHTTP(rec, req)
	return rec.Result(), nil
}

// adoptionEnv is a three-node simulator holding the brownfield guests and
// the prod pool, none of them known to Terraform.
func adoptionEnv(t *testing.T) (*env, *pveapi.Client) {
	t.Helper()
	token := "root@pam!seed=" + randomHex(t, 16)
	e := newEnv(t, envOptions{sim: pvesim.Options{Nodes: 3, Tokens: []string{token}}})
	client := e.outsideClient(token)
	ctx := context.Background()
	if err := client.CreatePool(ctx, "prod", "production guests"); err != nil {
		t.Fatalf("create pool: %v", err)
	}
	for _, g := range brownfield() {
		createOutsideTerraform(ctx, t, client, g)
	}
	return e, client
}

func createOutsideTerraform(ctx context.Context, t *testing.T, client *pveapi.Client, g brownfieldGuest) {
	t.Helper()
	wait := func(what string, upid string, err error) {
		t.Helper()
		if err == nil {
			_, err = client.WaitTask(ctx, upid)
		}
		if err != nil {
			t.Fatalf("%s %s %d: %v", what, g.kind, g.vmid, err)
		}
	}
	if g.kind == pvesim.LXC {
		upid, err := client.CreateGuest(ctx, g.node, pveapi.GuestTypeLXC, g.vmid, g.params)
		wait("create", upid, err)
		if g.running {
			upid, err = client.GuestStatusAction(ctx, g.node, pveapi.GuestTypeLXC, g.vmid, "start", nil)
			wait("start", upid, err)
		}
		return
	}
	upid, err := client.CreateGuest(ctx, g.node, pveapi.GuestTypeQemu, g.vmid, g.params)
	wait("create", upid, err)
	if g.template {
		upid, err = client.TemplateQemu(ctx, g.node, g.vmid, "")
		wait("template", upid, err)
	}
	if g.running {
		upid, err = client.GuestStatusAction(ctx, g.node, pveapi.GuestTypeQemu, g.vmid, "start", nil)
		wait("start", upid, err)
	}
}

// snapshotGuestConfigs snapshots every guest's configuration and power state, to
// show that adopting them wrote nothing to PVE.
func snapshotGuestConfigs(sim *pvesim.Sim) map[int]string {
	out := map[int]string{}
	sim.View(func(c *pvesim.Cluster) {
		for vmid, g := range c.Guests {
			keys := make([]string, 0, len(g.Config))
			for k := range g.Config {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			var b strings.Builder
			fmt.Fprintf(&b, "node=%s status=%s pool=%s\n", g.Node, g.Status, g.Pool)
			for _, k := range keys {
				fmt.Fprintf(&b, "%s: %s\n", k, g.Config[k])
			}
			out[vmid] = b.String()
		}
	})
	return out
}

func checkGuestsUnchanged(t *testing.T, before, after map[int]string) {
	t.Helper()
	if reflect.DeepEqual(before, after) {
		return
	}
	for vmid, was := range before {
		if now := after[vmid]; now != was {
			t.Errorf("guest %d changed during adoption:\nbefore:\n%s\nafter:\n%s", vmid, was, now)
		}
	}
	for vmid := range after {
		if _, ok := before[vmid]; !ok {
			t.Errorf("guest %d appeared during adoption", vmid)
		}
	}
}

// adoptedStateAddresses lists the managed resources in dir's state file, read
// directly rather than through another terraform run.
func (e *env) adoptedStateAddresses(dir string) []string {
	e.t.Helper()
	var state struct {
		Resources []struct {
			Mode      string `json:"mode"`
			Type      string `json:"type"`
			Name      string `json:"name"`
			Instances []struct {
				IndexKey any `json:"index_key"`
			} `json:"instances"`
		} `json:"resources"`
	}
	if err := json.Unmarshal([]byte(readAdoptionFile(e.t, dir, "terraform.tfstate")), &state); err != nil {
		e.t.Fatalf("parse state: %v", err)
	}
	var out []string
	for _, r := range state.Resources {
		if r.Mode != "managed" {
			continue
		}
		for _, instance := range r.Instances {
			address := r.Type + "." + r.Name
			if key, ok := instance.IndexKey.(string); ok {
				address += fmt.Sprintf("[%q]", key)
			}
			out = append(out, address)
		}
	}
	sort.Strings(out)
	return out
}

func expectedAddresses(vmFormat, ctFormat string, vms, cts []int) []string {
	var out []string
	for _, id := range vms {
		out = append(out, fmt.Sprintf(vmFormat, id))
	}
	for _, id := range cts {
		out = append(out, fmt.Sprintf(ctFormat, id))
	}
	sort.Strings(out)
	return out
}

func checkAdoptingApply(t *testing.T, r tfResult, n int) {
	t.Helper()
	if r.exitCode != 0 {
		t.Fatalf("adopting apply failed (exit %d):\n%s", r.exitCode, r.output)
	}
	want := fmt.Sprintf("Apply complete! Resources: %d imported, 0 added, 0 changed, 0 destroyed.", n)
	if !strings.Contains(r.output, want) {
		t.Fatalf("apply did not import exactly %d guests and change nothing; want %q in:\n%s", n, want, r.output)
	}
}

func writeAdoptionFile(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// adoptionExample is an example configuration of the guide "Adopting an
// existing cluster": the tests run the very files the guide shows.
func adoptionExample(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "adopting-a-cluster", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestAdoptClusterForEachImport adopts every guest tagged prod on a
// three-node cluster in one apply, with import blocks that iterate over the
// data sources, then shows that the next plan is empty and that the apply
// wrote nothing to PVE. A guest made later with the tag is adopted by the
// next apply of the same configuration.
func TestAdoptClusterForEachImport(t *testing.T) {
	t.Parallel()
	e, client := adoptionEnv(t)
	before := snapshotGuestConfigs(e.sim)

	forEach := adoptionExample(t, "for-each/main.tf")
	e.write(e.dir, forEach)
	checkAdoptingApply(t, e.apply(e.dir, 4), len(adoptedVMs)+len(adoptedContainers))
	checkGuestsUnchanged(t, before, snapshotGuestConfigs(e.sim))
	if got, want := e.adoptedStateAddresses(e.dir), expectedAddresses(`pve_vm.all["%d"]`, `pve_container.all["%d"]`, adoptedVMs, adoptedContainers); !reflect.DeepEqual(got, want) {
		t.Fatalf("state holds %v, want %v", got, want)
	}
	e.mustPlanEmpty(e.dir)

	// The same configuration adopts a guest tagged later...
	createOutsideTerraform(context.Background(), t, client, brownfieldGuest{vmid: 109, node: "pve3", kind: pvesim.QEMU, params: apiForm(
		"name", "web-04", "tags", "Prod;web", "scsihw", "virtio-scsi-single", "scsi0", "local-lvm:8", "net0", "virtio,bridge=vmbr0",
	)})
	// node follows the listing, so a migration made outside Terraform
	// meanwhile plans no change: the apply imports and changes nothing else.
	upid, err := client.MigrateQemu(context.Background(), "pve2", 108, "pve3", true, false)
	if err == nil {
		_, err = client.WaitTask(context.Background(), upid)
	}
	if err != nil {
		t.Fatalf("migrate VM 108: %v", err)
	}
	checkAdoptingApply(t, e.apply(e.dir, 4), 1)
	e.mustPlanEmpty(e.dir)
	allVMs := append(append([]int{}, adoptedVMs...), 109)

	// Taking an attribute over for the whole fleet: declared, and no longer
	// ignored, it is changed in place where a guest differs.
	takeOver := replaceInConfig(t, forEach, "resource \"pve_vm\" \"all\" {\n  for_each = local.vms\n", "resource \"pve_vm\" \"all\" {\n  for_each = local.vms\n  on_boot  = true\n")
	e.write(e.dir, replaceInConfig(t, takeOver, "      name, description, on_boot, protection,", "      name, description, protection,"))
	r := e.apply(e.dir, 4)
	if r.exitCode != 0 || !strings.Contains(r.output, "Resources: 0 added, 6 changed, 0 destroyed.") {
		t.Fatalf("taking on_boot over should update the 6 VMs without it in place (exit %d):\n%s", r.exitCode, r.output)
	}
	e.mustPlanEmpty(e.dir)
	for _, vmid := range allVMs {
		if g, _ := e.sim.Guest(vmid); g.Config["onboot"] != "1" {
			t.Errorf("VM %d: onboot = %q after taking on_boot over, want 1", vmid, g.Config["onboot"])
		}
	}

	// A guest that leaves the selection would be destroyed by the for_each;
	// prevent_destroy refuses the plan instead, and terraform state rm lets
	// it go with the guest left in place.
	if err := client.UpdateGuestConfig(context.Background(), "pve3", pveapi.GuestTypeQemu, 103, url.Values{"tags": {"web"}}); err != nil {
		t.Fatal(err)
	}
	r = e.run(e.dir, "plan", "-input=false", "-no-color")
	// Terraform says "Instance cannot be destroyed", OpenTofu "Resource
	// instance cannot be destroyed".
	if r.exitCode == 0 || !strings.Contains(r.output, "nstance cannot be destroyed") ||
		!strings.Contains(r.output, `pve_vm.all["103"]`) {
		t.Fatalf("a guest that lost its tag must not be planned for destruction (exit %d):\n%s", r.exitCode, r.output)
	}
	if r := e.run(e.dir, "state", "rm", "-no-color", `pve_vm.all["103"]`); r.exitCode != 0 {
		t.Fatalf("state rm (exit %d):\n%s", r.exitCode, r.output)
	}
	e.mustPlanEmpty(e.dir)
	if _, ok := e.sim.Guest(103); !ok {
		t.Error("VM 103 is gone; letting it go must leave it in place")
	}
}

// replaceInConfig replaces from by to in s once, failing unless from occurs once:
// the test's variations of a configuration stay tied to the original.
func replaceInConfig(t *testing.T, s, from, to string) string {
	t.Helper()
	if strings.Count(s, from) != 1 {
		t.Fatalf("configuration does not hold exactly one %q", from)
	}
	return strings.Replace(s, from, to, 1)
}

// TestAdoptClusterGeneratedConfig adopts every guest tagged prod with a
// full configuration per guest: the data sources render import blocks,
// terraform plan -generate-config-out writes the resources, one apply
// imports them all, and the next plan is empty.
func TestAdoptClusterGeneratedConfig(t *testing.T) {
	t.Parallel()
	e, _ := adoptionEnv(t)
	before := snapshotGuestConfigs(e.sim)

	// Terraform cannot generate configuration for import blocks with
	// for_each; this pins the limitation the guide works around.
	probe := e.workdir("probe")
	e.write(probe, `
data "pve_vms" "adopt" {
  tags = ["prod"]
}

import {
  for_each = { for vm in data.pve_vms.adopt.vms : tostring(vm.vmid) => vm }
  to       = pve_vm.all[each.key]
  id       = "${each.value.node}/${each.key}"
}
`)
	r := e.run(probe, "plan", "-input=false", "-no-color", "-generate-config-out=generated.tf")
	if _, err := os.Stat(filepath.Join(probe, "generated.tf")); r.exitCode == 0 || err == nil {
		t.Fatalf("terraform generated configuration for a for_each import (exit %d); the guide says it cannot:\n%s", r.exitCode, r.output)
	}

	e.write(e.dir, adoptionExample(t, "generated/discover.tf"))
	if r := e.apply(e.dir, 4); r.exitCode != 0 {
		t.Fatalf("discovery apply failed (exit %d):\n%s", r.exitCode, r.output)
	}
	writeAdoptionFile(t, e.dir, "imports.tf", e.outputRaw(e.dir, "import_blocks"))

	if r := e.run(e.dir, "plan", "-input=false", "-no-color", "-generate-config-out=generated.tf"); r.exitCode != 0 {
		t.Fatalf("plan -generate-config-out failed (exit %d):\n%s", r.exitCode, r.output)
	}
	checkAdoptingApply(t, e.apply(e.dir, 4), len(adoptedVMs)+len(adoptedContainers))
	checkGuestsUnchanged(t, before, snapshotGuestConfigs(e.sim))
	if got, want := e.adoptedStateAddresses(e.dir), expectedAddresses("pve_vm.vm_%d", "pve_container.ct_%d", adoptedVMs, adoptedContainers); !reflect.DeepEqual(got, want) {
		t.Fatalf("state holds %v, want %v", got, want)
	}
	e.mustPlanEmpty(e.dir)

	// What PVE never reports is null in the generated configuration;
	// declaring it afterwards records it in place and changes nothing on
	// PVE: the image a disk was seeded from (W25), a container's template
	// (W35). The import blocks, their work done, go at the same time and
	// add nothing to the plan.
	if err := os.Remove(filepath.Join(e.dir, "imports.tf")); err != nil {
		t.Fatal(err)
	}
	generated := readAdoptionFile(t, e.dir, "generated.tf")
	generated = setInGeneratedBlock(t, generated, `resource "pve_vm" "vm_106"`, `import_from = null`,
		`import_from = "local:import/debian-13-genericcloud-amd64.qcow2"`)
	generated = setInGeneratedBlock(t, generated, `resource "pve_container" "ct_203"`, `os_template         = null`,
		`os_template         = "`+ctTemplate+`"`)
	writeAdoptionFile(t, e.dir, "generated.tf", generated)
	r = e.run(e.dir, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	if r.exitCode != 2 || !strings.Contains(r.output, "Plan: 0 to add, 2 to change, 0 to destroy.") {
		t.Fatalf("declaring import_from and os_template after the import should be 2 in-place changes (exit %d):\n%s", r.exitCode, r.output)
	}
	e.mustApply(e.dir, 4)
	checkGuestsUnchanged(t, before, snapshotGuestConfigs(e.sim))
	e.mustPlanEmpty(e.dir)
}

// outputRaw is terraform output -raw NAME > FILE: stdout alone, so that a
// warning on stderr never ends up in the file.
func (e *env) outputRaw(dir, name string) string {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd, _ := e.command(ctx, dir, "output", "-raw", name)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		e.t.Fatalf("terraform output -raw %s: %v\n%s", name, err, stderr.String())
	}
	return stdout.String()
}

func readAdoptionFile(t *testing.T, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// setInGeneratedBlock replaces the first from after header, the opening line of a
// block in generated configuration.
func setInGeneratedBlock(t *testing.T, text, header, from, to string) string {
	t.Helper()
	start := strings.Index(text, header)
	if start < 0 {
		t.Fatalf("generated configuration has no %s:\n%s", header, text)
	}
	at := strings.Index(text[start:], from)
	if at < 0 {
		t.Fatalf("generated %s holds no %q:\n%s", header, from, text[start:])
	}
	at += start
	return text[:at] + to + text[at+len(from):]
}
