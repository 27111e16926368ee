package qemu_test

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// templateVMID is the template the clone tests start from.
const templateVMID = 9000

// makeTemplate creates a VM template directly through the API, with a
// cloud-init identity of its own, so the tests depend on no template
// resource.
func makeTemplate(t *testing.T, tg *acctest.Target, node, storage string) {
	t.Helper()
	ctx := context.Background()
	form := url.Values{
		"name":         {"tmpl-base"},
		"description":  {"golden image"},
		"tags":         {"base"},
		"cores":        {"2"},
		"memory":       {"1024"},
		"scsihw":       {"virtio-scsi-single"},
		"scsi0":        {storage + ":2"},
		"scsi1":        {storage + ":1"},
		"net0":         {"virtio,bridge=vmbr0"},
		"ide2":         {storage + ":cloudinit"},
		"ciuser":       {"tmpluser"},
		"cipassword":   {"tmplsecret"},
		"sshkeys":      {wire.EncodeSSHKeys([]string{"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEB tmpl@example"})},
		"ipconfig0":    {"ip=192.0.2.50/24,gw=192.0.2.1"},
		"searchdomain": {"tmpl.example"},
	}
	upid, err := tg.Client.CreateGuest(ctx, node, pveapi.GuestTypeQemu, templateVMID, form)
	if err != nil {
		t.Fatalf("create template VM: %v", err)
	}
	if _, err := tg.Client.WaitTask(ctx, upid); err != nil {
		t.Fatalf("create template VM: %v", err)
	}
	upid, err = tg.Client.TemplateQemu(ctx, node, templateVMID, "")
	if err != nil {
		t.Fatalf("mark template: %v", err)
	}
	if _, err := tg.Client.WaitTask(ctx, upid); err != nil {
		t.Fatalf("mark template: %v", err)
	}
}

// undeclaredIdentityKeys are the template's cloud-init identity keys the
// clone test does not declare: the clone must not inherit them (W15).
var undeclaredIdentityKeys = []string{"cipassword", "ipconfig0", "searchdomain", "nameserver", "cicustom"}

// configCheck runs check on the VM's config in PVE.
func (v *vmRef) configCheck(check func(config map[string]string) error) statecheck.StateCheck {
	return v.Check(func() error {
		config, err := v.config()
		if err != nil {
			return err
		}
		return check(config)
	})
}

// W14, W15, W27: a clone declaring cpu, a grown disk and cloud-init plans
// empty afterwards, carries none of the template's identity, keeps the
// inherited cloud-init drive and the undeclared disk, and loses the
// creation marker once created.
func TestAccVMCloneDeclaredOverridesW14W15W27(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	makeTemplate(t, tg, "pve1", "local-lvm")
	vm := newVMRef(tg)
	config := func(cores int, extra string) string {
		return vmConfig(tg, fmt.Sprintf(`
  node  = "pve1"
  name  = "app-1"
  clone = { source_vmid = %d }
  cpu   = { cores = %d }
  disks = { scsi0 = { storage = "local-lvm", size = 4 } }
  cloud_init = { user = "app", ssh_keys = ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIC app@example"] }
%s`, templateVMID, cores, extra))
	}
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: config(4, ""),
				ConfigStateChecks: []statecheck.StateCheck{
					vm.configCheck(func(c map[string]string) error {
						if c["cores"] != "4" || c["ciuser"] != "app" {
							return fmt.Errorf("declared values not written: cores=%q ciuser=%q", c["cores"], c["ciuser"])
						}
						for _, key := range undeclaredIdentityKeys {
							if _, has := c[key]; has {
								return fmt.Errorf("W15: inherited %s = %q survived", key, c[key])
							}
						}
						if strings.Contains(c["sshkeys"], "tmpl") {
							return fmt.Errorf("W15: template key survived: %s", c["sshkeys"])
						}
						if !strings.Contains(c["ide2"], "cloudinit") {
							return fmt.Errorf("W27: inherited cloud-init drive gone: ide2=%q", c["ide2"])
						}
						if c["memory"] != "1024" || c["tags"] != "base" || c["description"] != "golden image" {
							return fmt.Errorf("inherited values not kept: memory=%q tags=%q description=%q", c["memory"], c["tags"], c["description"])
						}
						if _, has := c["scsi1"]; !has {
							return fmt.Errorf("inherited scsi1 removed")
						}
						if !strings.Contains(c["scsi0"], "size=4G") {
							return fmt.Errorf("scsi0 not grown: %s", c["scsi0"])
						}
						if tg.Sim != nil {
							for _, rec := range tg.Sim.Requests() {
								if strings.HasSuffix(rec.Template, "/config") && rec.Method != "GET" && len(rec.Params["ide2"]) > 0 {
									return fmt.Errorf("W27: the inherited cloud-init drive was re-sent: %s %s ide2=%v", rec.Method, rec.Path, rec.Params["ide2"])
								}
							}
						}
						return nil
					}),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("memory"), knownvalue.Null()),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("disks"), acctest.NullOrLacks("scsi1")),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("description"), knownvalue.Null()),
				},
			},
			{
				// Every update leaves the inherited disk alone.
				Config: config(6, `  memory = { size = 2048 }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					vm.configCheck(func(c map[string]string) error {
						if c["cores"] != "6" || c["memory"] != "2048" {
							return fmt.Errorf("update not written: cores=%q memory=%q", c["cores"], c["memory"])
						}
						if _, has := c["scsi1"]; !has {
							return fmt.Errorf("inherited scsi1 removed by an update")
						}
						return nil
					}),
				},
			},
			{
				Config: vmConfig(tg, fmt.Sprintf(`
  node  = "pve1"
  name  = "app-1"
  clone = { source_vmid = %d }
  cpu   = { cores = 6 }
  memory = { size = 2048 }
  disks = { scsi0 = { storage = "local-lvm", size = 6 } }
  cloud_init = { user = "app", ssh_keys = ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIC app@example"] }
  tags  = ["app"]
`, templateVMID)),
				ConfigStateChecks: []statecheck.StateCheck{
					vm.configCheck(func(c map[string]string) error {
						if _, has := c["scsi1"]; !has {
							return fmt.Errorf("inherited scsi1 removed by an update")
						}
						if !strings.Contains(c["scsi0"], "size=6G") || c["tags"] != "app" {
							return fmt.Errorf("update not written: scsi0=%q tags=%q", c["scsi0"], c["tags"])
						}
						return nil
					}),
				},
			},
		},
	})
}

// W13: ten clones of one template at once (the test runner applies with
// parallelism 10) take ten distinct VMIDs without an error.
func TestAccVMCloneTenAtOnceW13(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	makeTemplate(t, tg, "pve1", "local-lvm")
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: tg.Config(fmt.Sprintf(`
resource "pve_vm" "fleet" {
  count = 10
  node  = "pve1"
  name  = "fleet-${count.index}"
  clone = { source_vmid = %d }
}
`, templateVMID)),
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.CheckState(func(state *tfjson.State) error {
					seen := map[int]bool{}
					for i := 0; i < 10; i++ {
						_, id, err := acctest.GuestFromState(state, fmt.Sprintf("pve_vm.fleet[%d]", i))
						if err != nil {
							return err
						}
						if seen[id] {
							return fmt.Errorf("VMID %d taken twice", id)
						}
						seen[id] = true
					}
					return nil
				}),
			},
		}},
	})
}

// W14: across nodes. From shared storage PVE clones straight to the
// target node; from local storage the clone is made on the source node
// and migrated with its disks.
func TestAccVMCloneAcrossNodesW14(t *testing.T) {
	t.Parallel()
	for _, storage := range []string{"shared-nfs", "local-lvm"} {
		t.Run(storage, func(t *testing.T) {
			t.Parallel()
			tg := acctest.New(t)
			makeTemplate(t, tg, "pve1", storage)
			vm := newVMRef(tg)
			tg.Run(t, resource.TestCase{
				Steps: []resource.TestStep{{
					Config: vmConfig(tg, fmt.Sprintf(`
  node  = "pve2"
  name  = "far-1"
  clone = { source_vmid = %d, source_node = "pve1" }
`, templateVMID)),
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("node"), knownvalue.StringExact("pve2")),
						vm.configCheck(func(c map[string]string) error {
							if vm.Node != "pve2" || c["name"] != "far-1" {
								return fmt.Errorf("clone on %s named %q", vm.Node, c["name"])
							}
							return nil
						}),
					},
				}},
			})
		})
	}
}

// W13: the answer to the clone request is lost after PVE ran it: the retry
// finds the clone on the new VMID and adopts it; exactly one VM is made.
func TestAccVMCloneLostAnswerW13(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	sim := needsSim(t, tg)
	makeTemplate(t, tg, "pve1", "local-lvm")
	if err := sim.InjectFault(pvesim.Fault{Method: "POST", Path: "/nodes/{node}/qemu/{vmid}/clone", Action: pvesim.FaultDropAfter, Count: 1}); err != nil {
		t.Fatal(err)
	}
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: vmConfig(tg, fmt.Sprintf(`
  node  = "pve1"
  name  = "lost-1"
  clone = { source_vmid = %d }
`, templateVMID)),
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.CheckState(func(*tfjson.State) error {
					resources, err := tg.Client.ClusterResources(context.Background(), "vm")
					if err != nil {
						return err
					}
					guests := 0
					for _, r := range resources {
						if r.IsGuest() && r.VMID.Int() != templateVMID {
							guests++
						}
					}
					if guests != 1 {
						return fmt.Errorf("want exactly one clone, PVE has %d", guests)
					}
					if n := sim.Count("POST", "/nodes/{node}/qemu/{vmid}/clone"); n != 1 {
						return fmt.Errorf("want one clone request (the lost one, then adoption), got %d", n)
					}
					return nil
				}),
			},
		}},
	})
}

// W14: a linked clone of a template on thin storage shares its base
// volumes; a linked clone with a target storage is PVE's refusal, shown as
// PVE words it.
func TestAccVMLinkedCloneW14(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	makeTemplate(t, tg, "pve1", "local-lvm")
	vm := newVMRef(tg)
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: vmConfig(tg, fmt.Sprintf(`
  node  = "pve1"
  name  = "linked-1"
  clone = { source_vmid = %d, full = false, storage = "shared-nfs" }
`, templateVMID)),
				ExpectError: regexp.MustCompile(`(?s)storage.*not\s+allowed\s+for\s+linked\s+clones`),
			},
			{
				Config: vmConfig(tg, fmt.Sprintf(`
  node  = "pve1"
  name  = "linked-1"
  clone = { source_vmid = %d, full = false }
`, templateVMID)),
				ConfigStateChecks: []statecheck.StateCheck{
					vm.configCheck(func(c map[string]string) error {
						if tg.Sim == nil {
							return nil
						}
						volid, _, _ := strings.Cut(c["scsi0"], ",")
						for _, v := range tg.Sim.Volumes("local-lvm") {
							if v.VolID == volid && v.Base != "" {
								return nil
							}
						}
						return fmt.Errorf("scsi0 %s is not backed by the template's base volume", volid)
					}),
				},
			},
		},
	})
}

// W11, W13: an apply that died after PVE cloned leaves a guest with the
// planned name and the creation marker on the configured VMID; the next
// apply adopts it instead of failing or cloning again, and removes the
// marker.
func TestAccVMCloneAdoptsHalfMadeCloneW13(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	needsSim(t, tg)
	makeTemplate(t, tg, "pve1", "local-lvm")
	ctx := context.Background()
	upid, err := tg.Client.CloneGuest(ctx, "pve1", pveapi.GuestTypeQemu, templateVMID, url.Values{
		"newid":       {"150"},
		"name":        {"crash-1"},
		"full":        {"1"},
		"description": {guestops.WithCloneMarker("golden image", guestops.CloneMarker(guestops.VM, templateVMID))},
	})

	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Client.WaitTask(ctx, upid); err != nil {
		t.Fatal(err)
	}
	vm := newVMRef(tg)
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: vmConfig(tg, fmt.Sprintf(`
  node  = "pve1"
  vmid  = 150
  name  = "crash-1"
  clone = { source_vmid = %d }
`, templateVMID)),
			ConfigStateChecks: []statecheck.StateCheck{
				vm.configCheck(func(c map[string]string) error {
					if vm.VMID != 150 || c["description"] != "golden image" {
						return fmt.Errorf("VMID %d, description %q: want the adopted 150 without its marker", vm.VMID, c["description"])
					}
					if n := tg.Sim.Count("POST", "/nodes/{node}/qemu/{vmid}/clone"); n != 1 {
						return fmt.Errorf("want only the crashed apply's clone request, got %d", n)
					}
					return nil
				}),
			},
		}},
	})
}

// W13: a clone onto a vmid another node's guest holds is accepted by PVE
// (its check before the task looks at its own node only); the task fails.
// The apply says the vmid is taken, records nothing, and the other guest
// is untouched: a tainted state would have the next apply destroy it.
func TestAccVMCloneOntoVMIDTakenOnAnotherNodeW13(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	needsSim(t, tg)
	makeTemplate(t, tg, "pve1", "local-lvm")
	other := createVMOutside(t, tg, "pve2", url.Values{"name": {"elsewhere"}})
	tg.Run(t, resource.TestCase{
		CheckDestroy: func(*terraform.State) error {
			config, err := tg.Client.GuestConfig(context.Background(), "pve2", pveapi.GuestTypeQemu, other)
			if err != nil {
				return fmt.Errorf("the other node's VM %d: %w", other, err)
			}
			if config["name"] != "elsewhere" {
				return fmt.Errorf("the other node's VM %d is now %q", other, config["name"])
			}
			return nil
		},
		Steps: []resource.TestStep{{
			Config: vmConfig(tg, fmt.Sprintf(`
  node  = "pve1"
  vmid  = %d
  name  = "clone-onto-taken"
  clone = { source_vmid = %d }
`, other, templateVMID)),
			ExpectError: errorLike("VMID Already In Use", fmt.Sprintf("VMID %d is held by another guest", other)),
		}},
	})
}
