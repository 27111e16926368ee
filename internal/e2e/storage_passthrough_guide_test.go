package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// storageGuideDir is the guide's examples directory.
const storageGuideDir = "cluster-storage-and-passthrough"

// storageGuideFiles are the guide's configuration files, in the order the
// guide shows them.
var storageGuideFiles = []string{"providers.tf", "storage.tf", "mappings.tf", "guests.tf", "container.tf"}

// storageGuideText is the guide's template.
func storageGuideText(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "templates", "guides", storageGuideDir+".md.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// storageGuideBlock is the code block of the guide that follows intro.
func storageGuideBlock(t *testing.T, intro string) string {
	t.Helper()
	_, block, ok := strings.Cut(storageGuideText(t), intro+"\n\n```")
	if ok {
		_, block, ok = strings.Cut(block, "\n")
	}
	if ok {
		block, _, ok = strings.Cut(block, "```")
	}
	if !ok {
		t.Fatalf("the guide no longer shows a code block after %q", intro)
	}
	return block
}

// storageGuide is the guide's working directory and the environment its
// runs take: the connection with the token, and the variables the guide's
// providers.tf and storage.tf declare.
type storageGuide struct {
	e     *env
	dir   string
	token string
	files map[string]string
	vars  map[string]string
}

func (g *storageGuide) environ() []string {
	out := []string{"PVE_ENDPOINT=" + g.e.endpoint, "PVE_CA_FILE=" + g.e.caFile, "PVE_API_TOKEN=" + g.token}
	for k, v := range g.vars {
		out = append(out, "TF_VAR_"+k+"="+v)
	}
	return out
}

// write puts the files in the working directory as they stand.
func (g *storageGuide) write() {
	g.e.t.Helper()
	for name, body := range g.files {
		path := filepath.Join(g.dir, name)
		if body == "" {
			_ = os.Remove(path)
			continue
		}
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			g.e.t.Fatal(err)
		}
	}
}

// edit replaces one text of a file, which must hold it exactly once.
func (g *storageGuide) edit(file, from, to string) {
	g.e.t.Helper()
	g.files[file] = replaceInConfig(g.e.t, g.files[file], from, to)
}

func (g *storageGuide) run(args ...string) tfResult {
	g.e.t.Helper()
	g.write()
	return g.e.runWith(g.dir, g.environ(), args...)
}

// apply applies and checks the summary line, then checks the next plan is
// empty. It returns the apply's output with its white space folded.
func (g *storageGuide) apply(summary string) string {
	g.e.t.Helper()
	r := g.run("apply", "-auto-approve", "-input=false", "-no-color", "-parallelism=4")
	if r.exitCode != 0 {
		g.e.t.Fatalf("apply failed (exit %d):\n%s", r.exitCode, r.output)
	}
	if !strings.Contains(r.output, summary) {
		g.e.t.Errorf("apply should report %q:\n%s", summary, r.output)
	}
	g.planEmpty()
	return strings.Join(strings.Fields(r.output), " ")
}

func (g *storageGuide) planEmpty() {
	g.e.t.Helper()
	if r := g.run("plan", "-detailed-exitcode", "-input=false", "-no-color"); r.exitCode != 0 {
		g.e.t.Fatalf("plan after apply is not empty (exit %d):\n%s", r.exitCode, r.output)
	}
}

// refused runs a plan (or destroy) that must fail with each of the texts;
// shown are texts the guide shows too.
func (g *storageGuide) refused(what string, args []string, shown []string, texts ...string) {
	g.e.t.Helper()
	guide := strings.Join(strings.Fields(storageGuideText(g.e.t)), " ")
	for _, text := range shown {
		if !strings.Contains(guide, text) {
			g.e.t.Errorf("%s: the guide should show %q", what, text)
		}
	}
	texts = append(texts, shown...)
	r := g.run(args...)
	if r.exitCode == 0 {
		g.e.t.Fatalf("%s was not refused:\n%s", what, r.output)
	}
	out := strings.Join(strings.Fields(r.output), " ")
	for _, text := range texts {
		if !strings.Contains(out, text) {
			g.e.t.Errorf("%s: the error should say %q:\n%s", what, text, r.output)
		}
	}
}

// stateHasNone fails when the state file holds any of the secrets.
func (g *storageGuide) stateHasNone(secrets ...string) {
	g.e.t.Helper()
	data, err := os.ReadFile(filepath.Join(g.dir, "terraform.tfstate"))
	if err != nil {
		g.e.t.Fatal(err)
	}
	for _, s := range secrets {
		if strings.Contains(string(data), s) {
			g.e.t.Errorf("the state holds a secret (%d characters)", len(s))
		}
	}
}

// The guide "Building a cluster's storage and passthrough hardware",
// followed as written: an administrator's run of the least-privilege token
// guide, with the features this guide names, makes the token; the guide's
// files then create under it an NFS share, a ZFS pool for two nodes, a PBS
// datastore with a write-only password, a PCI, a USB and a directory
// mapping, a VM using the three mappings, and (as root@pam) a container
// with a host device, with an empty plan after every apply and no secret
// in state. The reader's edits follow: the PBS password rotates, pve3
// joins the directory mapping, the VM's share gets another cache policy.
// The refusals the guide shows appear with its words, and the teardown in
// the guide's order leaves no storage, mapping or guest behind.
func TestClusterStorageGuide(t *testing.T) {
	t.Parallel()
	testClusterStorageGuide(t, "")
}

// The same guide on PVE 8.4, which has directory mappings and virtiofs
// too: the guide says it works the same there.
func TestClusterStorageGuide_pve84(t *testing.T) {
	t.Parallel()
	testClusterStorageGuide(t, "8.4")
}

func testClusterStorageGuide(t *testing.T, version string) {
	e := newEnv(t, envOptions{sim: pvesim.Options{PVEVersion: version}})

	admin := replaceInConfig(t, exampleFile(t, "least-privilege-token", "terraform-user.tf"),
		"data \"pve_provider_privileges\" \"terraform\" {}\n",
		storageGuideBlock(t, "ask for these features in its `pve_provider_privileges` data source:"))
	e.write(e.dir, admin)
	e.mustApply(e.dir, 4)
	token := e.outputRaw(e.dir, "api_token")

	g := &storageGuide{e: e, dir: e.workdir("guide"), token: token, files: map[string]string{},
		vars: map[string]string{"root_password": e.rootPassword, "pbs_password": "first-" + randomHex(t, 8)}}
	for _, name := range storageGuideFiles {
		g.files[name] = exampleFile(t, storageGuideDir, name)
	}
	firstPassword := g.vars["pbs_password"]
	g.apply("Apply complete! Resources: 8 added, 0 changed, 0 destroyed.")
	g.stateHasNone(firstPassword, e.rootPassword, token)

	e.sim.View(func(c *pvesim.Cluster) {
		pbs := c.Storage("pbs")
		if pbs == nil || pbs.Secrets["password"] != firstPassword {
			t.Errorf("the PBS storage should hold the password from TF_VAR_pbs_password (storage found: %v)", pbs != nil)
		}
		if fast := c.Storage("fast"); fast == nil || strings.Join(fast.Nodes, ",") != "pve1,pve2" {
			t.Errorf("the ZFS pool should be restricted to pve1 and pve2: %+v", fast)
		}
		for _, kind := range []string{pvesim.MappingPCI, pvesim.MappingUSB, pvesim.MappingDir} {
			if n := len(c.Mappings.Kinds[kind]); n != 1 {
				t.Errorf("%d %s mappings, want 1", n, kind)
			}
		}
	})
	vm, ct := storageGuideGuests(e)
	if vm == nil || ct == nil {
		t.Fatalf("the guide's VM and container: %v, %v", vm, ct)
	}
	for key, want := range map[string]string{"hostpci0": "mapping=gpu", "usb0": "mapping=dongle", "virtiofs0": "datasets", "scsi0": "fast:"} {
		if !strings.Contains(vm.Config[key], want) {
			t.Errorf("the VM's %s = %q, want it to hold %q", key, vm.Config[key], want)
		}
	}
	vmid := vm.VMID
	if vm.Status != "running" {
		t.Errorf("the VM is %s, want running", vm.Status)
	}
	if !strings.Contains(ct.Config["dev0"], "/dev/ttyUSB0") || !strings.HasPrefix(ct.Config["rootfs"], "fast:") {
		t.Errorf("the container's dev0 = %q, rootfs = %q", ct.Config["dev0"], ct.Config["rootfs"])
	}

	// The PBS password rotates: a new TF_VAR_pbs_password and the
	// version the guide shows, in place.
	g.vars["pbs_password"] = "second-" + randomHex(t, 8)
	g.edit("storage.tf", "  password_wo_version = 1\n", storageGuideBlock(t, "raise the version in `storage.tf`:"))
	if r := g.run("plan", "-input=false", "-no-color", "-out=rotate.tfplan"); r.exitCode != 0 {
		t.Fatalf("the rotation's plan failed (exit %d):\n%s", r.exitCode, r.output)
	}
	r := g.run("show", "-json", "rotate.tfplan")
	if r.exitCode != 0 || !strings.Contains(r.output, `"password_wo_version"`) {
		t.Fatalf("show the rotation's plan (exit %d):\n%s", r.exitCode, r.output)
	}
	if strings.Contains(r.output, g.vars["pbs_password"]) || strings.Contains(r.output, firstPassword) {
		t.Error("the rotation's plan holds the PBS password")
	}
	g.apply("Resources: 0 added, 1 changed, 0 destroyed.")
	g.stateHasNone(firstPassword, g.vars["pbs_password"], e.rootPassword, token)
	e.sim.View(func(c *pvesim.Cluster) {
		if pbs := c.Storage("pbs"); pbs == nil || pbs.Secrets["password"] != g.vars["pbs_password"] {
			t.Errorf("the PBS storage should hold the new password")
		}
	})

	// pve3 joins the directory mapping, in place.
	g.edit("mappings.tf", "    pve2 = { path = \"/srv/datasets\" }\n",
		"    pve2 = { path = \"/srv/datasets\" }\n"+storageGuideBlock(t, "add it to `pve_dir_mapping.datasets`:"))
	g.apply("Resources: 0 added, 1 changed, 0 destroyed.")
	e.sim.View(func(c *pvesim.Cluster) {
		if mp := c.Mappings.Kinds[pvesim.MappingDir]["datasets"]; mp == nil || len(mp.Map) != 3 {
			t.Errorf("the directory mapping should have an entry for each of the three nodes: %+v", mp)
		}
	})

	// Another cache policy for the VM's share, in place.
	g.edit("guests.tf", "    virtiofs0 = { mapping = pve_dir_mapping.datasets.id, cache = \"auto\" }\n",
		storageGuideBlock(t, "another cache policy for the share:"))
	out := g.apply("Resources: 0 added, 1 changed, 0 destroyed.")
	if vm, _ := storageGuideGuests(e); vm == nil || vm.Pending["virtiofs0"] != "datasets,cache=always" {
		t.Errorf("the VM's share should wait for the next start with cache=always: %+v", vm)
	}
	// The guide shows the warning's summary and text, without the lines
	// that point at the configuration.
	for _, part := range strings.Split(storageGuideBlock(t, "the apply warns, and the plan after is empty:"), "\n\n") {
		want := strings.Replace(strings.Join(strings.Fields(part), " "), "VM 101", fmt.Sprintf("VM %d", vmid), 1)
		if !strings.Contains(out, want) {
			t.Errorf("the apply should warn as the guide shows (%q):\n%s", want, out)
		}
	}

	// Refused at plan time, as the guide shows: a raw USB device under
	// the token, a container device without the root provider, replacing
	// and destroying the storage that holds the guests' disks.
	plan := []string{"plan", "-input=false", "-no-color"}
	guests := g.files["guests.tf"]
	g.edit("guests.tf", "    usb0 = { mapping = pve_usb_mapping.dongle.id, usb3 = true }\n",
		"    usb0 = { mapping = pve_usb_mapping.dongle.id, usb3 = true }\n"+storageGuideBlock(t, "instead of a mapping, such as"))
	g.edit("guests.tf", "    hostpci0 = { mapping = pve_pci_mapping.gpu.id, pcie = true }\n",
		"    hostpci0 = { mapping = pve_pci_mapping.gpu.id, pcie = true }\n    hostpci1 = { device = \"0000:02:00\" }\n")
	g.refused("a raw USB and PCI device under the token", plan,
		[]string{"Error: Raw USB Passthrough Needs root@pam", "Raw PCI Passthrough Needs root@pam"}, "set usb1 with a host USB device", "pve_usb_mapping", "Mapping.Use on /mapping/usb/NAME")
	g.files["guests.tf"] = guests

	container := g.files["container.tf"]
	g.edit("container.tf", "  provider = pve.root\n\n", "")
	g.edit("container.tf", `mode = "0660"`, `mode = "0600"`)
	g.refused("a container device under the token", plan, []string{"Error: Option Needs root@pam"}, "devices.dev0", "API tokens are refused")
	g.files["container.tf"] = container

	storage := g.files["storage.tf"]
	g.edit("storage.tf", `pool    = "tank/guests"`, `pool    = "tank/other"`)
	g.refused("replacing the ZFS pool's definition", plan,
		[]string{"Warning: Storage Definition Replaced", "Replacing storage fast would leave guest disks"}, "Error: Storage Holds Guest Disks", "fast:vm-101-disk-0")
	g.files["storage.tf"] = storage

	destroy := []string{"destroy", "-auto-approve", "-input=false", "-no-color"}
	g.refused("destroying everything at once", destroy,
		[]string{"Error: Storage Holds Guest Disks", "Destroying storage fast would leave guest disks on a storage PVE no longer knows:", "allow_destroy_with_guest_volumes"},
		"fast:vm-101-disk-0")
	g.planEmpty()
	if vm, ct := storageGuideGuests(e); vm == nil || ct == nil {
		t.Fatal("a refused destroy removed a guest")
	}

	// Taken down in the guide's order: the guests, then the rest.
	for _, line := range strings.Split(strings.TrimSpace(storageGuideBlock(t, "Remove the\nguests first, then the rest:")), "\n") {
		args := strings.Fields(line)
		if len(args) < 2 || args[0] != "terraform" || args[1] != "destroy" {
			t.Fatalf("the guide's step %q is not a terraform destroy", line)
		}
		r := g.run(append(args[1:], "-auto-approve", "-input=false", "-no-color")...)
		if r.exitCode != 0 {
			t.Fatalf("%s failed (exit %d):\n%s", line, r.exitCode, r.output)
		}
		if strings.Contains(line, "-target") && !strings.Contains(strings.Join(strings.Fields(r.output), " "), "exceptional") {
			t.Errorf("the guide says Terraform warns that -target is for exceptional cases:\n%s", r.output)
		}
	}
	e.sim.View(func(c *pvesim.Cluster) {
		for _, id := range []string{"isos", "fast", "pbs"} {
			if c.Storage(id) != nil {
				t.Errorf("storage %s is left after destroy", id)
			}
		}
		if len(c.Guests) != 0 {
			t.Errorf("%d guests left after destroy", len(c.Guests))
		}
		for kind, set := range c.Mappings.Kinds {
			if len(set) != 0 {
				t.Errorf("%d %s mappings left after destroy", len(set), kind)
			}
		}
	})
	g.stateHasNone(firstPassword, g.vars["pbs_password"], e.rootPassword, token)
}

// storageGuideGuests are copies of the guide's VM and container.
func storageGuideGuests(e *env) (vm, ct *pvesim.Guest) {
	e.sim.View(func(c *pvesim.Cluster) {
		for _, g := range c.Guests {
			copied := *g
			switch {
			case g.Config["name"] == "trainer":
				vm = &copied
			case g.Config["hostname"] == "zigbee2mqtt":
				ct = &copied
			}
		}
	})
	return vm, ct
}
