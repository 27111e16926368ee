package mapping_test

import (
	"context"
	"net/url"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

func wantPlanError(t *testing.T, p *acctest.Protocol, typ, attribute string, want *regexp.Regexp, attrs map[string]any) {
	t.Helper()
	acctest.WantError(t, p.PlanCreate(t, typ, attrs), attribute, want)
}

// Bad input is refused at plan time, naming the attribute, before PVE
// sees it (the entry formats of pve-guest-common src/PVE/Mapping/*.pm,
// pve-configid, check_value's line-feed refusal).
func TestPlanRefusesBadInput(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	pci := func(entry map[string]any) map[string]map[string]any {
		return map[string]map[string]any{"pve1": entry}
	}
	good := map[string]any{"path": "0000:01:00.0", "id": "10de:2204"}
	for _, c := range []struct {
		typ, attr string
		want      string
		attrs     map[string]any
	}{
		{"pve_pci_mapping", "id", `Attribute id`, map[string]any{"id": "1gpu", "map": pci(good)}},
		{"pve_pci_mapping", "description", `single line`, map[string]any{"id": "gpu", "description": "a\nb", "map": pci(good)}},
		{"pve_pci_mapping", "", `map\["pve1"\]\.path: must be a PCI address`,
			map[string]any{"id": "gpu", "map": pci(map[string]any{"path": "0000:01:00.0,pcie=1", "id": "10de:2204"})}},
		{"pve_pci_mapping", "", `map\["pve1"\]\.path: must be a PCI address`,
			map[string]any{"id": "gpu", "map": pci(map[string]any{"path": "0000:0A:00.0", "id": "10de:2204"})}},
		{"pve_pci_mapping", "", `map\["pve1"\]\.id: must be a vendor and device id`,
			map[string]any{"id": "gpu", "map": pci(map[string]any{"path": "0000:01:00.0", "id": "10de"})}},
		{"pve_pci_mapping", "", `map\["pve1"\]\.description: must not contain ','`,
			map[string]any{"id": "gpu", "map": pci(map[string]any{"path": "0000:01:00.0", "id": "10de:2204", "description": "a,b"})}},
		{"pve_pci_mapping", "", `map\["pve_1"\] a node name`,
			map[string]any{"id": "gpu", "map": map[string]map[string]any{"pve_1": good}}},
		{"pve_pci_mapping", "map", `at least 1`, map[string]any{"id": "gpu", "map": map[string]map[string]any{}}},
		{"pve_usb_mapping", "", `map\["pve1"\]\.path: must be a USB port path`,
			map[string]any{"id": "key", "map": pci(map[string]any{"id": "0529:0001", "path": "usb1"})}},
		{"pve_dir_mapping", "", `map\["pve1"\]\.path: must be an absolute path`,
			map[string]any{"id": "share", "map": pci(map[string]any{"path": "srv/data"})}},
		{"pve_dir_mapping", "", `map\["pve1"\]\.path: must be an absolute path`,
			map[string]any{"id": "share", "map": pci(map[string]any{"path": "/srv/a=b"})}},
	} {
		wantPlanError(t, p, c.typ, c.attr, regexp.MustCompile(c.want), c.attrs)
	}
}

// A mapping with two entries for one node (PVE allows that for PCI and
// USB; the web UI makes them) cannot be held by a map keyed by node: the
// import says so instead of dropping one.
func TestImportRefusesTwoEntriesForOneNode(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	if err := p.Client.CreateMapping(context.Background(), "usb", "keys",
		url.Values{"map": {"node=pve1,id=0529:0001", "node=pve1,id=0529:0002"}}); err != nil {
		t.Fatal(err)
	}
	imp, err := p.Server.ImportResourceState(context.Background(),
		&tfprotov6.ImportResourceStateRequest{TypeName: "pve_usb_mapping", ID: "keys"})
	if err != nil || len(imp.ImportedResources) != 1 {
		t.Fatalf("import: %v %v", err, imp)
	}
	resp, err := p.Server.ReadResource(context.Background(), &tfprotov6.ReadResourceRequest{
		TypeName: "pve_usb_mapping", CurrentState: imp.ImportedResources[0].State,
	})
	if err != nil {
		t.Fatal(err)
	}
	acctest.WantError(t, resp.Diagnostics, "", regexp.MustCompile(`more than one entry for node pve1`))
	acctest.WantError(t, p.ImportDiagnostics(t, "pve_usb_mapping", "not valid"), "", regexp.MustCompile(`Invalid Import ID`))
}
