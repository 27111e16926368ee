package guestops

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

func TestDiffKeysSetsDeletesAndKeepsW16(t *testing.T) {
	t.Parallel()
	one, two, tags := "1", "2", "a;b"
	wanted := map[string]*string{"cores": &two, "onboot": &one, "memory": nil, "swap": nil, "tags": &tags}
	live := pveapi.GuestConfig{"cores": "1", "onboot": "1", "memory": "512", "tags": "B;a"}
	delta := &wire.ConfigDelta{}
	DiffKeys(delta, wanted, live, func(key, want, have string) bool {
		if same, ok := SameValue(key, want, have); ok {
			return same
		}
		return want == have
	})
	if got := delta.SetKeys(); !slices.Equal(got, []string{"cores"}) {
		t.Errorf("set %v, want only cores (W19: tags equal as a normalised set)", got)
	}
	// W16: a key absent live is not deleted, and no key is both set and
	// deleted.
	if got := delta.Deleted(); !slices.Equal(got, []string{"memory"}) {
		t.Errorf("deleted %v, want memory", got)
	}
	if err := delta.Validate(); err != nil {
		t.Errorf("W16: %v", err)
	}
}

func TestDescriptionKeepsTrailingNewlineW20(t *testing.T) {
	t.Parallel()
	config := pveapi.GuestConfig{"description": "line 1\nline 2"}
	prior := types.StringValue("line 1\nline 2\n")
	if got := DescriptionFromAPI(config, prior); !got.Equal(prior) {
		t.Errorf("W20: the configured spelling is kept, got %q", got.ValueString())
	}
	if got := DescriptionFromAPI(config, types.StringValue("other")); got.ValueString() != "line 1\nline 2" {
		t.Errorf("a changed description reads as PVE has it, got %q", got.ValueString())
	}
	if got := DescriptionFromAPI(pveapi.GuestConfig{}, prior); !got.IsNull() {
		t.Errorf("absent is null, got %v", got)
	}
}

// W20: a container's description comes back with a newline after its
// last line ("one line" as "one line\n"), a VM's without trailing
// whitespace. Either way the configured spelling is kept, and with no
// prior value (import, data sources) both read without trailing
// whitespace.
func TestContainerDescriptionReadBackW20(t *testing.T) {
	t.Parallel()
	cases := []struct {
		stored string
		prior  types.String
		want   types.String
	}{
		{"one line\n", types.StringValue("one line"), types.StringValue("one line")},
		{"one line\n", types.StringValue("one line\n"), types.StringValue("one line\n")},
		{"first\n\nsecond\n", types.StringValue("first\n\nsecond"), types.StringValue("first\n\nsecond")},
		{"first\nsecond\n", types.StringNull(), types.StringValue("first\nsecond")},
		{"one line\n", types.StringValue("other"), types.StringValue("one line")},
		{"  \n", types.StringNull(), types.StringNull()},
	}
	for _, c := range cases {
		got := DescriptionFromAPI(pveapi.GuestConfig{KeyDescription: c.stored}, c.prior)
		if !got.Equal(c.want) {
			t.Errorf("DescriptionFromAPI(%q, %v) = %v, want %v", c.stored, c.prior, got, c.want)
		}
	}
	if same, _ := SameValue(KeyDescription, "one line", "one line\n"); !same {
		t.Error("a container's read-back newline is no change to send")
	}
}

func TestTagsFromAPIW19(t *testing.T) {
	t.Parallel()
	tags, err := TagsFromAPI(pveapi.GuestConfig{"tags": "web;db"})
	if err != nil || !slices.Equal(tags.Tags(), []string{"db", "web"}) && !slices.Equal(tags.Tags(), []string{"web", "db"}) {
		t.Errorf("tags %v %v", tags, err)
	}
	if tags, _ := TagsFromAPI(pveapi.GuestConfig{"tags": ""}); !tags.IsNull() {
		t.Errorf("empty tags are null, got %v", tags)
	}
	want, err := WantedTags(fwutil.TagSetOf([]string{"Web", "db"}))
	if err != nil || want == nil || *want != "db;web" {
		t.Errorf("W19: wanted tags %v %v", want, err)
	}
}

func volume(storage, size, id string) Volume {
	return Volume{Storage: types.StringValue(storage), Size: fwutil.SizeFromString(size), ID: types.StringValue(id)}
}

func TestShrinkIssueW22(t *testing.T) {
	t.Parallel()
	p := path.Root("mount_points").AtMapKey("mp0").AtName("size")
	issue, ok := ShrinkIssue(p, MountPointNoun, "mp0", fwutil.SizeFromString("10"), fwutil.SizeFromString("8"))
	if !ok || issue.Warning || issue.Summary != "Mount Point Cannot Shrink" || !strings.Contains(issue.Detail, "Mount point mp0 is 10 GiB in PVE; the configuration asks for 8 GiB") {
		t.Errorf("W22: %v", issue)
	}
	for _, fix := range []string{"set size = 10 ", `ignore_changes = [mount_points["mp0"].size]`} {
		if !strings.Contains(issue.Detail, fix) {
			t.Errorf("W22: the detail does not offer %q: %s", fix, issue.Detail)
		}
	}
	odd, _ := ShrinkIssue(p, MountPointNoun, "mp0", fwutil.SizeFromString("2252M"), fwutil.SizeFromString("1"))
	if !strings.Contains(odd.Detail, `set size = "2252M" `) {
		t.Errorf("W22: a size that is no whole GiB is offered quoted: %s", odd.Detail)
	}
	if _, ok := ShrinkIssue(p, DiskNoun, "scsi0", fwutil.SizeFromString("32"), fwutil.SizeFromString("32768M")); ok {
		t.Error("the same size in other units is no shrink")
	}
	if _, ok := ShrinkIssue(p, DiskNoun, "scsi0", fwutil.SizeFromString("32"), fwutil.SizeFromString("40")); ok {
		t.Error("growing is allowed")
	}
}

func TestLookalikeAndDetachW24(t *testing.T) {
	t.Parallel()
	removed := volume("local-lvm", "10", "local-lvm:vm-130-disk-1")
	added := map[string]Volume{"mp3": volume("local-lvm", "8", ""), "mp2": volume("local-lvm", "10", "")}
	if slot, ok := Lookalike(removed, added); !ok || slot != "mp2" {
		t.Errorf("lookalike %q %v", slot, ok)
	}
	if _, ok := Lookalike(removed, map[string]Volume{"mp2": volume("other", "10", "")}); ok {
		t.Error("another storage is not a lookalike")
	}
	issue := DetachIssue(path.Root("mount_points").AtMapKey("mp0"), MountPointNoun, "mp0", removed, types.BoolValue(false))
	if !issue.Warning || !strings.Contains(issue.Detail, "unusedN") || !strings.Contains(issue.Detail, "local-lvm:vm-130-disk-1") {
		t.Errorf("W24: %v", issue)
	}
	issue = DetachIssue(path.Root("disks").AtMapKey("scsi1"), DiskNoun, "scsi1", removed, types.BoolValue(true))
	if !strings.Contains(issue.Detail, "DESTROYED") {
		t.Errorf("purge must say the volume is destroyed: %v", issue)
	}
}

func TestFollowUpsW22W23(t *testing.T) {
	t.Parallel()
	planned := map[string]Volume{
		"rootfs": volume("local-lvm", "8", ""),
		"mp0":    volume("shared-nfs", "12", ""),
		"mp1":    volume("local-lvm", "4", ""),
	}
	live := map[string]wire.Drive{}
	for slot, value := range map[string]string{
		"rootfs": "local-lvm:vm-130-disk-0,size=8G",
		"mp0":    "local-lvm:vm-130-disk-1,mp=/data,size=10G",
		"mp1":    "local-lvm:vm-130-disk-2,mp=/logs,size=4G",
	} {
		d, err := wire.ParseDrive(value)
		if err != nil {
			t.Fatal(err)
		}
		live[slot] = d
	}
	resizes, moves, err := FollowUps(MountPointNoun, planned, live)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(resizes, []Resize{{Slot: "mp0", Size: "12G"}}) {
		t.Errorf("W22: resizes %v", resizes)
	}
	if !slices.Equal(moves, []Move{{Slot: "mp0", Storage: "shared-nfs"}}) {
		t.Errorf("W23: moves %v", moves)
	}
	planned["mp1"] = volume("local-lvm", "2", "")
	if _, _, err := FollowUps(MountPointNoun, planned, live); err == nil || !strings.Contains(err.Error(), "larger than the planned 2; PVE cannot shrink a volume") {
		t.Errorf("W22: a smaller planned size must fail, got %v", err)
	}
	delete(live, "mp1")
	if _, _, err := FollowUps(MountPointNoun, planned, live); err == nil {
		t.Error("a slot PVE did not keep must fail")
	}
}

func TestUnusedSlotsHoldingW24(t *testing.T) {
	t.Parallel()
	config := pveapi.GuestConfig{
		"unused0": "local-lvm:vm-120-disk-2",
		"unused1": "local-lvm:vm-120-disk-1",
		"scsi0":   "local-lvm:vm-120-disk-0,size=32G",
	}
	got := UnusedSlotsHolding(config, map[string]string{"virtio0": "local-lvm:vm-120-disk-1"})
	if !slices.Equal(got, []string{"unused1"}) {
		t.Errorf("unused slots %v", got)
	}
}

func TestPendingKeys(t *testing.T) {
	t.Parallel()
	entries := []pveapi.PendingEntry{
		{Key: "memory", Value: "2048", HasValue: true, Pending: "4096", HasPending: true},
		{Key: "name", Value: "web", HasValue: true},
		{Key: "balloon", Value: "1024", HasValue: true, Delete: 1},
	}
	if got := PendingKeys(entries); !slices.Equal(got, []string{"balloon", "memory"}) {
		t.Errorf("pending %v", got)
	}
}

func TestLocalDisks(t *testing.T) {
	t.Parallel()
	shared := map[string]bool{"shared-nfs": true}
	if LocalDisks(pveapi.GuestConfig{"scsi0": "shared-nfs:120/vm-120-disk-0.qcow2,size=8G", "ide2": "local:iso/x.iso,media=cdrom"}, shared) {
		t.Error("disks on shared storage and CD-ROMs are not local disks")
	}
	if !LocalDisks(pveapi.GuestConfig{"scsi0": "local-lvm:vm-120-disk-0,size=8G"}, shared) {
		t.Error("a disk on local-lvm is local")
	}
	if !LocalDisks(pveapi.GuestConfig{"efidisk0": "local-lvm:vm-120-disk-1,size=4M"}, shared) {
		t.Error("an EFI disk on local-lvm is local")
	}
}

func TestParseImportID(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]struct {
		node string
		vmid int
	}{"120": {"", 120}, "pve1/120": {"pve1", 120}} {
		node, vmid, err := Container.ParseImportID(id)
		if err != nil || node != want.node || vmid != want.vmid {
			t.Errorf("%q: %q %d %v", id, node, vmid, err)
		}
	}
	for _, bad := range []string{"", "abc", "99", "pve1/", "/120", "pve1/0120", "a/b/120", "pve_1/120"} {
		_, _, err := Container.ParseImportID(bad)
		if err == nil {
			t.Errorf("%q must be refused", bad)
			continue
		}
		if !strings.Contains(err.Error(), "import pve_container by VMID") {
			t.Errorf("%q: the error must say how to import: %v", bad, err)
		}
	}
}

func TestMACFollowsState(t *testing.T) {
	t.Parallel()
	run := func(config, plan, state types.String) types.String {
		req := planmodifier.StringRequest{ConfigValue: config, PlanValue: plan, StateValue: state}
		resp := &planmodifier.StringResponse{PlanValue: plan}
		MACFollowsState().PlanModifyString(context.Background(), req, resp)
		return resp.PlanValue
	}
	prior := types.StringValue("BC:24:11:2A:3B:4C")
	if got := run(types.StringNull(), types.StringUnknown(), prior); !got.Equal(prior) {
		t.Errorf("left out: keep the prior MAC, got %v", got)
	}
	lower := types.StringValue("bc:24:11:2a:3b:4c")
	if got := run(lower, lower, prior); !got.Equal(prior) {
		t.Errorf("same MAC in other case: keep the prior spelling, got %v", got)
	}
	other := types.StringValue("BC:24:11:00:00:01")
	if got := run(other, other, prior); !got.Equal(other) {
		t.Errorf("a new MAC is planned as configured, got %v", got)
	}
}

func TestCommonAttributesAndWithAttributes(t *testing.T) {
	t.Parallel()
	common := CommonAttributes(context.Background(), Container)
	for _, name := range []string{"id", "node", "vmid", "description", "tags", "pool", "on_boot", "protection", "started", "purge_removed_disks", "reboot_after_update", "status", "timeouts"} {
		if _, ok := common[name]; !ok {
			t.Errorf("common attribute %s missing", name)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("an attribute defined twice must panic")
		}
	}()
	WithAttributes(common, map[string]schema.Attribute{"node": common["node"]})
}
