package storage_test

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// checkStorages compares a pve_storages result with what PVE lists for the
// same filter, so the test holds on any cluster.
func checkStorages(tg *acctest.Target, addr, content string, shared *bool) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs := s.RootModule().Resources[addr]
		if rs == nil {
			return fmt.Errorf("%s not in state", addr)
		}
		var filter pveapi.StorageFilter
		if content != "" {
			filter.Content = []string{content}
		}
		list, err := tg.Client.Storages(context.Background(), "pve1", filter)
		if err != nil {
			return err
		}
		var want []pveapi.NodeStorage
		for _, st := range list {
			if shared == nil || bool(st.Shared) == *shared {
				want = append(want, st)
			}
		}
		sort.Slice(want, func(i, j int) bool { return want[i].Storage < want[j].Storage })
		attrs := rs.Primary.Attributes
		if attrs["storages.#"] != strconv.Itoa(len(want)) {
			return fmt.Errorf("%d storages, want %d", atoi(attrs["storages.#"]), len(want))
		}
		for i, st := range want {
			prefix := fmt.Sprintf("storages.%d.", i)
			if attrs[prefix+"storage"] != st.Storage || attrs[prefix+"type"] != st.Type ||
				attrs[prefix+"shared"] != strconv.FormatBool(bool(st.Shared)) ||
				attrs[prefix+"content.#"] != strconv.Itoa(len(st.ContentTypes())) ||
				attrs[prefix+"total"] != strconv.FormatInt(int64(st.Total), 10) {
				return fmt.Errorf("entry %d = %v, want %+v", i, subset(attrs, prefix), st)
			}
			if content != "" && !st.HasContent(content) {
				return fmt.Errorf("%s does not take %s", st.Storage, content)
			}
		}
		return nil
	}
}

// checkDefinitions compares a pve_storages result without node with what
// GET /storage lists (of type typ when not empty).
func checkDefinitions(tg *acctest.Target, addr, typ string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs := s.RootModule().Resources[addr]
		if rs == nil {
			return fmt.Errorf("%s not in state", addr)
		}
		defs, err := tg.Client.ListStorageConfigs(context.Background(), typ)
		if err != nil {
			return err
		}
		sort.Slice(defs, func(i, j int) bool { return defs[i].Storage < defs[j].Storage })
		attrs := rs.Primary.Attributes
		if attrs["storages.#"] != strconv.Itoa(len(defs)) {
			return fmt.Errorf("%s storages, want %d", attrs["storages.#"], len(defs))
		}
		for i, d := range defs {
			prefix := fmt.Sprintf("storages.%d.", i)
			if attrs[prefix+"storage"] != d.Storage || attrs[prefix+"type"] != d.Type ||
				attrs[prefix+"path"] != d.Options["path"] || attrs[prefix+"enabled"] != "" {
				return fmt.Errorf("entry %d = %v, want %+v", i, subset(attrs, prefix), d)
			}
		}
		return nil
	}
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func subset(attrs map[string]string, prefix string) map[string]string {
	out := map[string]string{}
	for k, v := range attrs {
		if len(k) > len(prefix) && k[:len(prefix)] == prefix {
			out[k[len(prefix):]] = v
		}
	}
	return out
}

func TestAccStoragesDataSource_filters(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	yes, no := true, false
	config := tg.Config(`
data "pve_storages" "all" {
  node = "pve1"
}
data "pve_storages" "iso" {
  node    = "pve1"
  content = "iso"
}
data "pve_storages" "shared_images" {
  node    = "pve1"
  content = "images"
  shared  = true
}
data "pve_storages" "local" {
  node   = "pve1"
  shared = false
}
data "pve_storages" "definitions" {
}
data "pve_storages" "dirs" {
  type = "dir"
}
`)
	checks := []resource.TestCheckFunc{
		checkStorages(tg, "data.pve_storages.all", "", nil),
		checkStorages(tg, "data.pve_storages.iso", "iso", nil),
		checkStorages(tg, "data.pve_storages.shared_images", "images", &yes),
		checkStorages(tg, "data.pve_storages.local", "", &no),
		resource.TestCheckResourceAttr("data.pve_storages.all", "id", "pve1"),
		checkDefinitions(tg, "data.pve_storages.definitions", ""),
		checkDefinitions(tg, "data.pve_storages.dirs", "dir"),
		resource.TestCheckResourceAttr("data.pve_storages.definitions", "id", "storages"),
	}
	if tg.Sim != nil {
		// The simulator's cluster: local (dir), local-lvm (lvmthin),
		// shared-nfs (nfs, shared).
		checks = append(checks,
			resource.TestCheckResourceAttr("data.pve_storages.all", "storages.#", "3"),
			resource.TestCheckResourceAttr("data.pve_storages.iso", "storages.#", "2"),
			resource.TestCheckResourceAttr("data.pve_storages.iso", "storages.0.storage", "local"),
			resource.TestCheckResourceAttr("data.pve_storages.shared_images", "storages.#", "1"),
			resource.TestCheckResourceAttr("data.pve_storages.shared_images", "storages.0.storage", "shared-nfs"),
			resource.TestCheckTypeSetElemAttr("data.pve_storages.shared_images", "storages.0.content.*", "import"),
			resource.TestCheckResourceAttr("data.pve_storages.local", "storages.#", "2"),
			// The definitions: every storage, where it lives, no status.
			resource.TestCheckResourceAttr("data.pve_storages.definitions", "storages.#", "3"),
			resource.TestCheckResourceAttr("data.pve_storages.definitions", "storages.2.server", "192.0.2.5"),
			resource.TestCheckResourceAttr("data.pve_storages.definitions", "storages.2.export", "/srv/pve"),
			resource.TestCheckResourceAttr("data.pve_storages.definitions", "storages.2.options.options", "vers=4.2"),
			resource.TestCheckNoResourceAttr("data.pve_storages.definitions", "storages.2.total"),
			resource.TestCheckResourceAttr("data.pve_storages.dirs", "storages.#", "1"),
			resource.TestCheckResourceAttr("data.pve_storages.dirs", "storages.0.path", "/var/lib/vz"),
			// The node's view carries the definitions too.
			resource.TestCheckResourceAttr("data.pve_storages.all", "storages.1.vgname", "pve"),
			resource.TestCheckResourceAttr("data.pve_storages.all", "storages.1.thinpool", "data"),
			resource.TestCheckResourceAttr("data.pve_storages.all", "storages.0.available",
				// Seed files and the two seeded backup archives.
				strconv.FormatInt(100<<30-(754+126+332+1536+384)<<20, 10)),
		)
	}
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{Config: config, Check: resource.ComposeAggregateTestCheckFunc(checks...)}},
	})
}
