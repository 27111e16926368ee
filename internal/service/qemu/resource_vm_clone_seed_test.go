package qemu_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// seedTemplate is a template whose cloud-init is a seed ISO on node's
// local storage (W32).
func seedTemplate(node string) string {
	return fmt.Sprintf(`
resource "pve_vm_template" "seeded" {
  vmid       = %d
  node       = %q
  name       = "tpl-seeded"
  disks      = { scsi0 = { storage = "local-lvm", size = 4 } }
  cloud_init = { user_data = "#cloud-config\npackages: [htop]\n", seed_storage = "local" }
}
`, templateVMID, node)
}

// seedClone is a clone of the seeded template; ci is its cloud_init line.
// With the template in the configuration it depends on it.
func seedClone(label, node, ci string, withTemplate bool) string {
	dependsOn := ""
	if withTemplate {
		dependsOn = "  depends_on = [pve_vm_template.seeded]"
	}
	return fmt.Sprintf(`
resource "pve_vm" %q {
  node  = %q
  name  = %q
  clone = { source_vmid = %d }
%s
%s
}
`, label, node, label, templateVMID, ci, dependsOn)
}

const ownSeed = `  cloud_init = { user_data = "#cloud-config\npackages: [curl]\n", seed_storage = "local" }`

// seedVolume finds a seed ISO volume in the simulator's local storage.
func seedVolume(tg *acctest.Target, node string, owner int) (userData string, found bool) {
	volid := fmt.Sprintf("local:iso/pve-seed-%d.iso", owner)
	for _, v := range tg.Sim.Volumes("local") {
		if v.VolID == volid && v.Node == node {
			if v.Seed != nil && v.Seed.Parsed != nil {
				userData = string(v.Seed.Parsed.Files["user-data"])
			}
			return userData, true
		}
	}
	return "", false
}

// cdromVolumes lists the ISO volumes a VM has in cdrom slots.
func cdromVolumes(tg *acctest.Target, node string, vmid int) ([]string, error) {
	config, err := tg.Client.GuestConfig(context.Background(), node, pveapi.GuestTypeQemu, vmid)
	if err != nil {
		return nil, err
	}
	var volumes []string
	for slot, value := range config {
		drive, err := wire.ParseDrive(value)
		if err == nil && wire.IsCDROM(drive) && drive.Storage != "" {
			volumes = append(volumes, slot+"="+drive.VolumeID())
		}
	}
	return volumes, nil
}

// W15, W32: a template's seed ISO and its clones. A clone that declares
// no cloud_init keeps the inherited cdrom and plans empty; a clone that
// declares user_data gets a seed of its own and drops the inherited one,
// and the template's ISO is never rewritten. Deleting a clone leaves the
// template's ISO; deleting the template while a clone still has its ISO
// attached keeps the ISO (with a warning), so the clone still starts.
func TestAccVMCloneOfSeededTemplateW15W32(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	needsSim(t, tg)
	const templateUserData = "#cloud-config\npackages: [htop]\n"
	var templateID, ownID int
	checkSeeds := acctest.CheckState(func(state *tfjson.State) error {
		_, tpl, err := acctest.GuestFromState(state, "pve_vm_template.seeded")
		if err != nil {
			return err
		}
		templateID = tpl
		if got, found := seedVolume(tg, "pve1", tpl); !found || got != templateUserData {
			return fmt.Errorf("template seed: found %v, user-data %q", found, got)
		}
		_, inherits, err := acctest.GuestFromState(state, "pve_vm.inherits")
		if err != nil {
			return err
		}
		cdroms, err := cdromVolumes(tg, "pve1", inherits)
		if err != nil {
			return err
		}
		if want := fmt.Sprintf("ide3=local:iso/pve-seed-%d.iso", tpl); len(cdroms) != 1 || cdroms[0] != want {
			return fmt.Errorf("clone without cloud_init has cdroms %v, want the inherited %s", cdroms, want)
		}
		if !acctest.InState(state, "pve_vm.own") {
			return nil
		}
		_, own, err := acctest.GuestFromState(state, "pve_vm.own")
		if err != nil {
			return err
		}
		ownID = own
		if got, found := seedVolume(tg, "pve1", own); !found || !strings.Contains(got, "curl") {
			return fmt.Errorf("own seed of VM %d: found %v, user-data %q", own, found, got)
		}
		cdroms, err = cdromVolumes(tg, "pve1", own)
		if err != nil {
			return err
		}
		if want := fmt.Sprintf("ide3=local:iso/pve-seed-%d.iso", own); len(cdroms) != 1 || cdroms[0] != want {
			return fmt.Errorf("W15: clone with its own user_data has cdroms %v, want only %s", cdroms, want)
		}
		return nil
	})
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config:            tg.Config(seedTemplate("pve1") + seedClone("inherits", "pve1", "", true) + seedClone("own", "pve1", ownSeed, true)),
				ConfigStateChecks: []statecheck.StateCheck{checkSeeds},
			},
			{
				// Deleting the clone with its own seed deletes that seed only.
				Config: tg.Config(seedTemplate("pve1") + seedClone("inherits", "pve1", "", true)),
				ConfigStateChecks: []statecheck.StateCheck{
					checkSeeds,
					acctest.CheckState(func(*tfjson.State) error {
						if _, found := seedVolume(tg, "pve1", ownID); found {
							return fmt.Errorf("the deleted clone's own seed is left")
						}
						return nil
					}),
				},
			},
			{
				// The template goes; its seed stays for the clone that uses it.
				Config: tg.Config(seedClone("inherits", "pve1", "", false)),
				ConfigStateChecks: []statecheck.StateCheck{
					acctest.CheckState(func(*tfjson.State) error {
						if _, found := seedVolume(tg, "pve1", templateID); !found {
							return fmt.Errorf("the template's seed ISO was deleted while a clone has it attached")
						}
						if _, err := tg.Client.GuestConfig(context.Background(), "pve1", pveapi.GuestTypeQemu, templateVMID); err == nil {
							return fmt.Errorf("the template was not deleted")
						}
						return nil
					}),
				},
			},
		},
	})
}

// W14, W32: a template's seed ISO on node-local storage cannot follow a
// clone to another node (PVE does not migrate a VM with a local cdrom
// image). A clone without cloud_init is refused before anything is
// cloned; one that declares user_data drops the inherited cdrom before
// the migration and gets its own seed on its node.
func TestAccVMCloneOfSeededTemplateAcrossNodesW14W32(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	sim := needsSim(t, tg)
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config:      tg.Config(seedTemplate("pve1") + seedClone("far", "pve2", "", true)),
				ExpectError: regexp.MustCompile(`Clone Cannot Move To Its Node`),
			},
			{
				Config: tg.Config(seedTemplate("pve1") + seedClone("far", "pve2", ownSeed, true)),
				ConfigStateChecks: []statecheck.StateCheck{
					acctest.CheckState(func(state *tfjson.State) error {
						if n := sim.Count("POST", clonePath); n != 1 {
							return fmt.Errorf("want one clone request (none for the refused clone), saw %d", n)
						}
						node, far, err := acctest.GuestFromState(state, "pve_vm.far")
						if err != nil {
							return err
						}
						if node != "pve2" {
							return fmt.Errorf("clone on %s", node)
						}
						cdroms, err := cdromVolumes(tg, node, far)
						if err != nil {
							return err
						}
						if want := fmt.Sprintf("ide3=local:iso/pve-seed-%d.iso", far); len(cdroms) != 1 || cdroms[0] != want {
							return fmt.Errorf("clone has cdroms %v, want only %s", cdroms, want)
						}
						if _, found := seedVolume(tg, "pve2", far); !found {
							return fmt.Errorf("own seed not on pve2")
						}
						return nil
					}),
				},
			},
		},
	})
}
