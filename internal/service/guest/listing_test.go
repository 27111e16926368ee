package guest

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// listingJSON is shaped like PVE's GET /cluster/resources?type=vm: VMs and
// containers mixed, numbers sometimes as strings (W5), guests that have no
// details yet (W11), a container without a hostname (listed as CT<vmid>)
// and one with a fractional cpulimit.
const listingJSON = `[
 {"id":"qemu/105","type":"qemu","vmid":105,"node":"pve2","name":"web-2","status":"running","template":0,
  "tags":"prod;web","maxmem":2147483648,"maxcpu":2,"pool":"prod"},
 {"id":"qemu/101","type":"qemu","vmid":"101","node":"pve1","name":"web-1","status":"stopped","template":"0",
  "tags":"Web;prod;Web","maxmem":"1073741824","maxcpu":"4"},
 {"id":"lxc/102","type":"lxc","vmid":102,"node":"pve1","name":"web-1","status":"running","template":0,
  "tags":"web","maxmem":536870912,"maxcpu":1.5},
 {"id":"qemu/9000","type":"qemu","vmid":9000,"node":"pve1","name":"debian-13","status":"stopped","template":1,
  "tags":"template","maxmem":536870912,"maxcpu":1},
 {"id":"qemu/130","type":"qemu","vmid":130,"node":"pve3","status":"unknown","lock":"clone"},
 {"id":"qemu/140","type":"qemu","vmid":140,"node":"pve3","name":"db","status":"stopped","template":0,
  "lock":"backup","maxmem":4294967296,"maxcpu":8},
 {"id":"qemu/141","type":"qemu","vmid":141,"node":"pve1","name":"db","status":"running","template":0,
  "maxmem":4294967296,"maxcpu":8},
 {"id":"lxc/8000","type":"lxc","vmid":8000,"node":"pve1","name":"debian-13-ct","status":"stopped","template":1,
  "tags":"template","maxmem":536870912,"maxcpu":1},
 {"id":"lxc/201","type":"lxc","vmid":201,"node":"pve1","name":"dns","status":"running","template":0,
  "tags":"infra;Prod","maxmem":268435456,"maxcpu":2,"pool":"prod"},
 {"id":"lxc/230","type":"lxc","vmid":230,"node":"pve3","status":"unknown","lock":"create"},
 {"id":"lxc/200","type":"lxc","vmid":200,"node":"pve2","name":"CT200","status":"stopped","template":0,
  "maxmem":536870912,"maxcpu":16},
 {"id":"lxc/202","type":"lxc","vmid":202,"node":"pve3","name":"dns","status":"stopped","template":0,
  "lock":"backup","maxmem":268435456,"maxcpu":1}
]`

func testListing(t *testing.T) []pveapi.Resource {
	t.Helper()
	var listing []pveapi.Resource
	if err := json.Unmarshal([]byte(listingJSON), &listing); err != nil {
		t.Fatalf("decode listing: %v", err)
	}
	return listing
}

func entryByID(t *testing.T, vmid int) pveapi.Resource {
	t.Helper()
	for _, e := range testListing(t) {
		if e.VMID.Int() == vmid {
			return e
		}
	}
	t.Fatalf("no entry %d in the test listing", vmid)
	return pveapi.Resource{}
}

func vmids(entries []pveapi.Resource) []int {
	out := []int{}
	for _, e := range entries {
		out = append(out, e.VMID.Int())
	}
	return out
}

func setStrings(t *testing.T, set types.Set) []string {
	t.Helper()
	var out []string
	if diags := set.ElementsAs(context.Background(), &out, false); diags.HasError() {
		t.Fatalf("set elements: %v", diags)
	}
	return out
}

func TestSummaryOfVM(t *testing.T) {
	t.Parallel()

	got := SummaryOf(entryByID(t, 101))
	if got.VMID.ValueInt64() != 101 || got.Node.ValueString() != "pve1" ||
		got.Status.ValueString() != "stopped" || got.Template.ValueBool() {
		t.Errorf("summary = %+v", got)
	}
	// W19: tags come back folded to lowercase, without repeats.
	if diff := cmp.Diff([]string{"prod", "web"}, setStrings(t, got.Tags)); diff != "" {
		t.Errorf("tags mismatch (-want +got):\n%s", diff)
	}
	if got.Memory.ValueInt64() != 1024 || got.CPUs.ValueInt64() != 4 {
		t.Errorf("memory = %v MiB, cpus = %v", got.Memory, got.CPUs)
	}
	if !got.Pool.IsNull() || !got.Lock.IsNull() {
		t.Errorf("pool = %v, lock = %v; want both null", got.Pool, got.Lock)
	}

	if withPool := SummaryOf(entryByID(t, 105)); withPool.Pool.ValueString() != "prod" {
		t.Errorf("pool = %v", withPool.Pool)
	}

	untagged := SummaryOf(entryByID(t, 140))
	if untagged.Tags.IsNull() || len(untagged.Tags.Elements()) != 0 {
		t.Errorf("tags of an untagged VM = %v, want an empty set", untagged.Tags)
	}
	if untagged.Lock.ValueString() != "backup" {
		t.Errorf("lock = %v", untagged.Lock)
	}

	if template := SummaryOf(entryByID(t, 9000)); !template.Template.ValueBool() {
		t.Errorf("template = %v", template.Template)
	}
}

func TestSummaryOfContainer(t *testing.T) {
	t.Parallel()

	got := SummaryOf(entryByID(t, 201))
	if got.VMID.ValueInt64() != 201 || got.Node.ValueString() != "pve1" || got.Status.ValueString() != "running" ||
		got.Template.ValueBool() || got.Pool.ValueString() != "prod" || !got.Lock.IsNull() {
		t.Errorf("summary = %+v", got)
	}
	// W19.
	if diff := cmp.Diff([]string{"infra", "prod"}, setStrings(t, got.Tags)); diff != "" {
		t.Errorf("tags mismatch (-want +got):\n%s", diff)
	}
	if got.Memory.ValueInt64() != 256 || got.CPUs.ValueInt64() != 2 {
		t.Errorf("memory = %v MiB, cpus = %v", got.Memory, got.CPUs)
	}

	// PVE lists cpulimit when cores is unset; 1.5 CPUs' worth needs 2.
	if limited := SummaryOf(entryByID(t, 102)); limited.CPUs.ValueInt64() != 2 || limited.Memory.ValueInt64() != 512 {
		t.Errorf("memory = %v MiB, cpus = %v; want 512, 2", limited.Memory, limited.CPUs)
	}
	if template := SummaryOf(entryByID(t, 8000)); !template.Template.ValueBool() {
		t.Errorf("template = %v", template.Template)
	}
}

// W11: a guest mid-clone or mid-create has only its id, node, lock and
// status; everything else is unknown, hence null rather than empty or
// false.
func TestSummaryOfDetailsPendingW11(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		vmid int
		lock string
	}{{130, "clone"}, {230, "create"}} {
		entry := entryByID(t, tt.vmid)
		got := SummaryOf(entry)
		if got.VMID.ValueInt64() != int64(tt.vmid) || got.Node.ValueString() != "pve3" ||
			got.Status.ValueString() != "unknown" || got.Lock.ValueString() != tt.lock {
			t.Errorf("summary of %d = %+v", tt.vmid, got)
		}
		for name, isNull := range map[string]bool{
			"name": NameOf(entry).IsNull(), "tags": got.Tags.IsNull(), "template": got.Template.IsNull(),
			"memory": got.Memory.IsNull(), "cpus": got.CPUs.IsNull(),
		} {
			if !isNull {
				t.Errorf("%d: %s is not null", tt.vmid, name)
			}
		}
	}

	// An entry without any status at all still reads as unknown.
	bare := SummaryOf(pveapi.Resource{Type: "lxc", VMID: 300, Node: "pve1"})
	if bare.Status.ValueString() != "unknown" {
		t.Errorf("status = %v", bare.Status)
	}
}

func TestNameOf(t *testing.T) {
	t.Parallel()
	for vmid, want := range map[int]string{101: "web-1", 102: "web-1", 200: "CT200"} {
		if got := NameOf(entryByID(t, vmid)); got.ValueString() != want {
			t.Errorf("NameOf(%d) = %v, want %q", vmid, got, want)
		}
	}
	// A numeric hostname arrives as a JSON number (W5) and reads as text.
	var numeric pveapi.Resource
	if err := json.Unmarshal([]byte(`{"type":"lxc","vmid":300,"node":"pve1","name":4242}`), &numeric); err != nil {
		t.Fatal(err)
	}
	if got := NameOf(numeric); got.ValueString() != "4242" {
		t.Errorf("NameOf(numeric) = %v", got)
	}
}

func TestListedTagsKeepsOddTags(t *testing.T) {
	t.Parallel()
	entry := pveapi.Resource{Type: "qemu", Tags: "B;a b;A"}
	if diff := cmp.Diff([]string{"a", "b"}, listedTags(entry)); diff != "" {
		t.Errorf("listedTags mismatch (-want +got):\n%s", diff)
	}
	odd := pveapi.Resource{Type: "lxc", Tags: "Ok;bad!tag"}
	if diff := cmp.Diff([]string{"bad!tag", "ok"}, listedTags(odd)); diff != "" {
		t.Errorf("listedTags mismatch (-want +got):\n%s", diff)
	}
}

func TestSelect(t *testing.T) {
	t.Parallel()
	listing := testListing(t)
	yes, no := true, false

	tests := []struct {
		name   string
		kind   *kindWords
		filter Filter
		want   []int
	}{
		// The other kind never appears; a guest whose details are pending
		// does (W11) when no filter needs its details.
		{"all VMs", vmWords, Filter{}, []int{101, 105, 130, 140, 141, 9000}},
		{"all containers", containerWords, Filter{}, []int{102, 200, 201, 202, 230, 8000}},
		{"node", vmWords, Filter{Node: "pve1"}, []int{101, 141, 9000}},
		{"node with pending VM", vmWords, Filter{Node: "pve3"}, []int{130, 140}},
		{"node with pending container", containerWords, Filter{Node: "pve3"}, []int{202, 230}},
		{"unknown node", containerWords, Filter{Node: "pve9"}, []int{}},
		{"one tag", vmWords, Filter{Tags: []string{"web"}}, []int{101, 105}},
		{"one tag, containers", containerWords, Filter{Tags: []string{"web"}}, []int{102}},
		{"all tags", vmWords, Filter{Tags: []string{"prod", "web"}}, []int{101, 105}},
		{"all tags, containers", containerWords, Filter{Tags: []string{"infra", "prod"}}, []int{201}},
		{"tag nobody has all of", vmWords, Filter{Tags: []string{"web", "template"}}, []int{}},
		{"regex", vmWords, Filter{NameRegex: regexp.MustCompile(`^web-`)}, []int{101, 105}},
		{"regex unanchored", vmWords, Filter{NameRegex: regexp.MustCompile(`b`)}, []int{101, 105, 140, 141, 9000}},
		{"hostname regex", containerWords, Filter{NameRegex: regexp.MustCompile(`^dns$`)}, []int{201, 202}},
		{"fallback hostname matches", containerWords, Filter{NameRegex: regexp.MustCompile(`^CT\d+$`)}, []int{200}},
		{"templates", vmWords, Filter{Template: &yes}, []int{9000}},
		{"container templates", containerWords, Filter{Template: &yes}, []int{8000}},
		{"not templates", vmWords, Filter{Template: &no}, []int{101, 105, 140, 141}},
		{"containers not templates", containerWords, Filter{Template: &no}, []int{102, 200, 201, 202}},
		{"combined", vmWords, Filter{Node: "pve1", Template: &no, Tags: []string{"prod"}}, []int{101}},
		{"regex matching the empty name", vmWords, Filter{NameRegex: regexp.MustCompile(`.*`), Node: "pve3"}, []int{140}},
		{"container regex matching the empty name", containerWords, Filter{NameRegex: regexp.MustCompile(`.*`), Node: "pve3"}, []int{202}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, vmids(tt.kind.Select(listing, tt.filter))); diff != "" {
				t.Errorf("selected VMIDs mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// samePattern compares compiled patterns by their source, which is what a
// filter keeps of the configuration.
var samePattern = cmp.Comparer(func(a, b *regexp.Regexp) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.String() == b.String()
})

func TestNewFilter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	none, diags := containerWords.NewFilter(ctx, FilterConfig{
		Node: types.StringNull(), Tags: types.SetNull(types.StringType),
		NameRegex: types.StringNull(), Template: types.BoolNull(),
	})
	if diags.HasError() {
		t.Errorf("filter of an empty configuration: %v", diags)
	}
	if diff := cmp.Diff(Filter{}, none, samePattern); diff != "" {
		t.Errorf("filter of an empty configuration mismatch (-want +got):\n%s", diff)
	}

	f, diags := containerWords.NewFilter(ctx, FilterConfig{
		Node:      types.StringValue("pve1"),
		Tags:      types.SetValueMust(types.StringType, []attr.Value{types.StringValue("Web"), types.StringValue("prod")}),
		NameRegex: types.StringValue("^dns"),
		Template:  types.BoolValue(false),
	})
	if diags.HasError() {
		t.Fatalf("diagnostics: %v", diags)
	}
	// W19: tags are compared in PVE's normalised form.
	no := false
	want := Filter{Node: "pve1", Tags: []string{"prod", "web"}, NameRegex: regexp.MustCompile("^dns"), Template: &no}
	if diff := cmp.Diff(want, f, samePattern); diff != "" {
		t.Errorf("filter mismatch (-want +got):\n%s", diff)
	}

	// A pattern unknown at plan time is checked at read time, on the
	// kind's own attribute.
	_, diags = containerWords.NewFilter(ctx, FilterConfig{NameRegex: types.StringValue("(")})
	if !hasAttributeError(diags, path.Root("hostname_regex"), "Invalid Regular Expression") {
		t.Errorf("diagnostics = %v", diags)
	}
	// W19.
	_, diags = vmWords.NewFilter(ctx, FilterConfig{
		Tags: types.SetValueMust(types.StringType, []attr.Value{types.StringValue("no spaces")}),
	})
	if !diags.HasError() || diags[0].Summary() != "Invalid Tag" {
		t.Errorf("diagnostics = %v", diags)
	}
}

func hasAttributeError(diags diag.Diagnostics, attrPath path.Path, summary string) bool {
	for _, d := range diags.Errors() {
		if withPath, ok := d.(diag.DiagnosticWithPath); ok && withPath.Path().Equal(attrPath) && d.Summary() == summary {
			return true
		}
	}
	return false
}

func TestFindByID(t *testing.T) {
	t.Parallel()
	listing := testListing(t)

	for _, tt := range []struct {
		kind *kindWords
		vmid int64
		name string
	}{{vmWords, 105, "web-2"}, {containerWords, 102, "web-1"}, {containerWords, 200, "CT200"}} {
		if got, err := tt.kind.FindByID(listing, tt.vmid); err != nil || got.Name.String() != tt.name {
			t.Errorf("%s FindByID(%d) = %+v, %v", tt.kind.Type, tt.vmid, got, err)
		}
	}
	// A locked guest with details is found; the lock is only reported.
	if got, err := vmWords.FindByID(listing, 140); err != nil || got.Lock != "backup" {
		t.Errorf("FindByID(140) = %+v, %v", got, err)
	}
	if got, err := containerWords.FindByID(listing, 202); err != nil || got.Lock != "backup" {
		t.Errorf("FindByID(202) = %+v, %v", got, err)
	}

	tests := []struct {
		kind    *kindWords
		vmid    int64
		summary string
		detail  []string
	}{
		{vmWords, 102, "Guest Is Not A VM", []string{"VMID 102 on node pve1 is a container (lxc), not a QEMU VM", "pve_container"}},
		{containerWords, 101, "Guest Is Not A Container", []string{"VMID 101 on node pve1 is a VM (qemu), not an LXC container", "pve_vm data source for VMs"}},
		// W11: present but without details: never "not found".
		{vmWords, 130, "VM Is Being Created", []string{"VM 130 on node pve3 is being created or cloned (lock: clone)"}},
		{containerWords, 230, "Container Is Being Created", []string{"Container 230 on node pve3 is being created or cloned (lock: create)"}},
		{vmWords, 999, "VM Not Found", []string{"No VM with VMID 999", "VM.Audit", "if the VM does exist"}},
		{containerWords, 999, "Container Not Found", []string{"No container with VMID 999", "VM.Audit", "if the container does exist"}},
	}
	for _, tt := range tests {
		_, err := tt.kind.FindByID(listing, tt.vmid)
		if err == nil {
			t.Errorf("%s FindByID(%d) succeeded", tt.kind.Type, tt.vmid)
			continue
		}
		if err.Summary != tt.summary {
			t.Errorf("%s FindByID(%d) summary = %q, want %q", tt.kind.Type, tt.vmid, err.Summary, tt.summary)
		}
		for _, part := range tt.detail {
			if !strings.Contains(err.Detail, part) {
				t.Errorf("%s FindByID(%d) detail %q lacks %q", tt.kind.Type, tt.vmid, err.Detail, part)
			}
		}
	}
}

func TestFindByName(t *testing.T) {
	t.Parallel()
	listing := testListing(t)

	// A guest of the other kind with the same name makes no ambiguity.
	if got, err := vmWords.FindByName(listing, "web-1"); err != nil || got.VMID != 101 {
		t.Errorf("QEMU FindByName(web-1) = %+v, %v", got, err)
	}
	if got, err := containerWords.FindByName(listing, "web-1"); err != nil || got.VMID != 102 {
		t.Errorf("LXC FindByName(web-1) = %+v, %v", got, err)
	}
	// PVE lists a container without a hostname as CT<vmid>.
	if got, err := containerWords.FindByName(listing, "CT200"); err != nil || got.VMID != 200 {
		t.Errorf("LXC FindByName(CT200) = %+v, %v", got, err)
	}

	ambiguous := []struct {
		kind    *kindWords
		name    string
		summary string
		detail  []string
	}{
		{vmWords, "db", "VM Name Is Ambiguous", []string{`2 VMs are named "db": 140 on pve3, 141 on pve1`, "names to be unique", "the pve_vms data source"}},
		{containerWords, "dns", "Container Hostname Is Ambiguous", []string{`2 containers are named "dns": 201 on pve1, 202 on pve3`, "hostnames to be unique", "the pve_containers data source"}},
	}
	for _, tt := range ambiguous {
		_, err := tt.kind.FindByName(listing, tt.name)
		if err == nil || err.Summary != tt.summary {
			t.Errorf("%s FindByName(%s) error = %v", tt.kind.Type, tt.name, err)
			continue
		}
		for _, part := range tt.detail {
			if !strings.Contains(err.Detail, part) {
				t.Errorf("ambiguity detail %q lacks %q", err.Detail, part)
			}
		}
	}

	// Names match exactly, not by prefix or case.
	for _, name := range []string{"web", "WEB-1"} {
		if _, err := vmWords.FindByName(listing, name); err == nil || err.Summary != "VM Not Found" {
			t.Errorf("QEMU FindByName(%q) error = %v", name, err)
		}
	}
	for _, name := range []string{"dn", "DNS", "ct200"} {
		if _, err := containerWords.FindByName(listing, name); err == nil || err.Summary != "Container Not Found" {
			t.Errorf("LXC FindByName(%q) error = %v", name, err)
		}
	}
}

// W11: a nameless entry is in progress, never a match and never ignored:
// the not-found error names it, and only entries of the kind looked for.
func TestFindByNamePendingW11(t *testing.T) {
	t.Parallel()
	listing := testListing(t)

	_, err := vmWords.FindByName(listing, "web-3")
	if err == nil || err.Summary != "VM Not Found" {
		t.Fatalf("error = %v", err)
	}
	if !strings.Contains(err.Detail, "These VMs are being created or cloned and have no name yet") ||
		!strings.Contains(err.Detail, "may be one of them: 130 on pve3.") {
		t.Errorf("detail %q does not name the VM in progress", err.Detail)
	}

	_, err = containerWords.FindByName(listing, "mail")
	if err == nil || err.Summary != "Container Not Found" {
		t.Fatalf("error = %v", err)
	}
	if !strings.Contains(err.Detail, "These containers are being created or cloned and have no hostname yet") ||
		!strings.Contains(err.Detail, "may be one of them: 230 on pve3.") {
		t.Errorf("detail %q does not name the container in progress", err.Detail)
	}

	quiet := []pveapi.Resource{{Type: "qemu", VMID: 100, Node: "pve1", Name: "a", Status: "stopped"}}
	_, err = vmWords.FindByName(quiet, "web-3")
	if err == nil || strings.Contains(err.Detail, "being created") {
		t.Errorf("error without a VM in progress = %v", err)
	}
}

func runStringValidator(v validator.String, value string) []string {
	req := validator.StringRequest{Path: path.Root("x"), ConfigValue: types.StringValue(value)}
	var resp validator.StringResponse
	v.ValidateString(context.Background(), req, &resp)
	var out []string
	for _, d := range resp.Diagnostics.Errors() {
		out = append(out, d.Summary()+": "+d.Detail())
	}
	return out
}

// W19: tags PVE refuses are refused before any request.
func TestTagValidatorW19(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"web", "Prod", "a.b-c_d+e", "_x", "2024"} {
		if errs := runStringValidator(TagValidator{}, ok); len(errs) != 0 {
			t.Errorf("tag %q refused: %v", ok, errs)
		}
	}
	for _, bad := range []string{"has space", "semi;colon", "-lead", "é"} {
		errs := runStringValidator(TagValidator{}, bad)
		if len(errs) != 1 || !strings.Contains(errs[0], "invalid characters in tag") {
			t.Errorf("tag %q: errors %v", bad, errs)
		}
	}
}

func TestRegexValidator(t *testing.T) {
	t.Parallel()
	if errs := runStringValidator(RegexValidator{}, `^web-\d+$`); len(errs) != 0 {
		t.Errorf("valid pattern refused: %v", errs)
	}
	// RE2 has no lookahead; a Perl-style pattern is refused with the reason.
	errs := runStringValidator(RegexValidator{}, `^(?!db)`)
	if len(errs) != 1 || !strings.Contains(errs[0], "Invalid Regular Expression") || !strings.Contains(errs[0], "RE2") {
		t.Errorf("errors = %v", errs)
	}
	var resp validator.StringResponse
	RegexValidator{}.ValidateString(context.Background(), validator.StringRequest{ConfigValue: types.StringUnknown()}, &resp)
	if resp.Diagnostics.HasError() {
		t.Errorf("unknown value refused: %v", resp.Diagnostics)
	}
}

func TestSchemas(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		kind                       *kindWords
		name, regex, list, foreign string
	}{
		{vmWords, "name", "name_regex", "vms", "hostname"},
		{containerWords, "hostname", "hostname_regex", "containers", "name"},
	}
	for _, tt := range tests {
		lookup := tt.kind.LookupSchema()
		list := tt.kind.ListSchema()
		for _, s := range []schema.Schema{lookup, list} {
			if diags := s.ValidateImplementation(ctx); diags.HasError() {
				t.Errorf("%s schema: %v", tt.kind.Type, diags)
			}
		}

		nameAttr, ok := lookup.Attributes[tt.name].(schema.StringAttribute)
		if !ok || !nameAttr.Optional || !nameAttr.Computed {
			t.Errorf("%s lookup: %q = %#v, want an optional computed string", tt.kind.Type, tt.name, lookup.Attributes[tt.name])
		}
		if _, ok := lookup.Attributes[tt.foreign]; ok {
			t.Errorf("%s lookup has %q", tt.kind.Type, tt.foreign)
		}
		if _, ok := list.Attributes[tt.regex]; !ok {
			t.Errorf("%s list lacks %q", tt.kind.Type, tt.regex)
		}
		nested, ok := list.Attributes[tt.list].(schema.ListNestedAttribute)
		if !ok {
			t.Fatalf("%s list lacks the nested %q", tt.kind.Type, tt.list)
		}
		if _, ok := nested.NestedObject.Attributes[tt.name]; !ok {
			t.Errorf("%s list entries lack %q", tt.kind.Type, tt.name)
		}
		if len(nested.NestedObject.Attributes) != 10 {
			t.Errorf("%s list entries have %d attributes, want 10", tt.kind.Type, len(nested.NestedObject.Attributes))
		}
	}
}

// The container schemas speak of containers: no VM wording leaks into them
// from the shared descriptions (VMID and VM.Audit are PVE's own terms), but
// for the one sentence that says VMs are left out.
func TestContainerSchemaWording(t *testing.T) {
	t.Parallel()
	vmWord := regexp.MustCompile(`\bVMs?\b|VM's|pve_vm\b|QEMU|\bname_regex`)
	check := func(where, text string) {
		if vmWord.MatchString(strings.Replace(text, "; VMs are never included.", ".", 1)) {
			t.Errorf("%s: %q speaks of VMs", where, text)
		}
	}
	lookup, list := containerWords.LookupSchema(), containerWords.ListSchema()
	check("pve_container", lookup.MarkdownDescription)
	check("pve_containers", list.MarkdownDescription)
	for name, a := range lookup.Attributes {
		check("pve_container."+name, a.GetMarkdownDescription())
	}
	for name, a := range list.Attributes {
		check("pve_containers."+name, a.GetMarkdownDescription())
	}
	nested := list.Attributes["containers"].(schema.ListNestedAttribute)
	for name, a := range nested.NestedObject.Attributes {
		check("pve_containers.containers."+name, a.GetMarkdownDescription())
	}
}

// A guest whose node is offline is listed with only its id, node and
// status "unknown", and no lock: looking it up says the node is not
// reporting, not that the guest is being created.
func TestFindByIDOfflineNode(t *testing.T) {
	t.Parallel()
	var listing []pveapi.Resource
	const offline = `[{"id":"qemu/150","type":"qemu","vmid":150,"node":"pve3","status":"unknown","tags":"db"}]`
	if err := json.Unmarshal([]byte(offline), &listing); err != nil {
		t.Fatal(err)
	}
	_, err := vmWords.FindByID(listing, 150)
	if err == nil {
		t.Fatal("FindByID(150) succeeded for a guest without details")
	}
	if err.Summary != "VM Details Unavailable" || !strings.Contains(err.Detail, "node is probably offline") {
		t.Errorf("FindByID(150) = %q: %q", err.Summary, err.Detail)
	}
	if s := SummaryOf(listing[0]); s.Status.ValueString() != "unknown" || !s.Tags.IsNull() {
		t.Errorf("SummaryOf(offline) = %+v, want status unknown and null tags", s)
	}
}
