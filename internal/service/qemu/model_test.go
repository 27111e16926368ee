package qemu

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// liveConfig is a VM as PVE reports it after a create from a cloud image
// with a cloud-init drive, an ISO, a detached disk and the keys PVE adds
// on its own.
func liveConfig() pveapi.GuestConfig {
	return pveapi.GuestConfig{
		"name":        "web-1",
		"description": "first line\nsecond line",
		"tags":        "prod;web",
		"onboot":      "1",
		"boot":        "order=scsi0;ide2;net0",
		"cores":       "2",
		"sockets":     "1",
		"cpu":         "x86-64-v2-AES,flags=+aes",
		"cpuunits":    "100",
		"memory":      "current=2048",
		"balloon":     "1024",
		"agent":       "1,fstrim_cloned_disks=1,freeze-fs=0",
		"scsihw":      "virtio-scsi-single",
		"ostype":      "l26",
		"bios":        "ovmf",
		"machine":     "q35",
		"scsi0":       "local-lvm:vm-120-disk-0,discard=on,iothread=1,size=32G,ssd=1",
		"scsi1":       "local-lvm:vm-120-cloudinit,media=cdrom",
		"virtio0":     "local-lvm:vm-120-disk-1,backup=0,iops_rd=500,size=2252M",
		"ide2":        "local:iso/debian-13-netinst.iso,media=cdrom",
		"unused0":     "local-lvm:vm-120-disk-2",
		"efidisk0":    "local-lvm:vm-120-disk-3,efitype=4m,size=4M",
		"net0":        "virtio=BC:24:11:2A:3B:4C,bridge=vmbr0,firewall=1,tag=20",
		"net1":        "e1000=BC:24:11:00:00:01,bridge=vmbr1,trunks=10;20",
		"vmgenid":     "1b2c3d4e-0000-4000-8000-000000000001",
		"smbios1":     "uuid=5f6e7d8c-0000-4000-8000-000000000002",
		"meta":        "creation-qemu=9.2.0,ctime=1700000000",
		"digest":      "0123456789abcdef0123456789abcdef01234567",
	}
}

func mustFromAPI(t *testing.T, config pveapi.GuestConfig, prior *vmModel) *vmModel {
	t.Helper()
	m := &vmModel{}
	if prior != nil {
		m = prior
	}
	status := &pveapi.GuestStatus{Status: "running", QMPStatus: "running"}
	if err := m.fromAPI(120, config, status); err != nil {
		t.Fatalf("fromAPI: %v", err)
	}
	return m
}

func TestFromAPIRealisticConfig(t *testing.T) {
	t.Parallel()
	m := mustFromAPI(t, liveConfig(), nil)

	if m.ID.ValueString() != "120" || m.VMID.ValueInt64() != 120 {
		t.Errorf("id/vmid: %v %v", m.ID, m.VMID)
	}
	if m.Name.ValueString() != "web-1" || m.Description.ValueString() != "first line\nsecond line" {
		t.Errorf("name/description: %v %q", m.Name, m.Description.ValueString())
	}
	if got := m.Tags.Tags(); !slices.Equal(got, []string{"prod", "web"}) {
		t.Errorf("tags: %v", got)
	}
	if got := listStrings(m.BootOrder); !slices.Equal(got, []string{"scsi0", "ide2", "net0"}) {
		t.Errorf("boot order: %v", got)
	}
	if m.CPU == nil || m.CPU.Cores.ValueInt64() != 2 || m.CPU.Type.ValueString() != "x86-64-v2-AES" || m.CPU.Units.ValueInt64() != 100 {
		t.Errorf("cpu: %+v", m.CPU)
	}
	if !m.CPU.Limit.IsNull() || !m.CPU.NUMA.IsNull() {
		t.Errorf("cpu keys absent from the config must be null: %+v", m.CPU)
	}
	// W43: "current=2048" is 2048 MiB.
	if m.Memory == nil || m.Memory.Size.ValueInt64() != 2048 || m.Memory.Balloon.ValueInt64() != 1024 {
		t.Errorf("memory: %+v", m.Memory)
	}
	if m.Agent == nil || !m.Agent.Enabled.ValueBool() || !m.Agent.Trim.ValueBool() || !m.Agent.Type.IsNull() {
		t.Errorf("agent: %+v", m.Agent)
	}
	if !m.OnBoot.ValueBool() || !m.Protection.IsNull() {
		t.Errorf("onboot/protection: %v %v", m.OnBoot, m.Protection)
	}

	// W27: the cloud-init drive on scsi1 is PVE's; W24: unused0 is not a
	// disk; efidisk0 is not a data disk; ide2 is a CD-ROM.
	if got := slices.Sorted(maps.Keys(m.Disks)); !slices.Equal(got, []string{"scsi0", "virtio0"}) {
		t.Fatalf("disks: %v", got)
	}
	scsi0 := m.Disks["scsi0"]
	if scsi0.Storage.ValueString() != "local-lvm" || scsi0.Volume.ValueString() != "local-lvm:vm-120-disk-0" ||
		scsi0.Size.ValueString() != "32" || !scsi0.Discard.ValueBool() || !scsi0.SSD.ValueBool() || !scsi0.IOThread.ValueBool() {
		t.Errorf("scsi0: %+v", scsi0)
	}
	if !scsi0.Backup.IsNull() || !scsi0.Cache.IsNull() || !scsi0.ImportFrom.IsNull() {
		t.Errorf("scsi0 options absent from the drive must be null: %+v", scsi0)
	}
	// An imported cloud image is not whole GiB.
	virtio0 := m.Disks["virtio0"]
	if virtio0.Size.ValueString() != "2252M" || virtio0.Backup.ValueBool() {
		t.Errorf("virtio0: %+v", virtio0)
	}
	if got := slices.Sorted(maps.Keys(m.CDROMs)); !slices.Equal(got, []string{"ide2"}) || m.CDROMs["ide2"].File.ValueString() != "local:iso/debian-13-netinst.iso" {
		t.Errorf("cdroms: %+v", m.CDROMs)
	}
	net0 := m.Network["net0"]
	if net0.Model.ValueString() != "virtio" || net0.MACAddress.ValueString() != "BC:24:11:2A:3B:4C" || net0.Bridge.ValueString() != "vmbr0" ||
		!net0.Firewall.ValueBool() || net0.VLANTag.ValueInt64() != 20 || !net0.LinkDown.IsNull() {
		t.Errorf("net0: %+v", net0)
	}
	if net1 := m.Network["net1"]; net1.Model.ValueString() != "e1000" || net1.Bridge.ValueString() != "vmbr1" {
		t.Errorf("net1: %+v", net1)
	}
	if m.Status.ValueString() != "running" || !m.Started.ValueBool() {
		t.Errorf("status/started: %v %v", m.Status, m.Started)
	}
	if m.PurgeRemovedDisks.ValueBool() || m.RebootAfterUpdate.ValueBool() {
		t.Errorf("provider flags must default to false: %v %v", m.PurgeRemovedDisks, m.RebootAfterUpdate)
	}
}

func TestFromAPIAbsentKeysAreNull(t *testing.T) {
	t.Parallel()
	m := mustFromAPI(t, pveapi.GuestConfig{"vmgenid": "x", "smbios1": "uuid=y", "meta": "ctime=1"}, nil)
	if m.CPU != nil || m.Memory != nil || m.Agent != nil || m.Disks != nil || m.CDROMs != nil || m.Network != nil {
		t.Errorf("nested objects must be null without their keys: %+v", m)
	}
	if !m.Name.IsNull() || !m.Tags.IsNull() || !m.BootOrder.IsNull() || !m.OSType.IsNull() {
		t.Errorf("absent keys must be null: %+v", m)
	}
}

func TestFromAPIKeepsWhatPVEDoesNotReport(t *testing.T) {
	t.Parallel()
	prior := &vmModel{
		Disks: map[string]diskModel{"scsi0": {ImportFrom: types.StringValue("local:import/debian-13-genericcloud-amd64.qcow2")}},
		Network: map[string]nicModel{
			"net0": {MACAddress: types.StringValue("bc:24:11:2a:3b:4c")},
		},
		Description: types.StringValue("first line\nsecond line\n"),
	}
	m := mustFromAPI(t, liveConfig(), prior)
	// W25: import-from is never reported; state keeps the configured one.
	if got := m.Disks["scsi0"].ImportFrom.ValueString(); got != "local:import/debian-13-genericcloud-amd64.qcow2" {
		t.Errorf("import_from: %q", got)
	}
	if got := m.Network["net0"].MACAddress.ValueString(); got != "bc:24:11:2a:3b:4c" {
		t.Errorf("a MAC equal but for case keeps the configured spelling, got %q", got)
	}
	// W20: PVE drops trailing whitespace only.
	if got := m.Description.ValueString(); got != "first line\nsecond line\n" {
		t.Errorf("description: %q", got)
	}
}

func TestFromAPIPausedVMW18(t *testing.T) {
	t.Parallel()
	m := &vmModel{}
	// W18: a paused VM is status running with qmpstatus paused.
	if err := m.fromAPI(120, pveapi.GuestConfig{}, &pveapi.GuestStatus{Status: "running", QMPStatus: "paused"}); err != nil {
		t.Fatal(err)
	}
	if m.Status.ValueString() != "paused" || !m.Started.ValueBool() {
		t.Errorf("paused VM: status %v started %v", m.Status, m.Started)
	}
	if err := m.fromAPI(120, pveapi.GuestConfig{}, &pveapi.GuestStatus{Status: "stopped"}); err != nil {
		t.Fatal(err)
	}
	if m.Status.ValueString() != "stopped" || m.Started.ValueBool() {
		t.Errorf("stopped VM: status %v started %v", m.Status, m.Started)
	}
}

func TestFromAPITagsNormalisedW19(t *testing.T) {
	t.Parallel()
	m := mustFromAPI(t, pveapi.GuestConfig{"tags": "Web;prod web"}, nil)
	if got := m.Tags.Tags(); !slices.Equal(got, []string{"prod", "web"}) {
		t.Errorf("tags: %v", got)
	}
}

// plannedVM is the issue's example VM as a plan.
func plannedVM() *vmModel {
	return &vmModel{
		Node:         types.StringValue("pve1"),
		VMID:         types.Int64Value(120),
		Name:         types.StringValue("web-1"),
		Description:  types.StringValue("first line\nsecond line"),
		Tags:         fwutil.TagSetOf([]string{"Web", "prod"}),
		Pool:         types.StringValue("prod"),
		OnBoot:       types.BoolValue(true),
		Protection:   types.BoolValue(false),
		Started:      types.BoolValue(true),
		BIOS:         types.StringValue("ovmf"),
		Machine:      types.StringValue("q35"),
		OSType:       types.StringValue("l26"),
		SCSIHardware: types.StringValue("virtio-scsi-single"),
		BootOrder:    stringList([]string{"scsi0", "net0"}),
		CPU: &cpuModel{
			Cores: types.Int64Value(2), Sockets: types.Int64Value(1), Type: types.StringValue("x86-64-v2-AES"),
			Units: types.Int64Value(100), Limit: types.Float64Value(0), NUMA: types.BoolValue(false),
		},
		Memory: &memoryModel{Size: types.Int64Value(2048), Balloon: types.Int64Value(1024)},
		Agent:  &agentModel{Enabled: types.BoolValue(true), Trim: types.BoolValue(false), Type: types.StringNull()},
		Disks: map[string]diskModel{
			"scsi0": newDisk("local-lvm", "32", func(d *diskModel) {
				d.Discard, d.SSD, d.IOThread = types.BoolValue(true), types.BoolValue(true), types.BoolValue(true)
			}),
			"scsi1": newDisk("local-lvm", "100", func(d *diskModel) { d.Backup = types.BoolValue(false) }),
		},
		CDROMs: map[string]cdromModel{"ide2": {File: types.StringValue("local:iso/debian-13-netinst.iso")}},
		Network: map[string]nicModel{
			"net0": newNIC("vmbr0", func(n *nicModel) { n.VLANTag, n.Firewall = types.Int64Value(20), types.BoolValue(true) }),
		},
		PurgeRemovedDisks: types.BoolValue(false),
		RebootAfterUpdate: types.BoolValue(false),
	}
}

func newDisk(storage, size string, opts ...func(*diskModel)) diskModel {
	d := diskModel{
		Storage: types.StringValue(storage), Size: fwutil.SizeFromString(size), Volume: types.StringUnknown(),
		Discard: types.BoolNull(), SSD: types.BoolNull(), IOThread: types.BoolNull(), Backup: types.BoolNull(),
		Replicate: types.BoolNull(), Cache: types.StringNull(), AIO: types.StringNull(), ImportFrom: types.StringNull(),
	}
	for _, o := range opts {
		o(&d)
	}
	return d
}

func newNIC(bridge string, opts ...func(*nicModel)) nicModel {
	n := nicModel{
		Model: types.StringValue("virtio"), Bridge: types.StringValue(bridge), MACAddress: types.StringUnknown(),
		VLANTag: types.Int64Null(), Firewall: types.BoolNull(), LinkDown: types.BoolNull(), MTU: types.Int64Null(),
		Rate: types.Float64Null(), Queues: types.Int64Null(),
	}
	for _, o := range opts {
		o(&n)
	}
	return n
}

func TestToCreateW6W19W21(t *testing.T) {
	t.Parallel()
	form, err := plannedVM().toCreate()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"name":        "web-1",
		"description": "first line\nsecond line",
		"tags":        "prod;web", // W19: lowercase, sorted
		"pool":        "prod",     // W48: membership at create
		"onboot":      "1",        // W6: 1/0, never true/false
		"protection":  "0",
		"bios":        "ovmf",
		"machine":     "q35",
		"ostype":      "l26",
		"scsihw":      "virtio-scsi-single",
		"boot":        "order=scsi0;net0",
		"cores":       "2",
		"sockets":     "1",
		"cpu":         "x86-64-v2-AES",
		"cpuunits":    "100",
		"cpulimit":    "0",
		"numa":        "0",
		"memory":      "2048",
		"balloon":     "1024",
		"agent":       "1,fstrim_cloned_disks=0",
		// W21: new disks in create form, size in GiB.
		"scsi0": "local-lvm:32,discard=on,iothread=1,ssd=1",
		"scsi1": "local-lvm:100,backup=0",
		"ide2":  "local:iso/debian-13-netinst.iso,media=cdrom",
		"net0":  "virtio,bridge=vmbr0,firewall=1,tag=20",
	}
	for k, v := range want {
		if got := form.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	for k := range form {
		if _, ok := want[k]; !ok {
			t.Errorf("unexpected create parameter %s=%q", k, form.Get(k))
		}
	}
	if form.Has("start") || form.Has("vmid") {
		t.Error("create must not start the VM nor carry vmid (pveapi adds it)")
	}
}

func TestToCreateImportFromW25(t *testing.T) {
	t.Parallel()
	m := &vmModel{Disks: map[string]diskModel{
		"scsi0": newDisk("local-lvm", "", func(d *diskModel) {
			d.Size = fwutil.SizeUnknown()
			d.ImportFrom = types.StringValue("local:import/debian-13-genericcloud-amd64.qcow2")
		}),
		"scsi1": newDisk("local-lvm", "1.5"),
		"scsi2": newDisk("local-lvm", "512M"),
	}}
	form, err := m.toCreate()
	if err != nil {
		t.Fatal(err)
	}
	// W25: the size token must be 0 with import-from.
	if got := form.Get("scsi0"); got != "local-lvm:0,import-from=local:import/debian-13-genericcloud-amd64.qcow2" {
		t.Errorf("scsi0 = %q", got)
	}
	if got := form.Get("scsi1"); got != "local-lvm:1.5" {
		t.Errorf("scsi1 = %q", got)
	}
	if got := form.Get("scsi2"); got != "local-lvm:0.5" {
		t.Errorf("scsi2 = %q", got)
	}
}

func TestToCreateNICWithMACAndModel(t *testing.T) {
	t.Parallel()
	nic := newNIC("vmbr0", func(n *nicModel) {
		n.Model, n.MACAddress, n.MTU = types.StringValue("e1000"), types.StringValue("BC:24:11:00:00:09"), types.Int64Value(1500)
	})
	got, err := nic.value(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got != "e1000=BC:24:11:00:00:09,bridge=vmbr0,mtu=1500" {
		t.Errorf("net value %q", got)
	}
}

// stateFromLive is what a refresh of liveConfig leaves in state.
func stateFromLive(t *testing.T) *vmModel {
	t.Helper()
	return mustFromAPI(t, liveConfig(), nil)
}

// planLike copies a state model, as a plan that changes nothing.
func planLike(t *testing.T) *vmModel {
	t.Helper()
	return mustFromAPI(t, liveConfig(), nil)
}

func TestToUpdateNoChangeSendsNothing(t *testing.T) {
	t.Parallel()
	u, err := toUpdate(stateFromLive(t), planLike(t), liveConfig())
	if err != nil {
		t.Fatal(err)
	}
	if !u.delta.IsEmpty() {
		t.Errorf("no change must send nothing, got set %v delete %v", u.delta.SetKeys(), u.delta.Deleted())
	}
}

func TestToUpdateLiveFormKeepsVolumeAndUnknownOptionsW21(t *testing.T) {
	t.Parallel()
	plan := planLike(t)
	d := plan.Disks["virtio0"]
	d.Backup = types.BoolValue(true)
	d.Cache = types.StringValue("writeback")
	plan.Disks["virtio0"] = d
	u, err := toUpdate(stateFromLive(t), plan, liveConfig())
	if err != nil {
		t.Fatal(err)
	}
	got, ok := u.delta.Get("virtio0")
	if !ok {
		t.Fatal("option change must rewrite virtio0")
	}
	// W21: the live form names the same volume; iops_rd and size, which
	// the provider does not manage, survive.
	drive, err := wire.ParseDrive(got)
	if err != nil {
		t.Fatal(err)
	}
	if drive.VolumeID() != "local-lvm:vm-120-disk-1" || drive.IsCreateForm() {
		t.Errorf("virtio0 rewritten as %q: must keep its volume", got)
	}
	if drive.Options["iops_rd"] != "500" || drive.Options["size"] != "2252M" || drive.Options["backup"] != "1" || drive.Options["cache"] != "writeback" {
		t.Errorf("virtio0 options: %v", drive.Options)
	}
	if u.allocates {
		t.Error("an option change allocates nothing")
	}
	if len(u.delta.SetKeys()) != 1 || len(u.delta.Deleted()) != 0 {
		t.Errorf("only virtio0 changes: set %v delete %v", u.delta.SetKeys(), u.delta.Deleted())
	}
}

func TestToUpdateNewDiskCreateFormOnlyInEmptySlotW21(t *testing.T) {
	t.Parallel()
	plan := planLike(t)
	plan.Disks["scsi2"] = newDisk("local-lvm", "10")
	u, err := toUpdate(stateFromLive(t), plan, liveConfig())
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := u.delta.Get("scsi2"); got != "local-lvm:10" || !u.allocates {
		t.Errorf("scsi2 = %q allocates=%v", got, u.allocates)
	}

	// A slot PVE already uses for something else is never overwritten.
	plan = planLike(t)
	plan.Disks["scsi1"] = newDisk("local-lvm", "10")
	if _, err := toUpdate(stateFromLive(t), plan, liveConfig()); err == nil || !strings.Contains(err.Error(), "cloud-init") {
		t.Errorf("a disk over the cloud-init slot (W27) must be refused, got %v", err)
	}
}

func TestToUpdateRemovedDiskIsDetachedW24(t *testing.T) {
	t.Parallel()
	plan := planLike(t)
	delete(plan.Disks, "virtio0")
	delete(plan.CDROMs, "ide2")
	delete(plan.Network, "net1")
	u, err := toUpdate(stateFromLive(t), plan, liveConfig())
	if err != nil {
		t.Fatal(err)
	}
	if got := u.delta.Deleted(); !slices.Equal(got, []string{"ide2", "net1", "virtio0"}) {
		t.Errorf("deleted %v", got)
	}
	if u.detached["virtio0"] != "local-lvm:vm-120-disk-1" {
		t.Errorf("detached %v", u.detached)
	}
}

func TestToUpdateSetAndDeleteDisjointW16(t *testing.T) {
	t.Parallel()
	plan := planLike(t)
	plan.Name = types.StringNull()
	plan.CPU.Cores = types.Int64Value(4)
	plan.CPU.Type = types.StringNull()
	plan.Memory = nil
	plan.Agent = nil
	plan.Tags = fwutil.TagSetOf([]string{"PROD", "db"})
	u, err := toUpdate(stateFromLive(t), plan, liveConfig())
	if err != nil {
		t.Fatal(err)
	}
	values := u.delta.Values()
	if _, err := wire.ConfigDeltaFromValues(values); err != nil {
		t.Fatalf("W16: %v", err)
	}
	if got := u.delta.Deleted(); !slices.Equal(got, []string{"agent", "balloon", "memory", "name"}) {
		t.Errorf("deleted %v", got)
	}
	// cpu keeps its flags when the type is dropped.
	if got, _ := u.delta.Get("cpu"); got != "flags=+aes" {
		t.Errorf("cpu = %q", got)
	}
	if got, _ := u.delta.Get("cores"); got != "4" {
		t.Errorf("cores = %q", got)
	}
	if got, _ := u.delta.Get("tags"); got != "db;prod" {
		t.Errorf("tags = %q", got)
	}
}

func TestToUpdateCompareLikePVE(t *testing.T) {
	t.Parallel()
	live := liveConfig()
	live["memory"] = "2048"                                       // W43: same as current=2048
	live["tags"] = "web;PROD"                                     // W19: same set
	live["agent"] = "enabled=1,fstrim_cloned_disks=1,freeze-fs=0" // same keys
	live["net0"] = "bridge=vmbr0,virtio=bc:24:11:2a:3b:4c,tag=20,firewall=1"
	u, err := toUpdate(stateFromLive(t), planLike(t), live)
	if err != nil {
		t.Fatal(err)
	}
	if !u.delta.IsEmpty() {
		t.Errorf("equivalent spellings must send nothing, got set %v", u.delta.SetKeys())
	}
}

func TestToUpdateNICKeepsMACAcrossModelChange(t *testing.T) {
	t.Parallel()
	plan := planLike(t)
	n := plan.Network["net1"]
	n.Model = types.StringValue("virtio")
	n.MACAddress = types.StringUnknown()
	plan.Network["net1"] = n
	u, err := toUpdate(stateFromLive(t), plan, liveConfig())
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := u.delta.Get("net1"); got != "virtio=BC:24:11:00:00:01,bridge=vmbr1,trunks=10;20" {
		t.Errorf("net1 = %q", got)
	}
}

func TestBootOrderWrittenAfterDeviceChangesW28(t *testing.T) {
	t.Parallel()
	plan := planLike(t)
	plan.BootOrder = stringList([]string{"scsi0", "net0"})
	plan.Disks["scsi2"] = newDisk("local-lvm", "10")
	u, err := toUpdate(stateFromLive(t), plan, liveConfig())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := u.delta.Get("boot"); ok {
		t.Error("with devices changing, boot is written after the device request")
	}
	if want, ok := bootOrderFix(plan, liveConfig()); !ok || want != "order=scsi0;net0" {
		t.Errorf("boot fix %q %v", want, ok)
	}
	plan.BootOrder = stringList([]string{"scsi0", "ide2", "net0"})
	if _, ok := bootOrderFix(plan, liveConfig()); ok {
		t.Error("an equal boot order needs no fix")
	}
}

func TestDiskFollowUpsW22W23(t *testing.T) {
	t.Parallel()
	plan := planLike(t)
	grow := plan.Disks["scsi0"]
	grow.Size = fwutil.SizeFromString("40")
	plan.Disks["scsi0"] = grow
	move := plan.Disks["virtio0"]
	move.Storage = types.StringValue("shared-nfs")
	plan.Disks["virtio0"] = move
	resizes, moves, err := diskFollowUps(plan, liveConfig())
	if err != nil {
		t.Fatal(err)
	}
	if len(resizes) != 1 || resizes[0] != (guestops.Resize{Slot: "scsi0", Size: "40G"}) {
		t.Errorf("resizes %v", resizes)
	}
	if len(moves) != 1 || moves[0] != (guestops.Move{Slot: "virtio0", Storage: "shared-nfs"}) {
		t.Errorf("moves %v", moves)
	}

	shrink := plan.Disks["scsi0"]
	shrink.Size = fwutil.SizeFromString("16G")
	plan.Disks["scsi0"] = shrink
	if _, _, err := diskFollowUps(plan, liveConfig()); err == nil {
		t.Error("W22: a smaller size must never reach PVE")
	}
}

func TestImportedDiskGrowsToSizeW25(t *testing.T) {
	t.Parallel()
	plan := &vmModel{Disks: map[string]diskModel{"scsi0": newDisk("local-lvm", "32", func(d *diskModel) {
		d.ImportFrom = types.StringValue("local:import/debian-13-genericcloud-amd64.qcow2")
	})}}
	live := pveapi.GuestConfig{"scsi0": "local-lvm:vm-120-disk-0,size=2252M"}
	resizes, _, err := diskFollowUps(plan, live)
	if err != nil {
		t.Fatal(err)
	}
	if len(resizes) != 1 || resizes[0].Size != "32G" {
		t.Errorf("resizes %v", resizes)
	}
}

func TestCheckConfigBusRulesW26(t *testing.T) {
	t.Parallel()
	m := &vmModel{
		Disks: map[string]diskModel{
			"virtio0": newDisk("local-lvm", "8", func(d *diskModel) { d.SSD = types.BoolValue(true) }),
			"sata0":   newDisk("local-lvm", "8", func(d *diskModel) { d.IOThread = types.BoolValue(true) }),
			"scsi0":   newDisk("local-lvm", "8", func(d *diskModel) { d.SSD, d.IOThread = types.BoolValue(true), types.BoolValue(true) }),
			"scsi1":   newDisk("local-lvm", "", func(d *diskModel) { d.Size = fwutil.SizeNull() }),
			"ide0":    newDisk("local-lvm", "8"),
		},
		CDROMs: map[string]cdromModel{"ide0": {File: types.StringValue("none")}},
		CPU:    &cpuModel{Cores: types.Int64Null(), Sockets: types.Int64Null(), Type: types.StringNull(), Units: types.Int64Null(), Limit: types.Float64Null(), NUMA: types.BoolNull()},
	}
	issues := checkConfig(m)
	var got []string
	for _, i := range issues {
		got = append(got, i.Path.String()+": "+i.Summary)
	}
	want := []string{
		`cdroms["ide0"]: Slot Used Twice`,
		`disks["sata0"].iothread: IO Thread Not Supported On This Bus`,
		`disks["scsi1"].size: Disk Size Required`,
		`disks["virtio0"].ssd: SSD Emulation Not Supported On This Bus`,
		`cpu: Empty CPU Settings`,
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("issues:\n got %q\nwant %q", got, want)
	}
	for _, i := range issues {
		if i.Path.String() == `disks["virtio0"].ssd` && !strings.Contains(i.Detail, "virtio") {
			t.Errorf("the ssd error must name the bus: %s", i.Detail)
		}
	}
}

func TestCheckPlanDataLossGuard(t *testing.T) {
	t.Parallel()
	state := stateFromLive(t)

	shrink := planLike(t)
	d := shrink.Disks["scsi0"]
	d.Size = fwutil.SizeFromString("16")
	shrink.Disks["scsi0"] = d
	assertIssue(t, checkPlan(state, shrink), `disks["scsi0"].size`, "Disk Cannot Shrink", "is 32 GiB in PVE; the configuration asks for 16 GiB", false)

	same := planLike(t)
	d = same.Disks["scsi0"]
	d.Size = fwutil.SizeFromString("32768M")
	same.Disks["scsi0"] = d
	if issues := checkPlan(state, same); len(issues) != 0 {
		t.Errorf("the same size in other units is no change: %v", issues)
	}

	state2 := stateFromLive(t)
	d = state2.Disks["scsi0"]
	d.ImportFrom = types.StringValue("local:import/a.qcow2")
	state2.Disks["scsi0"] = d
	reimport := planLike(t)
	d = reimport.Disks["scsi0"]
	d.ImportFrom = types.StringValue("local:import/b.qcow2")
	reimport.Disks["scsi0"] = d
	assertIssue(t, checkPlan(state2, reimport), `disks["scsi0"].import_from`, "Image Is Used Only At Creation", "b.qcow2", true)

	moved := planLike(t)
	moved.Disks["sata1"] = moved.Disks["scsi0"]
	delete(moved.Disks, "scsi0")
	assertIssue(t, checkPlan(state, moved), `disks["sata1"]`, "Disk Cannot Move Between Slots", "scsi0", false)

	removed := planLike(t)
	delete(removed.Disks, "virtio0")
	assertIssue(t, checkPlan(state, removed), `disks["virtio0"]`, "Disk Will Be Detached", "unusedN", true)
	removed.PurgeRemovedDisks = types.BoolValue(true)
	assertIssue(t, checkPlan(state, removed), `disks["virtio0"]`, "Disk Will Be Detached", "DESTROYED", true)

	switched := planLike(t)
	switched.Disks["ide2"] = newDisk("local-lvm", "8")
	delete(switched.CDROMs, "ide2")
	assertIssue(t, checkPlan(state, switched), `disks["ide2"]`, "Slot Cannot Change Device Kind In One Step", "CD-ROM", false)

	grown := planLike(t)
	d = grown.Disks["scsi0"]
	d.Size = fwutil.SizeFromString("64")
	d.Storage = types.StringValue("shared-nfs")
	grown.Disks["scsi0"] = d
	if issues := checkPlan(state, grown); len(issues) != 0 {
		t.Errorf("growing and moving storage are allowed in place: %v", issues)
	}
}

func assertIssue(t *testing.T, issues []guestops.Issue, p, summary, detailPart string, warning bool) {
	t.Helper()
	for _, i := range issues {
		if i.Path.String() == p && i.Summary == summary {
			if i.Warning != warning {
				t.Errorf("%s: warning=%v, want %v", p, i.Warning, warning)
			}
			if !strings.Contains(i.Detail, detailPart) {
				t.Errorf("%s: detail %q lacks %q", p, i.Detail, detailPart)
			}
			return
		}
	}
	t.Errorf("no %q at %s in %v", summary, p, issues)
}
