package provider_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/provider"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

const listCTTemplate = "local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst"

// plantGuests makes guests through PVE's API, as an administrator does,
// none of them known to Terraform: three VMs on two nodes, a VM template,
// a container and a container template, some in the pool prod.
func plantGuests(t *testing.T, p *acctest.Protocol) {
	t.Helper()
	ctx := context.Background()
	if err := p.Client.CreatePool(ctx, "prod", ""); err != nil {
		t.Fatalf("create pool: %v", err)
	}
	create := func(node, typ string, vmid int, kv ...string) {
		t.Helper()
		params := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			params.Set(kv[i], kv[i+1])
		}
		upid, err := p.Client.CreateGuest(ctx, node, typ, vmid, params)
		if err == nil {
			_, err = p.Client.WaitTask(ctx, upid)
		}
		if err != nil {
			t.Fatalf("create %d: %v", vmid, err)
		}
	}
	vm := func(node string, vmid int, name, tags string, kv ...string) {
		t.Helper()
		create(node, pveapi.GuestTypeQemu, vmid, append([]string{"name", name, "tags", tags,
			"scsi0", "local-lvm:2", "net0", "virtio,bridge=vmbr0", "memory", "1024"}, kv...)...)
	}
	vm("pve1", 301, "web-01", "Prod;web", "pool", "prod")
	vm("pve2", 302, "web-02", "prod;web")
	vm("pve1", 303, "db-01", "prod;db", "cores", "2")
	vm("pve1", 304, "golden", "prod")
	upid, err := p.Client.TemplateQemu(ctx, "pve1", 304, "")
	if err == nil {
		_, err = p.Client.WaitTask(ctx, upid)
	}
	if err != nil {
		t.Fatalf("template 304: %v", err)
	}
	create("pve2", pveapi.GuestTypeLXC, 401, "hostname", "dns-01", "ostemplate", listCTTemplate, "tags", "prod",
		"pool", "prod", "rootfs", "local-lvm:2", "net0", "name=eth0,bridge=vmbr0,ip=dhcp")
	create("pve1", pveapi.GuestTypeLXC, 402, "hostname", "base-ct", "ostemplate", listCTTemplate, "tags", "prod",
		"rootfs", "local-lvm:2", "net0", "name=eth0,bridge=vmbr0,ip=dhcp")
	if err := p.Client.TemplateLXC(ctx, "pve1", 402); err != nil {
		t.Fatalf("template 402: %v", err)
	}
	// /cluster/resources names a guest once pvestatd has reported it.
	p.Sim.ReportStats()
}

// listedIDs are the VMIDs and nodes of results, in order, and fails on a
// result with an object when none was asked for.
func listedIDs(t *testing.T, p *acctest.Protocol, typeName string, results []acctest.Listed) []string {
	t.Helper()
	var out []string
	for _, r := range results {
		if r.Resource != nil {
			if v := p.StateValue(t, typeName, r.Resource); !v.IsNull() {
				t.Errorf("%s: an object without include_resource", r.DisplayName)
			}
		}
		id := p.IdentityValues(t, typeName, r.Identity)
		out = append(out, fmt.Sprintf("%v/%v", id["node"], id["vmid"]))
	}
	return out
}

// `list "pve_vm"` finds the cluster's VMs with one request and each filter
// narrows them; templates and containers are listed by their own types.
func TestListGuests_filters(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	plantGuests(t, p)
	cases := []struct {
		typeName string
		filter   map[string]any
		want     []string
	}{
		{"pve_vm", nil, []string{"pve1/301", "pve2/302", "pve1/303"}},
		{"pve_vm", map[string]any{"node": "pve1"}, []string{"pve1/301", "pve1/303"}},
		{"pve_vm", map[string]any{"pool": "prod"}, []string{"pve1/301"}},
		{"pve_vm", map[string]any{"tags": []string{"PROD", "web"}}, []string{"pve1/301", "pve2/302"}},
		{"pve_vm", map[string]any{"tags": []string{"db"}}, []string{"pve1/303"}},
		{"pve_vm", map[string]any{"name": "web-*"}, []string{"pve1/301", "pve2/302"}},
		{"pve_vm", map[string]any{"name": "web-0[2-9]", "node": "pve2"}, []string{"pve2/302"}},
		{"pve_vm", map[string]any{"name": "web-*", "node": "pve3"}, nil},
		{"pve_vm_template", nil, []string{"pve1/304"}},
		{"pve_container", nil, []string{"pve2/401"}},
		{"pve_container", map[string]any{"pool": "prod", "tags": []string{"prod"}}, []string{"pve2/401"}},
		{"pve_container_template", nil, []string{"pve1/402"}},
		{"pve_container_template", map[string]any{"name": "web-*"}, nil},
	}
	for _, c := range cases {
		p.Sim.ResetCounters()
		got := listedIDs(t, p, c.typeName, p.List(t, c.typeName, c.filter, false))
		if !slices.Equal(got, c.want) {
			t.Errorf("list %s %v = %v, want %v", c.typeName, c.filter, got, c.want)
		}
		if reads, writes := p.Requests(); reads != 1 || writes != 0 {
			t.Errorf("list %s %v: %d reads, %d writes; want the one GET /cluster/resources", c.typeName, c.filter, reads, writes)
		}
	}

	results := p.List(t, "pve_vm", map[string]any{"node": "pve2"}, false)
	if len(results) != 1 || results[0].DisplayName != "web-02 (302)" {
		t.Errorf("display name: %+v", results)
	}
	if got := p.ListResults(t, "pve_vm", nil, false, 2); len(got) != 2 {
		t.Errorf("limit 2: %d results", len(got))
	}
}

// With include_resource each result is the object an import by its
// identity makes, the same state and identity, so the configuration
// generated from it plans no change once imported.
func TestListGuests_includeResourceIsTheImport(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	plantGuests(t, p)
	for _, typeName := range []string{"pve_vm", "pve_vm_template", "pve_container", "pve_container_template"} {
		p.Reconfigure(t)
		p.Sim.ResetCounters()
		results := p.List(t, typeName, nil, true)
		reads, writes := p.Requests()
		if len(results) == 0 {
			t.Fatalf("%s: nothing listed", typeName)
		}
		if writes != 0 {
			t.Errorf("%s: listing wrote %d times", typeName, writes)
		}
		// One listing, the pools once, and per guest what its import
		// reads: the cluster listing, its config (three times: the import's
		// kind check, its warning about unmanaged settings, the refresh)
		// and its status.
		if want := 2 + 5*len(results); reads > want {
			t.Errorf("%s: %d objects in %d reads, want at most %d", typeName, len(results), reads, want)
		}
		for _, r := range results {
			checkListedIsImport(t, p, typeName, r)
		}
	}
}

// A bad filter is an error naming its attribute, before anything is listed.
func TestListGuests_badFilter(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	acctest.WantError(t, p.ValidateList(t, "pve_vm", map[string]any{"name": "web-[0"}), "name", regexp.MustCompile(`not a valid pattern`))
	acctest.WantError(t, p.ValidateList(t, "pve_container", map[string]any{"tags": []string{"no spaces"}}), "tags", regexp.MustCompile(`no spaces`))
	results := p.ListResults(t, "pve_vm", map[string]any{"name": "web-[0"}, false, 0)
	if len(results) != 1 || results[0].Identity != nil || !slices.ContainsFunc(results[0].Diagnostics, func(d *tfprotov6.Diagnostic) bool {
		return d.Severity == tfprotov6.DiagnosticSeverityError
	}) {
		t.Errorf("listing with a bad pattern: %+v", results)
	}
}

// `list "pve_pool"` finds the pools with one request, filtered by a
// pattern of their id, each with include_resource as its import reads it.
func TestListPools(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	ctx := context.Background()
	for _, id := range []string{"prod", "prod/web", "lab"} {
		if err := p.Client.CreatePool(ctx, id, "pool "+id); err != nil {
			t.Fatalf("create pool %s: %v", id, err)
		}
	}
	poolIDs := func(results []acctest.Listed) []string {
		var out []string
		for _, r := range results {
			out = append(out, fmt.Sprint(p.IdentityValues(t, "pve_pool", r.Identity)["poolid"]))
		}
		return out
	}
	for pattern, want := range map[string][]string{"": {"lab", "prod", "prod/web"}, "prod*": {"prod", "prod/web"}, "prod/*": {"prod/web"}} {
		filter := map[string]any{}
		if pattern != "" {
			filter["poolid"] = pattern
		}
		p.Sim.ResetCounters()
		if got := poolIDs(p.List(t, "pve_pool", filter, false)); !slices.Equal(got, want) {
			t.Errorf("list pve_pool %q = %v, want %v", pattern, got, want)
		}
		if reads, writes := p.Requests(); reads != 1 || writes != 0 {
			t.Errorf("list pve_pool %q: %d reads, %d writes; want the one GET /pools", pattern, reads, writes)
		}
	}
	for _, r := range p.List(t, "pve_pool", nil, true) {
		checkListedIsImport(t, p, "pve_pool", r)
	}
	acctest.WantError(t, p.ValidateList(t, "pve_pool", map[string]any{"poolid": "[prod"}), "poolid", regexp.MustCompile(`not a valid pattern`))
}

// checkListedIsImport fails unless the listed object r is the state and
// identity an import by its identity makes, and the configuration
// generated from it plans no change against that import.
func checkListedIsImport(t *testing.T, p *acctest.Protocol, typeName string, r acctest.Listed) {
	t.Helper()
	if r.Resource == nil {
		t.Fatalf("%s %s: no object", typeName, r.DisplayName)
	}
	imported := p.ImportByIdentity(t, typeName, r.Identity)
	listed := p.StateValue(t, typeName, r.Resource)
	if want := p.StateValue(t, typeName, imported.State); !listed.Equal(want) {
		t.Errorf("%s %s: listed object differs from the import:\n%s\nimport:\n%s", typeName, r.DisplayName, listed, want)
	}
	if got, want := p.IdentityValues(t, typeName, r.Identity), p.IdentityValues(t, typeName, imported.Identity); !reflect.DeepEqual(got, want) {
		t.Errorf("%s %s: identity %v, import's %v", typeName, r.DisplayName, got, want)
	}
	// The generated configuration: the object without its computed-only
	// attributes, planned against the import.
	planned := p.Plan(t, typeName, imported.State, p.ConfigFromState(t, typeName, r.Resource))
	if got := p.StateValue(t, typeName, planned); !got.Equal(p.StateValue(t, typeName, imported.State)) {
		t.Errorf("%s %s: the generated configuration plans a change:\n%s", typeName, r.DisplayName, got)
	}
}

// The artifact list resources find the files of their content type with
// one request for the storages and one per storage that holds the type,
// each with include_resource as its resource imports it.
func TestListArtifacts(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	files := map[string]string{
		"pve_iso":         "debian-13-netinst.iso",
		"pve_os_template": "debian-13-standard_13.1-1_amd64.tar.zst",
		"pve_disk_image":  "debian-13-genericcloud-amd64.qcow2",
	}
	located := func(typeName string, results []acctest.Listed) []string {
		var out []string
		for _, r := range results {
			id := p.IdentityValues(t, typeName, r.Identity)
			out = append(out, fmt.Sprintf("%v/%v/%v", id["node"], id["storage"], id["file_name"]))
		}
		return out
	}
	for typeName, file := range files {
		// The simulator's nodes each hold the file on their local storage;
		// its shared storage, which takes the type too, is listed once.
		cases := []struct {
			filter map[string]any
			want   []string
			reads  int
		}{
			{nil, []string{"pve1/local/" + file, "pve2/local/" + file, "pve3/local/" + file}, 5},
			{map[string]any{"node": "pve2"}, []string{"pve2/local/" + file}, 3},
			{map[string]any{"storage": "local", "file_name": "debian-13-*"}, []string{"pve1/local/" + file, "pve2/local/" + file, "pve3/local/" + file}, 4},
			{map[string]any{"file_name": "ubuntu-*"}, nil, 5},
			{map[string]any{"storage": "local-lvm"}, nil, 1},
		}
		for _, c := range cases {
			p.Sim.ResetCounters()
			if got := located(typeName, p.List(t, typeName, c.filter, false)); !slices.Equal(got, c.want) {
				t.Errorf("list %s %v = %v, want %v", typeName, c.filter, got, c.want)
			}
			if reads, writes := p.Requests(); reads != c.reads || writes != 0 {
				t.Errorf("list %s %v: %d reads, %d writes; want %d reads", typeName, c.filter, reads, writes, c.reads)
			}
		}
		results := p.List(t, typeName, map[string]any{"node": "pve1"}, true)
		if len(results) != 1 {
			t.Fatalf("%s on pve1: %d results", typeName, len(results))
		}
		checkListedIsImport(t, p, typeName, results[0])
	}
	acctest.WantError(t, p.ValidateList(t, "pve_iso", map[string]any{"file_name": "[debian"}), "file_name", regexp.MustCompile(`not a valid pattern`))
}

// Every list resource lists a resource type the provider has, describes
// each filter for its documentation page and has the example the page is
// made from (the examples test checks that only with Terraform 1.14 or
// later, which reports list resources).
func TestEveryListResourceIsDocumented(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := provider.New("test")()
	withLists, ok := p.(interface {
		ListResources(context.Context) []func() list.ListResource
	})
	if !ok {
		t.Fatal("the provider has no list resources")
	}
	resources := map[string]bool{}
	for _, newResource := range p.Resources(ctx) {
		var meta resource.MetadataResponse
		newResource().Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "pve"}, &meta)
		resources[meta.TypeName] = true
	}
	for _, newList := range withLists.ListResources(ctx) {
		l := newList()
		var meta resource.MetadataResponse
		l.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "pve"}, &meta)
		if !resources[meta.TypeName] {
			t.Errorf("list resource %s lists no resource type of the provider", meta.TypeName)
		}
		var s list.ListResourceSchemaResponse
		l.ListResourceConfigSchema(ctx, list.ListResourceSchemaRequest{}, &s)
		if s.Schema.MarkdownDescription == "" {
			t.Errorf("list resource %s has no description", meta.TypeName)
		}
		for name, a := range s.Schema.Attributes {
			if a.GetMarkdownDescription() == "" {
				t.Errorf("list resource %s: %s has no description", meta.TypeName, name)
			}
		}
		example := filepath.Join("..", "..", "examples", "list-resources", meta.TypeName, "list-resource.tfquery.hcl")
		if _, err := os.Stat(example); err != nil {
			t.Errorf("list resource %s has no example: %v", meta.TypeName, err)
		}
	}
}
