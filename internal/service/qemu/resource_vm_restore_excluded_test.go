package qemu_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

// excludedDiskArchive is a VM archive whose scsi1 was marked backup=0:
// vzdump kept its line in the archived config but not its data (no
// "#qmdump#map" line).
const (
	excludedDiskArchive = "local:backup/vzdump-qemu-170-2026_11_01-00_00_00.vma.zst"
	excludedDiskLine    = "scsi1: local-lvm:vm-170-disk-1,backup=0,size=1G"
)

func addExcludedDiskArchive(t *testing.T, tg *acctest.Target) {
	t.Helper()
	sim := needsSim(t, tg)
	config := "#db server\nboot: order=scsi0\ncores: 1\nmemory: 1024\nname: db-170\n" +
		"scsi0: local-lvm:vm-170-disk-0,size=2G\n" + excludedDiskLine + "\nscsihw: virtio-scsi-single\n" +
		"#qmdump#map:scsi0:drive-scsi0:local-lvm:raw:\n"
	if err := sim.AddBackup("pve1", excludedDiskArchive, config); err != nil {
		t.Fatal(err)
	}
}

// qemu-server src/PVE/QemuServer.pm restore_update_config_line writes a
// disk excluded from the backup (backup=0) back as a comment line, which
// joins the description. With no description declared the restored VM
// keeps the archive's description and that line; the plan afterwards is
// empty.
func TestAccVMRestoreExcludedDiskKeepsCommentLine(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	addExcludedDiskArchive(t, tg)
	vm := newVMRef(tg)
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: vmConfig(tg, fmt.Sprintf(`
  node    = "pve1"
  restore = { archive = %q }
  cpu     = { cores = 2 }
`, excludedDiskArchive)),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("description"), knownvalue.Null()),
				statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("disks"), acctest.NullOrLacks("scsi1")),
				vm.configCheck(func(c map[string]string) error {
					if want := "db server\n" + excludedDiskLine; c["description"] != want {
						return fmt.Errorf("description = %q, want %q", c["description"], want)
					}
					if c["scsi1"] != "" || c["cores"] != "2" {
						return fmt.Errorf("scsi1 = %q, cores = %q", c["scsi1"], c["cores"])
					}
					return nil
				}),
			},
		}},
	})
}

// restore_merge_config: a description given with the restore replaces the
// parsed one, comment line included; the declared description wins and
// the plan afterwards is empty.
func TestAccVMRestoreExcludedDiskDeclaredDescription(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	addExcludedDiskArchive(t, tg)
	vm := newVMRef(tg)
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: vmConfig(tg, fmt.Sprintf(`
  node        = "pve1"
  description = "managed by terraform"
  restore     = { archive = %q }
`, excludedDiskArchive)),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("description"), knownvalue.StringExact("managed by terraform")),
				vm.configCheck(func(c map[string]string) error {
					if c["description"] != "managed by terraform" {
						return fmt.Errorf("description = %q", c["description"])
					}
					return nil
				}),
			},
		}},
	})
}
