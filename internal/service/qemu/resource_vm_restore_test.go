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
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// vmArchive is the VM archive the simulator seeds on every node: scsi0 of
// 16G, scsi1 of 4G, a cloud-init drive on ide2 (user debian, DHCP), 2048
// MiB memory, tags prod and web, description "web server, backed up
// nightly".
const vmArchive = pvesim.SeedQemuBackup

// archiveKept checks the archive's undeclared settings on the VM: the
// undeclared disk, memory, tags, description and cloud-init identity (a
// restore, unlike a clone, keeps it).
func archiveKept(vm *vmRef, wantCores string) statecheck.StateCheck {
	return vm.configCheck(func(c map[string]string) error {
		if c["cores"] != wantCores {
			return fmt.Errorf("declared cores not written: %q", c["cores"])
		}
		if c["memory"] != "2048" || c["tags"] != "prod;web" || c["description"] != "web server, backed up nightly" {
			return fmt.Errorf("archive values not kept: memory=%q tags=%q description=%q", c["memory"], c["tags"], c["description"])
		}
		if c["ciuser"] != "debian" || c["ipconfig0"] != "ip=dhcp" || !strings.Contains(c["ide2"], "cloudinit") {
			return fmt.Errorf("archive cloud-init not kept: ciuser=%q ipconfig0=%q ide2=%q", c["ciuser"], c["ipconfig0"], c["ide2"])
		}
		if !strings.Contains(c["scsi1"], "size=4G") {
			return fmt.Errorf("undeclared scsi1 not kept: %q", c["scsi1"])
		}
		return nil
	})
}

// restoreSentNoDrives checks the restore request: the archive with the
// declared overrides, but no drive, which PVE refuses next to an archive
// ("option conflicts with option 'archive'").
func restoreSentNoDrives(tg *acctest.Target) statecheck.StateCheck {
	return acctest.CheckState(func(*tfjson.State) error {
		for _, rec := range tg.Sim.Requests() {
			if rec.Method != "POST" || rec.Template != "/nodes/{node}/qemu" {
				continue
			}
			if len(rec.Params["archive"]) != 1 || len(rec.Params["cores"]) != 1 {
				return fmt.Errorf("restore request params = %v, want archive and cores", rec.Params)
			}
			for key := range rec.Params {
				if wire.IsDiskSlot(key) {
					return fmt.Errorf("restore request sent drive %s", key)
				}
			}
			return nil
		}
		return fmt.Errorf("no restore request recorded")
	})
}

// W21, W22: a restore declaring cpu and a grown disk restores every disk
// as a new volume, grows the declared one, keeps the undeclared one and
// the archive's settings through an update (the disk keeps its volume);
// each plan afterwards is empty.
func TestAccVMRestoreGrownDiskAndCPUW21W22(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	needsSim(t, tg)
	vm := newVMRef(tg)
	config := func(cores int) string {
		return vmConfig(tg, fmt.Sprintf(`
  node    = "pve1"
  name    = "web-restored"
  restore = { archive = %q, storage = "local-lvm" }
  cpu     = { cores = %d }
  disks   = { scsi0 = { storage = "local-lvm", size = 20 } }
`, vmArchive, cores))
	}
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: config(4),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("name"), knownvalue.StringExact("web-restored")),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("disks"), acctest.NullOrLacks("scsi1")),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("memory"), knownvalue.Null()),
					diskSize(vm, "scsi0", "20G"),
					archiveKept(vm, "4"),
					restoreSentNoDrives(tg),
					vm.record(),
					vm.configCheck(func(c map[string]string) error {
						if !strings.HasPrefix(c["scsi0"], fmt.Sprintf("local-lvm:vm-%d-disk-", vm.VMID)) {
							return fmt.Errorf("scsi0 = %q, want a new volume of the restored VM", c["scsi0"])
						}
						return nil
					}),
				},
			},
			{
				Config: config(3),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					archiveKept(vm, "3"),
					vm.keeps("scsi0", "scsi1"),
					diskSize(vm, "scsi0", "20G"),
				},
			},
		},
	})
}

// W48: a restored VM joins its declared pool and stays in it.
func TestAccVMRestorePoolW48(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	needsSim(t, tg)
	if err := tg.Client.CreatePool(context.Background(), "restored", ""); err != nil {
		t.Fatal(err)
	}
	vm := newVMRef(tg)
	config := func(cores int) string {
		return vmConfig(tg, fmt.Sprintf(`
  node    = "pve1"
  pool    = "restored"
  restore = { archive = %q }
  cpu     = { cores = %d }
`, vmArchive, cores))
	}
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: config(2), ConfigStateChecks: []statecheck.StateCheck{inPool(vm, "restored", true), archiveKept(vm, "2")}},
			{Config: config(1), ConfigStateChecks: []statecheck.StateCheck{inPool(vm, "restored", true), archiveKept(vm, "1")}},
		},
	})
}

// A bad archive is refused at plan time with a message naming
// restore.archive; restore and clone exclude each other.
func TestAccVMRestoreValidation(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	step := func(body string, want *regexp.Regexp) resource.TestStep {
		return resource.TestStep{Config: vmConfig(tg, "  node = \"pve1\"\n"+body), PlanOnly: true, ExpectError: want}
	}
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			step(`  restore = { archive = "local:backup/notes.txt" }`,
				errorLike("Invalid Backup Archive", "not a vzdump backup archive", "restore.archive takes a volume id")),
			step(`  restore = { archive = "`+pvesim.SeedLXCBackup+`" }`,
				errorLike("Invalid Backup Archive", "is a lxc backup", "pve_vm restores only qemu archives")),
			step(`  restore = { archive = "`+vmArchive+`" }
  clone   = { source_vmid = 9000 }`, errorLike("Invalid Attribute Combination", `"clone" cannot be specified when "restore" is specified`)),
		},
	})
}

// W13: the answer to the restore is lost after PVE ran it: the retry finds
// the VM on its VMID and adopts it; exactly one VM is made.
func TestAccVMRestoreLostAnswerW13(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	sim := needsSim(t, tg)
	if err := sim.InjectFault(pvesim.Fault{Method: "POST", Path: "/nodes/{node}/qemu", Action: pvesim.FaultDropAfter, Count: 1}); err != nil {
		t.Fatal(err)
	}
	vm := newVMRef(tg)
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: vmConfig(tg, fmt.Sprintf(`
  node    = "pve1"
  name    = "lost-restore"
  restore = { archive = %q }
`, vmArchive)),
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.CheckState(func(*tfjson.State) error {
					resources, err := tg.Client.ClusterResources(context.Background(), "vm")
					if err != nil {
						return err
					}
					guests := 0
					for _, r := range resources {
						if r.IsGuest() {
							guests++
						}
					}
					if guests != 1 {
						return fmt.Errorf("want exactly one restored VM, PVE has %d", guests)
					}
					if n := sim.Count("POST", "/nodes/{node}/qemu"); n != 1 {
						return fmt.Errorf("want one restore request (the lost one, then adoption), got %d", n)
					}
					return nil
				}),
				vm.configHas(map[string]string{"name": "lost-restore", "description": "web server, backed up nightly"}),
			},
		}},
	})
}

// W27: a restore declaring cloud-init data writes it over the archive's,
// keeps the archive's undeclared cloud-init settings (a restore is that
// guest again, not a clone, W15 does not apply) and never re-sends the
// restored cloud-init drive.
func TestAccVMRestoreCloudInitW27(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	needsSim(t, tg)
	vm := newVMRef(tg)
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: vmConfig(tg, fmt.Sprintf(`
  node       = "pve1"
  restore    = { archive = %q, storage = "local-lvm" }
  cloud_init = { user = "app" }
`, vmArchive)),
			ConfigStateChecks: []statecheck.StateCheck{
				vm.configCheck(func(c map[string]string) error {
					if c["ciuser"] != "app" || c["ipconfig0"] != "ip=dhcp" {
						return fmt.Errorf("ciuser=%q ipconfig0=%q, want the declared user and the archive's address", c["ciuser"], c["ipconfig0"])
					}
					if want := fmt.Sprintf("local-lvm:vm-%d-cloudinit,media=cdrom", vm.VMID); c["ide2"] != want {
						return fmt.Errorf("ide2 = %q, want the restored cloud-init drive %q", c["ide2"], want)
					}
					for _, rec := range tg.Sim.Requests() {
						if strings.HasSuffix(rec.Template, "/config") && rec.Method != "GET" && len(rec.Params["ide2"]) > 0 {
							return fmt.Errorf("W27: the restored cloud-init drive was re-sent: ide2=%v", rec.Params["ide2"])
						}
					}
					return nil
				}),
			},
		}},
	})
}

// A VM template can be made from a backup archive too: restored, then
// marked a template (W17), its disks base volumes.
func TestAccVMTemplateFromRestoreW17(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	needsSim(t, tg)
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: vmTemplateConfig(tg, fmt.Sprintf(`
  node    = "pve1"
  name    = "web-template"
  restore = { archive = %q, storage = "local-lvm" }
`, vmArchive), ""),
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.CheckState(func(state *tfjson.State) error {
					_, vmid, err := acctest.GuestFromState(state, vmTemplateAddr)
					if err != nil {
						return err
					}
					c, err := tg.Client.GuestConfig(context.Background(), "pve1", pveapi.GuestTypeQemu, vmid)
					if err != nil {
						return err
					}
					if c["template"] != "1" || !strings.Contains(c["scsi0"], fmt.Sprintf("base-%d-disk-", vmid)) || c["memory"] != "2048" {
						return fmt.Errorf("template = %q scsi0 = %q memory = %q", c["template"], c["scsi0"], c["memory"])
					}
					return nil
				}),
			},
		}},
	})
}

// W11, W13: an apply killed while PVE restored a VM onto an id it had
// allocated leaves a VM with the planned name and the restore marker that
// no state records. The next apply, with no vmid configured, takes it up
// (reconfigured to the plan, marker removed) instead of restoring again.
func TestAccVMRestoreAdoptsHalfMadeVMW13(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	sim := needsSim(t, tg)
	ctx := context.Background()
	const halfMade = 170
	marker := guestops.RestoreMarker(guestops.VM, vmArchive)
	upid, err := tg.Client.CreateGuest(ctx, "pve1", pveapi.GuestTypeQemu, halfMade, url.Values{
		"archive":     {vmArchive},
		"name":        {"killed-restore"},
		"description": {guestops.WithCloneMarker("web server, backed up nightly", marker)},
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
  node    = "pve1"
  name    = "killed-restore"
  restore = { archive = %q }
  cpu     = { cores = 3 }
`, vmArchive)),
			ConfigStateChecks: []statecheck.StateCheck{
				archiveKept(vm, "3"),
				acctest.CheckState(func(*tfjson.State) error {
					if vm.VMID != halfMade {
						return fmt.Errorf("VMID %d: want the half-made VM %d taken up", vm.VMID, halfMade)
					}
					if n := sim.Count("POST", "/nodes/{node}/qemu"); n != 1 {
						return fmt.Errorf("%d restore requests: want only the planted one", n)
					}
					return nil
				}),
			},
		}},
	})
}
