package qemu

import (
	"context"
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// listingJSON is shaped like PVE's GET /cluster/resources?type=vm: numbers
// sometimes as strings (W5), containers mixed in, and a clone target that
// has no details yet (W11).
const listingJSON = `[
 {"id":"qemu/105","type":"qemu","vmid":105,"node":"pve2","name":"web-2","status":"running","template":0,
  "tags":"prod;web","maxmem":2147483648,"maxcpu":2,"pool":"prod"},
 {"id":"qemu/101","type":"qemu","vmid":"101","node":"pve1","name":"web-1","status":"stopped","template":"0",
  "tags":"Web;prod;Web","maxmem":"1073741824","maxcpu":"4"},
 {"id":"lxc/102","type":"lxc","vmid":102,"node":"pve1","name":"web-1","status":"running","template":0,"tags":"web"},
 {"id":"qemu/9000","type":"qemu","vmid":9000,"node":"pve1","name":"debian-13","status":"stopped","template":1,
  "tags":"template","maxmem":536870912,"maxcpu":1},
 {"id":"qemu/130","type":"qemu","vmid":130,"node":"pve3","status":"unknown","lock":"clone"},
 {"id":"qemu/140","type":"qemu","vmid":140,"node":"pve3","name":"db","status":"stopped","template":0,
  "lock":"backup","maxmem":4294967296,"maxcpu":8},
 {"id":"qemu/141","type":"qemu","vmid":141,"node":"pve1","name":"db","status":"running","template":0,
  "maxmem":4294967296,"maxcpu":8}
]`

func testListing(t *testing.T) []pveapi.Resource {
	t.Helper()
	var listing []pveapi.Resource
	if err := json.Unmarshal([]byte(listingJSON), &listing); err != nil {
		t.Fatalf("decode listing: %v", err)
	}
	return listing
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

func TestSummaryFromListing(t *testing.T) {
	t.Parallel()
	listing := testListing(t)

	got := summaryFromListing(listing[1])
	if got.VMID.ValueInt64() != 101 || got.Name.ValueString() != "web-1" || got.Node.ValueString() != "pve1" ||
		got.Status.ValueString() != "stopped" || got.Template.ValueBool() {
		t.Errorf("summary = %+v", got)
	}
	// W19: tags come back folded to lowercase, without repeats.
	if tags := setStrings(t, got.Tags); !reflect.DeepEqual(tags, []string{"prod", "web"}) {
		t.Errorf("tags = %v", tags)
	}
	if got.Memory.ValueInt64() != 1024 || got.CPUs.ValueInt64() != 4 {
		t.Errorf("memory = %v MiB, cpus = %v", got.Memory, got.CPUs)
	}
	if !got.Pool.IsNull() || !got.Lock.IsNull() {
		t.Errorf("pool = %v, lock = %v; want both null", got.Pool, got.Lock)
	}

	withPool := summaryFromListing(listing[0])
	if withPool.Pool.ValueString() != "prod" {
		t.Errorf("pool = %v", withPool.Pool)
	}

	untagged := summaryFromListing(listing[5])
	if untagged.Tags.IsNull() || len(untagged.Tags.Elements()) != 0 {
		t.Errorf("tags of an untagged VM = %v, want an empty set", untagged.Tags)
	}
	if untagged.Lock.ValueString() != "backup" {
		t.Errorf("lock = %v", untagged.Lock)
	}

	template := summaryFromListing(listing[3])
	if !template.Template.ValueBool() {
		t.Errorf("template = %v", template.Template)
	}
}

// W11: a VM mid-clone has only its id, node, lock and status; everything
// else is unknown, hence null rather than empty or false.
func TestSummaryFromListingDetailsPendingW11(t *testing.T) {
	t.Parallel()
	got := summaryFromListing(testListing(t)[4])
	if got.VMID.ValueInt64() != 130 || got.Node.ValueString() != "pve3" ||
		got.Status.ValueString() != "unknown" || got.Lock.ValueString() != "clone" {
		t.Errorf("summary = %+v", got)
	}
	for name, isNull := range map[string]bool{
		"name": got.Name.IsNull(), "tags": got.Tags.IsNull(), "template": got.Template.IsNull(),
		"memory": got.Memory.IsNull(), "cpus": got.CPUs.IsNull(),
	} {
		if !isNull {
			t.Errorf("%s is not null", name)
		}
	}
}

func TestListedTagsKeepsOddTags(t *testing.T) {
	t.Parallel()
	entry := pveapi.Resource{Type: "qemu", Tags: "B;a b;A"}
	if got := listedTags(entry); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("listedTags = %v", got)
	}
	odd := pveapi.Resource{Type: "qemu", Tags: "Ok;bad!tag"}
	if got := listedTags(odd); !reflect.DeepEqual(got, []string{"bad!tag", "ok"}) {
		t.Errorf("listedTags = %v", got)
	}
}

func TestSelectVMs(t *testing.T) {
	t.Parallel()
	listing := testListing(t)
	yes, no := true, false

	tests := []struct {
		name   string
		filter vmFilter
		want   []int
	}{
		// Containers never appear; a VM mid-clone does (W11) when no
		// filter needs its details.
		{"all", vmFilter{}, []int{101, 105, 130, 140, 141, 9000}},
		{"node", vmFilter{node: "pve1"}, []int{101, 141, 9000}},
		{"node with pending VM", vmFilter{node: "pve3"}, []int{130, 140}},
		{"unknown node", vmFilter{node: "pve9"}, []int{}},
		{"one tag", vmFilter{tags: []string{"web"}}, []int{101, 105}},
		{"all tags", vmFilter{tags: []string{"prod", "web"}}, []int{101, 105}},
		{"tag nobody has all of", vmFilter{tags: []string{"web", "template"}}, []int{}},
		{"regex", vmFilter{nameRegex: regexp.MustCompile(`^web-`)}, []int{101, 105}},
		{"regex unanchored", vmFilter{nameRegex: regexp.MustCompile(`b`)}, []int{101, 105, 140, 141, 9000}},
		{"templates", vmFilter{template: &yes}, []int{9000}},
		{"not templates", vmFilter{template: &no}, []int{101, 105, 140, 141}},
		{"combined", vmFilter{node: "pve1", template: &no, tags: []string{"prod"}}, []int{101}},
		{"regex matching the empty name", vmFilter{nameRegex: regexp.MustCompile(`.*`), node: "pve3"}, []int{140}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := vmids(selectVMs(listing, tt.filter)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("selected %v, want %v", got, tt.want)
			}
		})
	}
}

func TestFindVMByID(t *testing.T) {
	t.Parallel()
	listing := testListing(t)

	got, err := findVMByID(listing, 105)
	if err != nil || got.Name != "web-2" {
		t.Fatalf("findVMByID(105) = %+v, %v", got, err)
	}
	// A locked VM with details is found; the lock is only reported.
	if got, err := findVMByID(listing, 140); err != nil || got.Lock != "backup" {
		t.Errorf("findVMByID(140) = %+v, %v", got, err)
	}

	tests := []struct {
		vmid    int64
		summary string
		detail  []string
	}{
		{102, "Guest Is Not A VM", []string{"VMID 102", "container", "pve_container"}},
		// W11: present but without details: never "not found".
		{130, "VM Is Being Created", []string{"VM 130", "pve3", "lock: clone"}},
		{999, "VM Not Found", []string{"VMID 999", "VM.Audit"}},
	}
	for _, tt := range tests {
		_, err := findVMByID(listing, tt.vmid)
		if err == nil {
			t.Errorf("findVMByID(%d) succeeded", tt.vmid)
			continue
		}
		if err.summary != tt.summary {
			t.Errorf("findVMByID(%d) summary = %q, want %q", tt.vmid, err.summary, tt.summary)
		}
		for _, part := range tt.detail {
			if !strings.Contains(err.detail, part) {
				t.Errorf("findVMByID(%d) detail %q lacks %q", tt.vmid, err.detail, part)
			}
		}
	}
}

func TestFindVMByName(t *testing.T) {
	t.Parallel()
	listing := testListing(t)

	// A container of the same name does not make the name ambiguous.
	got, err := findVMByName(listing, "web-1")
	if err != nil || got.VMID != 101 {
		t.Fatalf("findVMByName(web-1) = %+v, %v", got, err)
	}

	_, err = findVMByName(listing, "db")
	if err == nil || err.summary != "VM Name Is Ambiguous" {
		t.Fatalf("findVMByName(db) error = %v", err)
	}
	for _, part := range []string{`2 VMs are named "db"`, "140 on pve3, 141 on pve1", "by vmid"} {
		if !strings.Contains(err.detail, part) {
			t.Errorf("ambiguity detail %q lacks %q", err.detail, part)
		}
	}

	// Names match exactly, not by prefix or case.
	for _, name := range []string{"web", "WEB-1"} {
		if _, err := findVMByName(listing, name); err == nil || err.summary != "VM Not Found" {
			t.Errorf("findVMByName(%q) error = %v", name, err)
		}
	}
}

// W11: a nameless entry is in progress, never a match and never ignored:
// the not-found error names it.
func TestFindVMByNamePendingW11(t *testing.T) {
	t.Parallel()
	_, err := findVMByName(testListing(t), "web-3")
	if err == nil || err.summary != "VM Not Found" {
		t.Fatalf("error = %v", err)
	}
	if !strings.Contains(err.detail, "being created or cloned") || !strings.Contains(err.detail, "130 on pve3") {
		t.Errorf("detail %q does not name the VM in progress", err.detail)
	}

	quiet := []pveapi.Resource{{Type: "qemu", VMID: 100, Node: "pve1", Name: "a", Status: "stopped"}}
	_, err = findVMByName(quiet, "web-3")
	if err == nil || strings.Contains(err.detail, "being created") {
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
		if errs := runStringValidator(tagValidator{}, ok); len(errs) != 0 {
			t.Errorf("tag %q refused: %v", ok, errs)
		}
	}
	for _, bad := range []string{"has space", "semi;colon", "-lead", "é"} {
		errs := runStringValidator(tagValidator{}, bad)
		if len(errs) != 1 || !strings.Contains(errs[0], "invalid characters in tag") {
			t.Errorf("tag %q: errors %v", bad, errs)
		}
	}
}

func TestRegexValidator(t *testing.T) {
	t.Parallel()
	if errs := runStringValidator(regexValidator{}, `^web-\d+$`); len(errs) != 0 {
		t.Errorf("valid pattern refused: %v", errs)
	}
	// RE2 has no lookahead; a Perl-style pattern is refused with the reason.
	errs := runStringValidator(regexValidator{}, `^(?!db)`)
	if len(errs) != 1 || !strings.Contains(errs[0], "Invalid Regular Expression") || !strings.Contains(errs[0], "RE2") {
		t.Errorf("errors = %v", errs)
	}
	var resp validator.StringResponse
	regexValidator{}.ValidateString(context.Background(), validator.StringRequest{ConfigValue: types.StringUnknown()}, &resp)
	if resp.Diagnostics.HasError() {
		t.Errorf("unknown value refused: %v", resp.Diagnostics)
	}
}
