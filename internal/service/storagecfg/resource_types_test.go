package storagecfg_test

import (
	"context"
	"fmt"
	"sort"
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

// cliType is one storage type of the shared CLI lifecycle: its attributes
// at creation, the ones an in-place update changes, and its write-only
// secrets (attribute names without _wo).
type cliType struct {
	typ             string
	created, update string
	secrets         []string
}

// The ten types without a CLI test of their own (dir, nfs, zfspool and pbs
// have one above). Each update changes only options PVE changes in place.
func cliTypes(id func(string) string) []cliType {
	return []cliType{
		{typ: "cifs", secrets: []string{"password"},
			created: fmt.Sprintf(`server = "10.0.0.21"
  share       = "backups"
  path        = "/mnt/pve/%s"
  content     = ["backup"]
  username    = "backup"
  password_wo = "cifs-first-Secret-4711"
  password_wo_version = 1`, id("cifs")),
			update: fmt.Sprintf(`server = "10.0.0.21"
  share       = "backups"
  path        = "/mnt/pve/%s"
  content     = ["backup", "iso"]
  username    = "backup"
  domain      = "LAB"
  smbversion  = "3.0"
  password_wo = "cifs-second-Secret-0815"
  password_wo_version = 2`, id("cifs"))},
		{typ: "lvm",
			created: `vgname  = "vg-cli"
  content = ["images"]`,
			update: `vgname     = "vg-cli"
  content    = ["images", "rootdir"]
  saferemove = true
  shared     = true`},
		{typ: "lvmthin",
			created: `vgname   = "pve"
  thinpool = "cli"`,
			update: `vgname   = "pve"
  thinpool = "cli"
  content  = ["images"]
  nodes    = ["pve1", "pve2"]`},
		{typ: "zfs",
			created: `portal        = "10.0.0.30"
  target        = "iqn.2003-01.org.linux-iscsi.san:cli"
  pool          = "tank"
  blocksize     = "8k"
  iscsiprovider = "LIO"
  lio_tpg       = "tpg1"`,
			update: `portal        = "10.0.0.30"
  target        = "iqn.2003-01.org.linux-iscsi.san:cli"
  pool          = "tank"
  blocksize     = "8k"
  iscsiprovider = "LIO"
  lio_tpg       = "tpg2"
  sparse        = true
  nowritecache  = true`},
		{typ: "iscsi",
			created: `portal = "10.0.0.40"
  target = "iqn.2003-01.org.linux-iscsi.san:cli"`,
			update: `portal  = "10.0.0.40"
  target  = "iqn.2003-01.org.linux-iscsi.san:cli"
  content = ["none"]`},
		{typ: "iscsidirect",
			created: `portal = "10.0.0.41"
  target = "iqn.2003-01.org.linux-iscsi.san:cli"`,
			update: `portal  = "10.0.0.41"
  target  = "iqn.2003-01.org.linux-iscsi.san:cli"
  nodes   = ["pve1"]
  disable = true`},
		{typ: "rbd", secrets: []string{"keyring"},
			created: `pool       = "rbd"
  monhost    = "10.0.0.51 10.0.0.52"
  username   = "admin"
  keyring_wo = "rbd-first-Keyring-4711"
  keyring_wo_version = 1`,
			update: `pool       = "rbd"
  monhost    = "10.0.0.51 10.0.0.52 10.0.0.53"
  username   = "admin"
  namespace  = "lab"
  krbd       = true
  content    = ["images", "rootdir"]
  keyring_wo = "rbd-second-Keyring-0815"
  keyring_wo_version = 2`},
		{typ: "cephfs", secrets: []string{"keyring"},
			created: fmt.Sprintf(`path       = "/mnt/pve/%s"
  monhost    = "10.0.0.51"
  username   = "admin"
  content    = ["backup", "iso"]
  keyring_wo = "cephfs-first-Keyring-4711"
  keyring_wo_version = 1`, id("cephfs")),
			update: fmt.Sprintf(`path       = "/mnt/pve/%s"
  monhost    = "10.0.0.51"
  username   = "admin"
  content    = ["backup", "iso", "snippets"]
  fs_name    = "cephfs2"
  subdir     = "/pve"
  keyring_wo = "cephfs-first-Keyring-4711"
  keyring_wo_version = 1`, id("cephfs"))},
		{typ: "btrfs",
			created: fmt.Sprintf(`path    = "/mnt/btrfs/%s"
  content = ["images", "rootdir"]`, id("btrfs")),
			update: fmt.Sprintf(`path    = "/mnt/btrfs/%s"
  content = ["images", "rootdir", "iso"]
  nocow   = true
  retention = {
    keep_last = 2
  }`, id("btrfs"))},
		{typ: "esxi", secrets: []string{"password"},
			created: `server      = "esxi.example.com"
  username    = "root"
  password_wo = "esxi-first-Secret-4711"
  password_wo_version = 1`,
			update: `server      = "esxi.example.com"
  username    = "root"
  skip_cert_verification = true
  port        = 8443
  password_wo = "esxi-second-Secret-0815"
  password_wo_version = 2`},
	}
}

// The ten storage types without a CLI test of their own, declared in one
// configuration: created, changed in place (each an Update), imported one
// by one with ImportStateVerify, with an empty plan after every step.
// Their secrets never reach state.
func TestAccStorageTypes_lifecycle(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	prefix := acctest.Name("tfacc")
	id := func(typ string) string { return prefix + "-" + typ }
	types := cliTypes(id)
	cfg := func(updated bool) string {
		var b strings.Builder
		for _, ct := range types {
			body := ct.created
			if updated {
				body = ct.update
			}
			fmt.Fprintf(&b, "resource %q \"test\" {\n  storage = %q\n  %s\n}\n\n", resType(ct.typ), id(ct.typ), body)
		}
		return tg.Config(b.String())
	}
	var secrets []string
	for _, ct := range types {
		for _, s := range ct.secrets {
			for _, cfgText := range []string{ct.created, ct.update} {
				if i := strings.Index(cfgText, s+`_wo = "`); i >= 0 {
					rest := cfgText[i+len(s+`_wo = "`):]
					secrets = append(secrets, rest[:strings.IndexByte(rest, '"')])
				}
			}
		}
	}
	sort.Strings(secrets)
	if len(secrets) != 8 {
		t.Fatalf("found %d secrets in the configurations: %v", len(secrets), secrets)
	}
	noSecret := func(s *terraform.State) error {
		for addr, r := range s.RootModule().Resources {
			for k, v := range r.Primary.Attributes {
				for _, secret := range secrets {
					if strings.Contains(v, secret) {
						return fmt.Errorf("state attribute %s.%s holds a secret", addr, k)
					}
				}
			}
		}
		return nil
	}
	actions := func(action plancheck.ResourceActionType) resource.ConfigPlanChecks {
		var checks []plancheck.PlanCheck
		for _, ct := range types {
			checks = append(checks, plancheck.ExpectResourceAction(resType(ct.typ)+".test", action))
		}
		return resource.ConfigPlanChecks{PreApply: checks}
	}
	var woNull []statecheck.StateCheck
	for _, ct := range types {
		for _, s := range ct.secrets {
			woNull = append(woNull, statecheck.ExpectKnownValue(resType(ct.typ)+".test", tfjsonpath.New(s+"_wo"), knownvalue.Null()))
		}
	}
	steps := []resource.TestStep{
		{Config: cfg(false), ConfigPlanChecks: actions(plancheck.ResourceActionCreate), ConfigStateChecks: woNull, Check: noSecret},
		{
			Config: cfg(true), ConfigPlanChecks: actions(plancheck.ResourceActionUpdate), ConfigStateChecks: woNull,
			Check: resource.ComposeAggregateTestCheckFunc(noSecret, checkUpdated(tg, id)),
		},
	}
	for _, ct := range types {
		var ignore []string
		for _, s := range ct.secrets {
			// PVE never returns a secret, so an import cannot know its version.
			ignore = append(ignore, s+"_wo_version")
		}
		steps = append(steps, resource.TestStep{
			ResourceName: resType(ct.typ) + ".test", ImportState: true, ImportStateId: id(ct.typ),
			ImportStateVerify: true, ImportStateVerifyIgnore: ignore,
		})
	}
	tg.Run(t, resource.TestCase{
		CheckDestroy: func(s *terraform.State) error {
			for _, ct := range types {
				if err := checkStorageDestroyed(tg, id(ct.typ))(s); err != nil {
					return err
				}
			}
			return nil
		},
		Steps: steps,
	})
}

// checkUpdated checks what PVE holds after the update: one option of each
// type as the update set it.
func checkUpdated(tg *acctest.Target, id func(string) string) resource.TestCheckFunc {
	want := map[string]map[string]string{
		"cifs":        {"smbversion": "3.0", "domain": "LAB", "content": "backup,iso"},
		"lvm":         {"saferemove": "1", "shared": "1"},
		"lvmthin":     {"content": "images", "nodes": "pve1,pve2"},
		"zfs":         {"lio_tpg": "tpg2", "sparse": "1", "nowritecache": "1"},
		"iscsi":       {"content": "none"},
		"iscsidirect": {"nodes": "pve1", "disable": "1"},
		"rbd":         {"krbd": "1", "namespace": "lab", "monhost": "10.0.0.51 10.0.0.52 10.0.0.53"},
		"cephfs":      {"fs-name": "cephfs2", "subdir": "/pve"},
		"btrfs":       {"nocow": "1", "prune-backups": "keep-last=2"},
		"esxi":        {"skip-cert-verification": "1", "port": "8443"},
	}
	return func(*terraform.State) error {
		for typ, opts := range want {
			cfg, found, err := tg.Client.GetStorageConfig(context.Background(), id(typ))
			if err != nil {
				return fmt.Errorf("%s: %w", typ, err)
			}
			if !found {
				return fmt.Errorf("%s is gone", typ)
			}
			for k, v := range opts {
				got := cfg.Options[k]
				if k == "content" || k == "nodes" {
					parts := strings.Split(got, ",")
					sort.Strings(parts)
					got = strings.Join(parts, ",")
				}
				if got != v {
					return fmt.Errorf("%s: %s is %q, want %q (PVE has %v)", typ, k, got, v, cfg.Options)
				}
			}
		}
		return nil
	}
}
