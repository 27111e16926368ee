package qemu_test

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
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
)

// smallVM is a one-disk VM on node, running unless told otherwise.
func smallVM(node, extra string) string {
	return fmt.Sprintf(`
  node = %q
  name = "tfacc-small"
%s
  disks   = { scsi0 = { storage = "local-lvm", size = 2 } }
  network = { net0 = { bridge = "vmbr0" } }
`, node, extra)
}

// needsSim returns the simulator, for tests that inject faults or count
// requests; against a live node they have nothing to run on.
func needsSim(t *testing.T, tg *acctest.Target) *pvesim.Sim {
	t.Helper()
	if tg.Sim == nil {
		t.Skip("needs the simulator (fault injection or request counts)")
	}
	return tg.Sim
}

func TestAccVM_nodeChangeMigrates(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	vm := newVMRef(tg)

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(vm),
		Steps: []resource.TestStep{
			{Config: vmConfig(tg, smallVM("pve1", "")), ConfigStateChecks: []statecheck.StateCheck{vm.record()}},
			{
				// A running VM with a local disk migrates online with its
				// disk: an update, not a replacement.
				Config: vmConfig(tg, smallVM("pve2", "")),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					vm.keeps("scsi0"),
					acctest.CheckState(func(*tfjson.State) error {
						if vm.Node != "pve2" {
							return fmt.Errorf("VM %d is on %s after the migration", vm.VMID, vm.Node)
						}
						guest, found, err := tg.Client.FindGuest(context.Background(), vm.VMID)
						if err != nil || !found || guest.Node != "pve2" {
							return fmt.Errorf("cluster lists VM %d on %v (found=%v, err=%w)", vm.VMID, guest, found, err)
						}
						return nil
					}),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("node"), knownvalue.StringExact("pve2")),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("status"), knownvalue.StringExact("running")),
				},
			},
		},
	})
}

func TestAccVM_migratedOutsideTerraformIsFollowed(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	vm := newVMRef(tg)

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(vm),
		Steps: []resource.TestStep{
			{Config: vmConfig(tg, smallVM("pve1", "  started = false")), ConfigStateChecks: []statecheck.StateCheck{vm.record()}},
			{
				// Moved behind Terraform's back: refresh finds it on pve3
				// (one cluster lookup after W12 on pve1), and the plan moves it
				// back as configured.
				PreConfig: func() {
					upid, err := tg.Client.MigrateQemu(context.Background(), "pve1", vm.VMID, "pve3", false, true)
					if err == nil {
						_, err = tg.Client.WaitTask(context.Background(), upid)
					}
					if err != nil {
						t.Fatalf("migrate outside Terraform: %v", err)
					}
				},
				Config: vmConfig(tg, smallVM("pve1", "  started = false")),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					vm.keeps("scsi0"),
					acctest.CheckState(func(*tfjson.State) error {
						if vm.Node != "pve1" {
							return fmt.Errorf("VM on %s, want pve1", vm.Node)
						}
						return nil
					}),
				},
			},
		},
	})
}

// destroyOutside removes the VM with the API, as an operator would.
func destroyOutside(t *testing.T, vm *vmRef) {
	t.Helper()
	ctx := context.Background()
	upid, err := vm.tg.Client.GuestStatusAction(ctx, vm.Node, pveapi.GuestTypeQemu, vm.VMID, pveapi.QemuStop, url.Values{"timeout": {"30"}})
	if err == nil {
		_, err = vm.tg.Client.WaitTask(ctx, upid)
	}
	if err == nil {
		upid, err = vm.tg.Client.DeleteGuest(ctx, vm.Node, pveapi.GuestTypeQemu, vm.VMID, true, true)
	}
	if err == nil {
		_, err = vm.tg.Client.WaitTask(ctx, upid)
	}
	if err != nil {
		t.Fatalf("destroy VM %d outside Terraform: %v", vm.VMID, err)
	}
}

func TestAccVM_disappearsW12(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	vm := newVMRef(tg)

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(vm),
		Steps: []resource.TestStep{
			{
				Config: vmConfig(tg, smallVM("pve1", "")),
				ConfigStateChecks: []statecheck.StateCheck{
					vm.record(),
					acctest.CheckState(func(*tfjson.State) error {
						destroyOutside(t, vm)
						return nil
					}),
				},
				// W12: the refresh drops the VM from state; the next plan
				// creates it again.
				ExpectNonEmptyPlan: true,
			},
			{
				Config: vmConfig(tg, smallVM("pve1", "")),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmAddr, plancheck.ResourceActionCreate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{vm.record()},
			},
		},
	})
}

func TestAccVM_protectionBlocksDestroy(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	vm := newVMRef(tg)

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(vm),
		Steps: []resource.TestStep{
			{
				Config: vmConfig(tg, smallVM("pve1", "  protection = true")),
				ConfigStateChecks: []statecheck.StateCheck{
					vm.record(),
					vm.configHas(map[string]string{"protection": "1"}),
				},
			},
			{
				Config:      tg.Config(""),
				ExpectError: regexp.MustCompile(`(?s)VM Is Protected.*Set\s+protection\s+=\s+false\s+and\s+apply`),
			},
			{
				Config: vmConfig(tg, smallVM("pve1", "  protection = false")),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{vm.keeps("scsi0")},
			},
		},
	})
}

// pausedTimeouts also shows that configured timeouts plan no change.
const pausedTimeouts = `  timeouts = { create = "5m", update = "5m", delete = "2m" }`

func TestAccVM_pausedReadsPausedW18(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	vm := newVMRef(tg)

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(vm),
		Steps: []resource.TestStep{
			{Config: vmConfig(tg, smallVM("pve1", pausedTimeouts)), ConfigStateChecks: []statecheck.StateCheck{vm.record()}},
			{
				// W18: a paused VM is status running / qmpstatus paused; it
				// reads as paused and still started, so nothing is planned.
				PreConfig: func() {
					ctx := context.Background()
					upid, err := tg.Client.GuestStatusAction(ctx, vm.Node, pveapi.GuestTypeQemu, vm.VMID, pveapi.QemuSuspend, url.Values{"todisk": {"0"}})
					if err == nil {
						_, err = tg.Client.WaitTask(ctx, upid)
					}
					if err != nil {
						t.Fatalf("pause VM: %v", err)
					}
				},
				Config: vmConfig(tg, smallVM("pve1", pausedTimeouts)),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("status"), knownvalue.StringExact("paused")),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("started"), knownvalue.Bool(true)),
				},
			},
		},
	})
}

func TestAccVM_pendingChangesRebootOrWarn(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	vm := newVMRef(tg)
	pending := func(want bool) statecheck.StateCheck {
		return vm.Check(func() error {
			entries, err := tg.Client.GuestPending(context.Background(), vm.Node, pveapi.GuestTypeQemu, vm.VMID)
			if err != nil {
				return err
			}
			var keys []string
			for _, e := range entries {
				if e.HasPending || e.DeletePending() {
					keys = append(keys, e.Key)
				}
			}
			if (len(keys) > 0) != want {
				return fmt.Errorf("pending keys %v, want pending=%v", keys, want)
			}
			return nil
		})
	}

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(vm),
		Steps: []resource.TestStep{
			{Config: vmConfig(tg, smallVM("pve1", `  bios = "seabios"`)), ConfigStateChecks: []statecheck.StateCheck{vm.record()}},
			{
				// A running VM keeps a firmware change pending: the apply
				// warns, state shows the new value, the plan stays empty.
				Config: vmConfig(tg, smallVM("pve1", `  bios = "ovmf"`)),
				ConfigStateChecks: []statecheck.StateCheck{
					vm.keeps("scsi0"),
					pending(true),
				},
			},
			{
				// With reboot_after_update the VM is rebooted and nothing
				// stays pending.
				Config: vmConfig(tg, smallVM("pve1", "  bios = \"seabios\"\n  reboot_after_update = true")),
				ConfigStateChecks: []statecheck.StateCheck{
					vm.keeps("scsi0"),
					pending(false),
					vm.configHas(map[string]string{"bios": "seabios"}),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("status"), knownvalue.StringExact("running")),
				},
			},
		},
	})
}

func TestAccVM_lostCreateAnswerIsAdoptedW13(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	sim := needsSim(t, tg)
	vm := newVMRef(tg)
	// The create runs, its answer never arrives.
	if err := sim.InjectFault(pvesim.Fault{Method: "POST", Path: "/nodes/{node}/qemu", Action: pvesim.FaultDropAfter, Count: 1}); err != nil {
		t.Fatal(err)
	}

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(vm),
		Steps: []resource.TestStep{
			{
				Config: vmConfig(tg, smallVM("pve1", "")),
				ConfigStateChecks: []statecheck.StateCheck{
					vm.record(),
					acctest.CheckState(func(*tfjson.State) error {
						if n := sim.Count("POST", "/nodes/{node}/qemu"); n != 1 {
							return fmt.Errorf("create sent %d times, want once", n)
						}
						guests, err := tg.Client.ClusterResources(context.Background(), "vm")
						if err != nil {
							return err
						}
						if len(guests) != 1 || guests[0].VMID.Int() != vm.VMID {
							return fmt.Errorf("want exactly VM %d, cluster has %v", vm.VMID, guests)
						}
						return nil
					}),
				},
			},
		},
	})
}

func TestAccVM_allocatedVMIDRaceMovesOnW13(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	sim := needsSim(t, tg)
	vm := newVMRef(tg)
	// Another creator takes the first proposed id between nextid and the
	// create.
	if err := sim.InjectFault(pvesim.Fault{
		Method: "POST", Path: "/nodes/{node}/qemu", Action: pvesim.FaultRespond, Status: 500,
		Message: "unable to create VM 100 - VM 100 already exists on node 'pve2'", Count: 1,
	}); err != nil {
		t.Fatal(err)
	}

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(vm),
		Steps: []resource.TestStep{
			{
				Config: vmConfig(tg, smallVM("pve1", "")),
				ConfigStateChecks: []statecheck.StateCheck{
					vm.record(),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("vmid"), knownvalue.Int64Exact(101)),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("id"), knownvalue.StringExact("101")),
				},
			},
		},
	})
}

func TestAccVM_configuredVMIDTakenW13(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	sim := needsSim(t, tg)
	if err := sim.AddGuest(pvesim.Guest{VMID: 150, Node: "pve2", Type: pvesim.QEMU, Config: map[string]string{"name": "someone-else"}}); err != nil {
		t.Fatal(err)
	}

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config:      vmConfig(tg, smallVM("pve1", "  vmid = 150")),
				ExpectError: regexp.MustCompile(`(?s)VMID Already In Use.*VMID\s+150\s+is\s+taken`),
			},
		},
	})
	if g, ok := sim.Guest(150); !ok || g.Node != "pve2" || g.Config["name"] != "someone-else" {
		t.Errorf("the other guest must stay untouched: %+v", g)
	}
}

func TestAccVM_requestsPerRefresh(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	sim := needsSim(t, tg)
	vm := newVMRef(tg)
	onlyReads := func() {
		for _, r := range sim.Requests() {
			if r.Method != "GET" {
				t.Errorf("a no-op plan wrote: %s %s", r.Method, r.Path)
			}
		}
	}

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(vm),
		Steps: []resource.TestStep{
			{Config: vmConfig(tg, smallVM("pve1", "")), ConfigStateChecks: []statecheck.StateCheck{vm.record()}},
			{
				// One refresh of a VM whose node is in state: GET config and
				// GET status/current, nothing else (no cluster listing, no
				// guest agent).
				PreConfig:    sim.ResetCounters,
				RefreshState: true,
				Check: func(*terraform.State) error {
					var got []string
					for _, r := range sim.Requests() {
						got = append(got, r.Method+" "+r.Template)
					}
					want := []string{"GET /nodes/{node}/qemu/{vmid}/config", "GET /nodes/{node}/qemu/{vmid}/status/current"}
					if fmt.Sprint(got) != fmt.Sprint(want) {
						return fmt.Errorf("refresh made %v, want %v", got, want)
					}
					return nil
				},
			},
			{
				PreConfig: sim.ResetCounters,
				Config:    vmConfig(tg, smallVM("pve1", "")),
				PlanOnly:  true,
			},
			{
				// The plan of the step before sent no writes.
				PreConfig:    onlyReads,
				RefreshState: true,
			},
		},
	})
}

func TestAccVM_badInputAtPlan(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	// The attribute-by-attribute table runs without Terraform (see
	// TestVMSchemaRejectsBadInput); these go through the CLI end to end.
	cases := []struct {
		body string
		want string
	}{
		{smallVM("pve1", `  tags = ["bad tag"]`), `(?s)Invalid Tag.*"bad tag"`},
		{`
  node  = "pve1"
  disks = { virtio0 = { storage = "local-lvm", size = 2, ssd = true } }
`, `(?s)SSD Emulation Not Supported On This Bus.*virtio\s+bus`},
		{smallVM("pve1", `  vmid = 99`), `vmid value must be between 100 and 999999999`},
		{`
  node  = "pve1"
  disks = { scsi0 = { storage = "local-lvm", size = "lots" } }
`, `Invalid Disk Size`},
	}
	steps := make([]resource.TestStep, 0, len(cases))
	for _, c := range cases {
		steps = append(steps, resource.TestStep{
			Config:      vmConfig(tg, c.body),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(c.want),
		})
	}
	tg.Run(t, resource.TestCase{Steps: steps})
}
