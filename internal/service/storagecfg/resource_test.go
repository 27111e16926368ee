package storagecfg_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

func checkStorageDestroyed(tg *acctest.Target, id string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		_, found, err := tg.Client.GetStorageConfig(context.Background(), id)
		if err != nil {
			return err
		}
		if found {
			return fmt.Errorf("storage %s still exists after destroy", id)
		}
		return nil
	}
}

func expectAction(addr string, action plancheck.ResourceActionType) resource.ConfigPlanChecks {
	return resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, action)}}
}

// A directory storage: create, in-place updates (content, retention,
// disable, options removed), import, and deleted outside Terraform.
func TestAccStorageDir_lifecycle(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	id := acctest.Name("tfacc")
	addr := "pve_storage_dir.test"
	created := tg.Config(fmt.Sprintf(`
resource "pve_storage_dir" "test" {
  storage       = %q
  path          = "/srv/%s"
  content       = ["backup", "iso"]
  preallocation = "off"
  retention = {
    keep_last  = 3
    keep_daily = 7
  }
}
`, id, id))
	updated := tg.Config(fmt.Sprintf(`
resource "pve_storage_dir" "test" {
  storage = %q
  path    = "/srv/%s"
  content = ["backup", "iso", "vztmpl"]
  disable = true
  retention = {
    keep_all = true
  }
}
`, id, id))
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkStorageDestroyed(tg, id),
		Steps: []resource.TestStep{
			{
				Config:           created,
				ConfigPlanChecks: expectAction(addr, plancheck.ResourceActionCreate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact(id)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("disable"), knownvalue.Null()),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("shared"), knownvalue.Null()),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("retention").AtMapKey("keep_daily"), knownvalue.Int64Exact(7)),
				},
			},
			{
				Config:           updated,
				ConfigPlanChecks: expectAction(addr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("preallocation"), knownvalue.Null()),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("disable"), knownvalue.Bool(true)),
				},
				Check: func(*terraform.State) error {
					cfg, _, err := tg.Client.GetStorageConfig(context.Background(), id)
					if err != nil {
						return err
					}
					o := cfg.Options
					if o["disable"] != "1" || o["prune-backups"] != "keep-all=1" || o["preallocation"] != "" {
						return fmt.Errorf("PVE has %v", o)
					}
					return nil
				},
			},
			{ResourceName: addr, ImportState: true, ImportStateId: id, ImportStateVerify: true},
			{
				PreConfig: func() {
					if err := tg.Client.DeleteStorage(context.Background(), id); err != nil {
						t.Fatal(err)
					}
				},
				Config:           updated,
				ConfigPlanChecks: expectAction(addr, plancheck.ResourceActionCreate),
			},
		},
	})
}

// NFS: a fixed option (export) replaces the definition; the rest changes
// in place.
func TestAccStorageNFS_lifecycle(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	id := acctest.Name("tfacc")
	addr := "pve_storage_nfs.test"
	cfg := func(export, options string) string {
		return tg.Config(fmt.Sprintf(`
resource "pve_storage_nfs" "test" {
  storage = %q
  server  = "10.0.0.20"
  export  = %q
  path    = "/mnt/pve/%s"
  content = ["iso", "backup"]
  options = %q
}
`, id, export, id, options))
	}
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkStorageDestroyed(tg, id),
		Steps: []resource.TestStep{
			{Config: cfg("/export/a", "vers=4.2"), ConfigPlanChecks: expectAction(addr, plancheck.ResourceActionCreate)},
			{Config: cfg("/export/a", "vers=4.1"), ConfigPlanChecks: expectAction(addr, plancheck.ResourceActionUpdate)},
			{Config: cfg("/export/b", "vers=4.1"), ConfigPlanChecks: expectAction(addr, plancheck.ResourceActionDestroyBeforeCreate)},
			{ResourceName: addr, ImportState: true, ImportStateId: id, ImportStateVerify: true},
		},
	})
}

// A ZFS pool: sparse and blocksize change in place, import.
func TestAccStorageZFSPool_lifecycle(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	id := acctest.Name("tfacc")
	addr := "pve_storage_zfspool.test"
	cfg := func(extra string) string {
		return tg.Config(fmt.Sprintf(`
resource "pve_storage_zfspool" "test" {
  storage = %q
  pool    = "rpool/%s"
  content = ["images", "rootdir"]
  %s
}
`, id, id, extra))
	}
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkStorageDestroyed(tg, id),
		Steps: []resource.TestStep{
			{Config: cfg(""), ConfigPlanChecks: expectAction(addr, plancheck.ResourceActionCreate)},
			{Config: cfg("sparse = true\n  blocksize = \"16k\""), ConfigPlanChecks: expectAction(addr, plancheck.ResourceActionUpdate)},
			{ResourceName: addr, ImportState: true, ImportStateId: id, ImportStateVerify: true},
		},
	})
}

// A PBS storage's password never reaches state, plan output or a trace
// log of Terraform and the provider: not at creation, nor when it changes.
// The harness echoes each configuration file into the log (lines starting
// with "  | "), so those lines are not scanned. Not parallel: it sets the
// environment of the whole test process.
func TestAccStoragePBS_secretStaysOutOfStateAndLogs(t *testing.T) {
	logFile := filepath.Join(t.TempDir(), "trace.log")
	t.Setenv("TF_LOG", "trace")
	t.Setenv("TF_LOG_PATH", logFile)
	t.Setenv("TF_ACC_LOG", "trace")
	t.Setenv("TF_ACC_LOG_PATH", logFile)
	tg := acctest.New(t)
	id := acctest.Name("tfacc")
	addr := "pve_storage_pbs.test"
	secrets := []string{"pbs-first-Secret-4711", "pbs-second-Secret-0815"}
	cfg := func(password string, version int) string {
		return tg.Config(fmt.Sprintf(`
resource "pve_storage_pbs" "test" {
  storage             = %q
  server              = "10.0.0.60"
  datastore           = "main"
  username            = "pve@pbs"
  password_wo         = %q
  password_wo_version = %d
}
`, id, password, version))
	}
	noSecret := func(s *terraform.State) error {
		for _, r := range s.RootModule().Resources {
			for k, v := range r.Primary.Attributes {
				for _, secret := range secrets {
					if strings.Contains(v, secret) {
						return fmt.Errorf("state attribute %s holds the password", k)
					}
				}
			}
		}
		return nil
	}
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkStorageDestroyed(tg, id),
		Steps: []resource.TestStep{
			{
				Config:           cfg(secrets[0], 1),
				ConfigPlanChecks: expectAction(addr, plancheck.ResourceActionCreate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("password_wo"), knownvalue.Null()),
				},
				Check: noSecret,
			},
			{
				Config:           cfg(secrets[1], 2),
				ConfigPlanChecks: expectAction(addr, plancheck.ResourceActionUpdate),
				Check:            noSecret,
			},
			{
				ResourceName: addr, ImportState: true, ImportStateId: id, ImportStateVerify: true,
				// PVE never returns the secret, so an import cannot know its version.
				ImportStateVerifyIgnore: []string{"password_wo_version"},
			},
		},
	})

	data, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	scanned := 0
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "  | ") {
			continue
		}
		scanned++
		for i, s := range secrets {
			if strings.Contains(line, s) {
				t.Errorf("the trace log holds password %d", i)
			}
		}
	}
	if scanned < 1000 || !bytes.Contains(data, []byte("sdk.framework")) {
		t.Fatalf("the trace log has %d lines and no provider lines: the scan proves nothing", scanned)
	}
	for _, mark := range []string{"PVE API request", "/storage"} {
		if !bytes.Contains(data, []byte(mark)) {
			t.Errorf("the trace log shows no storage request (%q is missing)", mark)
		}
	}
}
