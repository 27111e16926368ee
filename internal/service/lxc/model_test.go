package lxc

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// liveConfig is a container as PVE 9 reports it (W5: numbers and booleans
// already normalised by pveapi).
func liveConfig() pveapi.GuestConfig {
	return pveapi.GuestConfig{
		"arch":         "amd64",
		"ostype":       "debian",
		"hostname":     "db-1",
		"description":  "database\n",
		"tags":         "db;prod",
		"onboot":       "1",
		"unprivileged": "1",
		"cores":        "2",
		"cpulimit":     "1.5",
		"memory":       "1024",
		"swap":         "512",
		"rootfs":       "local-lvm:vm-130-disk-0,size=8G",
		"mp0":          "local-lvm:vm-130-disk-1,mp=/data,backup=1,size=10G,mountoptions=noatime",
		"mp1":          "/srv/share,mp=/share,ro=1",
		"net0":         "name=eth0,bridge=vmbr0,firewall=1,gw=10.0.0.1,hwaddr=BC:24:11:2A:3B:4C,ip=10.0.0.6/24,ip6=auto,tag=20,type=veth",
		"features":     "force_rw_sys=1,nesting=1",
		"searchdomain": "lan",
		"nameserver":   "10.0.0.1 10.0.0.2",
		"tty":          "2",
		"digest":       "abc",
	}
}

func stateFromLive(t *testing.T) *containerModel {
	t.Helper()
	m := &containerModel{}
	if err := m.fromAPI(130, liveConfig(), &pveapi.GuestStatus{Status: "running"}); err != nil {
		t.Fatal(err)
	}
	m.Node = types.StringValue("pve1")
	m.OSTemplate = types.StringValue("local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst")
	return m
}

// planLike is a plan equal to state, to be changed by a test.
func planLike(t *testing.T) *containerModel {
	t.Helper()
	m := stateFromLive(t)
	m.MountPoints = maps.Clone(m.MountPoints)
	m.Network = maps.Clone(m.Network)
	return m
}

func TestFromAPIRealisticConfigW33W37W38(t *testing.T) {
	t.Parallel()
	m := stateFromLive(t)
	if m.ID.ValueString() != "130" || m.VMID.ValueInt64() != 130 || m.Hostname.ValueString() != "db-1" || m.Status.ValueString() != "running" || !m.Started.ValueBool() {
		t.Errorf("identity and power: %+v", m)
	}
	if !m.Unprivileged.ValueBool() || !m.OnBoot.ValueBool() || !m.Protection.IsNull() {
		t.Errorf("flags: unprivileged=%v onboot=%v protection=%v", m.Unprivileged, m.OnBoot, m.Protection)
	}
	if m.CPU == nil || m.CPU.Cores.ValueInt64() != 2 || m.CPU.Limit.ValueFloat64() != 1.5 || !m.CPU.Units.IsNull() {
		t.Errorf("cpu %+v", m.CPU)
	}
	if mem, ok := m.memory(); !ok || mem.Size.ValueInt64() != 1024 || mem.Swap.ValueInt64() != 512 {
		t.Errorf("memory %v", m.Memory)
	}
	if m.RootDisk == nil || m.RootDisk.Volume.ValueString() != "local-lvm:vm-130-disk-0" || m.RootDisk.Size.ValueString() != "8" {
		t.Errorf("root disk %+v", m.RootDisk)
	}
	// W37: live form with the volume id.
	mp0 := m.MountPoints["mp0"]
	if mp0.Volume.ValueString() != "local-lvm:vm-130-disk-1" || mp0.Storage.ValueString() != "local-lvm" || mp0.Size.ValueString() != "10" ||
		mp0.Path.ValueString() != "/data" || !mp0.Backup.ValueBool() || !mp0.HostPath.IsNull() || !mp0.ReadOnly.IsNull() {
		t.Errorf("mp0 %+v", mp0)
	}
	mp1 := m.MountPoints["mp1"]
	if mp1.HostPath.ValueString() != "/srv/share" || !mp1.Storage.IsNull() || !mp1.Volume.IsNull() || !mp1.ReadOnly.ValueBool() {
		t.Errorf("mp1 %+v", mp1)
	}
	// W38: addresses inline.
	nic := m.Network["net0"]
	if nic.Name.ValueString() != "eth0" || nic.VLANTag.ValueInt64() != 20 || !nic.Firewall.ValueBool() || nic.MACAddress.ValueString() != "BC:24:11:2A:3B:4C" ||
		nic.IPv4 == nil || nic.IPv4.Address.ValueString() != "10.0.0.6/24" || nic.IPv4.Gateway.ValueString() != "10.0.0.1" ||
		nic.IPv6 == nil || nic.IPv6.Address.ValueString() != "auto" || !nic.IPv6.Gateway.IsNull() {
		t.Errorf("net0 %+v ipv4=%+v ipv6=%+v", nic, nic.IPv4, nic.IPv6)
	}
	// W33: the composite, flags PVE does not model ignored.
	if m.Features == nil || !m.Features.Nesting.ValueBool() || m.Features.Keyctl.IsNull() || m.Features.Keyctl.ValueBool() || !m.Features.Mount.IsNull() {
		t.Errorf("features %+v", m.Features)
	}
	if m.DNS == nil || m.DNS.Domain.ValueString() != "lan" || !slices.Equal(listStrings(m.DNS.Servers), []string{"10.0.0.1", "10.0.0.2"}) {
		t.Errorf("dns %+v", m.DNS)
	}
	if m.Console == nil || m.Console.TTYs.ValueInt64() != 2 || !m.Console.Enabled.IsNull() {
		t.Errorf("console %+v", m.Console)
	}
	if !m.PasswordWO.IsNull() || !m.PurgeRemovedDisks.Equal(types.BoolValue(false)) {
		t.Errorf("password %v purge %v", m.PasswordWO, m.PurgeRemovedDisks)
	}
}

func TestFromAPIAbsentKeysAreNullW34(t *testing.T) {
	t.Parallel()
	m := &containerModel{}
	if err := m.fromAPI(131, pveapi.GuestConfig{"rootfs": "local-lvm:vm-131-disk-0,size=4G"}, nil); err != nil {
		t.Fatal(err)
	}
	if m.CPU != nil || !m.Memory.IsNull() || m.MountPoints != nil || m.Network != nil || m.DNS != nil || m.Console != nil ||
		!m.Hostname.IsNull() || !m.Tags.IsNull() || !m.Description.IsNull() {
		t.Errorf("absent keys must be null: %+v", m)
	}
	// W33: no features key is every flag off, and reads so (a refresh
	// masks it where the configuration leaves features out).
	if f := m.Features; f == nil || !allOff(f.Nesting, f.Keyctl, f.Fuse, f.Mknod) || !f.Mount.IsNull() {
		t.Errorf("absent features must read as every flag off: %+v", m.Features)
	}
	// W34: a container without the key is privileged.
	if m.Unprivileged.IsNull() || m.Unprivileged.ValueBool() {
		t.Errorf("unprivileged %v, want false", m.Unprivileged)
	}
}

func TestFromAPIKeepsWhatPVEDoesNotReportW35(t *testing.T) {
	t.Parallel()
	m := stateFromLive(t)
	m.SSHPublicKeys = types.SetValueMust(types.StringType, []attr.Value{types.StringValue("ssh-ed25519 AAAA me@host")})
	m.PasswordWOVersion = types.Int64Value(3)
	m.Pool = types.StringValue("prod")
	if err := m.fromAPI(130, liveConfig(), nil); err != nil {
		t.Fatal(err)
	}
	if m.OSTemplate.IsNull() || m.SSHPublicKeys.IsNull() || m.PasswordWOVersion.ValueInt64() != 3 || m.Pool.ValueString() != "prod" {
		t.Errorf("W35: what PVE does not report stays: %+v", m)
	}
	// W20: PVE gives "database\n" back; the value already held differs
	// from it only at the end, so it stays as it was.
	if m.Description.ValueString() != "database" {
		t.Errorf("description %q, want the held %q", m.Description.ValueString(), "database")
	}
}

func TestFeaturesFalseStaysFalseW33(t *testing.T) {
	t.Parallel()
	prior := &featuresModel{
		Nesting: types.BoolValue(true), Keyctl: types.BoolValue(false), Fuse: types.BoolNull(), Mknod: types.BoolValue(true),
		Mount: types.SetValueMust(types.StringType, []attr.Value{}),
	}
	got, err := featuresFromAPI(pveapi.GuestConfig{"features": "nesting=1"}, prior)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Nesting.ValueBool() || !allOff(got.Keyctl, got.Fuse, got.Mknod) || got.Mount.IsNull() {
		t.Errorf("declared false stays false, absent is false (declared true: drift): %+v", got)
	}
	// No key reads as every flag off: the same as an all-false object, so
	// an import agrees with "features = { keyctl = false }".
	if got, _ := featuresFromAPI(pveapi.GuestConfig{}, nil); got == nil || !allOff(got.Nesting, got.Keyctl, got.Fuse, got.Mknod) || !got.Mount.IsNull() {
		t.Errorf("no key: every flag off, got %+v", got)
	}
	imported, _ := featuresFromAPI(pveapi.GuestConfig{"features": "keyctl=1,mount=nfs;cifs"}, nil)
	if !imported.Keyctl.ValueBool() || !slices.Equal(sortedCopy(setStrings(imported.Mount)), []string{"cifs", "nfs"}) {
		t.Errorf("flags set by root are read: %+v", imported)
	}
}

// allOff reports whether every flag is known and false.
func allOff(flags ...types.Bool) bool {
	for _, f := range flags {
		if f.IsNull() || f.IsUnknown() || f.ValueBool() {
			return false
		}
	}
	return true
}

func TestFeaturesValueKeepsWhatItDoesNotChangeW33(t *testing.T) {
	t.Parallel()
	f := &featuresModel{Nesting: types.BoolValue(true), Keyctl: types.BoolValue(false), Fuse: types.BoolNull(), Mknod: types.BoolNull(), Mount: types.SetNull(types.StringType)}
	got, err := featuresValue(f, "force_rw_sys=1,keyctl=0,nesting=on")
	if err != nil || got == nil {
		t.Fatal(got, err)
	}
	// A flag whose value stays keeps its spelling: PVE counts every flag
	// whose text changes as a change, which a token may not make.
	if *got != "force_rw_sys=1,keyctl=0,nesting=on" {
		t.Errorf("features %q", *got)
	}
	if got, _ := featuresValue(f, ""); got == nil || *got != "nesting=1" {
		t.Errorf("false flags absent live are not written: %v", got)
	}
	if got, _ := featuresValue(nil, "nesting=1"); got != nil {
		t.Errorf("undeclared features are removed: %v", *got)
	}
	if got, _ := featuresValue(nil, "force_rw_sys=1,nesting=1"); got == nil || *got != "force_rw_sys=1" {
		t.Errorf("flags the provider does not model stay: %v", got)
	}
	if got, _ := featuresFromAPI(pveapi.GuestConfig{"features": "force_rw_sys=1"}, nil); got == nil || !allOff(got.Nesting, got.Keyctl, got.Fuse, got.Mknod) {
		t.Errorf("only flags the provider does not model: every modelled flag off, got %+v", got)
	}
	off := &featuresModel{Nesting: types.BoolValue(false), Keyctl: types.BoolNull(), Fuse: types.BoolNull(), Mknod: types.BoolNull(), Mount: types.SetNull(types.StringType)}
	if got, _ := featuresValue(off, ""); got != nil {
		t.Errorf("nothing on: no features key, got %q", *got)
	}
	if !sameFeatures("nesting=1,keyctl=0", "nesting=on") || sameFeatures("nesting=1", "nesting=1,fuse=1") ||
		!sameFeatures("mount=nfs;cifs", "mount=cifs;nfs") {
		t.Error("features compare flag by flag, absent is off, mount as a set")
	}
}

func TestToCreateW6W19W21W35W38W39(t *testing.T) {
	t.Parallel()
	m := stateFromLive(t)
	m.Console = &consoleModel{Enabled: types.BoolValue(true), Mode: types.StringNull(), TTYs: types.Int64Value(3)}
	m.Unprivileged = types.BoolValue(false)
	m.Tags = fwutil.TagSetOf([]string{"Prod", "db"})
	m.SSHPublicKeys = types.SetValueMust(types.StringType, []attr.Value{types.StringValue("ssh-ed25519 AAAA a@b"), types.StringValue("ssh-ed25519 BBBB c@d")})
	m.MountPoints["mp2"] = mountPointModel{Storage: types.StringValue("local-lvm"), Size: fwutil.SizeFromString("512M"), Path: types.StringValue("/cache")}
	form, err := m.toCreate(types.StringValue("secret-pass"))
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		"ostemplate":      "local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst", // W35
		"unprivileged":    "0",                                                    // W6, W34
		"onboot":          "1",
		"tags":            "db;prod",     // W19
		"rootfs":          "local-lvm:8", // W21
		"mp2":             "local-lvm:0.5,mp=/cache",
		"mp1":             "/srv/share,mp=/share,ro=1", // W36
		"console":         "1",
		"password":        "secret-pass",
		"ssh-public-keys": "ssh-ed25519 AAAA a@b\nssh-ed25519 BBBB c@d",
		"nameserver":      "10.0.0.1 10.0.0.2",
		"features":        "nesting=1",
	} {
		if got := form.Get(key); got != want {
			t.Errorf("%s = %q, want %q", key, got, want)
		}
	}
	// W21: a volume already in state is still sent in create form, never
	// its live volume id (a create has no volumes yet).
	if got := form.Get("mp0"); !strings.HasPrefix(got, "local-lvm:10,") || !strings.Contains(got, "mp=/data") {
		t.Errorf("mp0 = %q", got)
	}
	// W38: addresses inline on the NIC.
	if got := form.Get("net0"); !strings.HasPrefix(got, "name=eth0,bridge=vmbr0,hwaddr=BC:24:11:2A:3B:4C,ip=10.0.0.6/24,gw=10.0.0.1,ip6=auto") {
		t.Errorf("net0 = %q", got)
	}
	// W39: PVE takes tty at create, so it goes with the create request.
	if got := form.Get("tty"); got != "3" {
		t.Errorf("W39: tty = %q at create, want 3: %v", got, form)
	}
	if form.Has("vmid") || form.Has("start") {
		t.Errorf("vmid and start are not the model's: %v", form)
	}
}

func TestToUpdateNoChangeSendsNothing(t *testing.T) {
	t.Parallel()
	u, err := toUpdate(stateFromLive(t), planLike(t), liveConfig())
	if err != nil {
		t.Fatal(err)
	}
	if !u.delta.IsEmpty() {
		t.Errorf("no change must send nothing: %v", u.delta.Values())
	}
}

func TestToUpdateLiveFormKeepsVolumeAndOptionsW21W37(t *testing.T) {
	t.Parallel()
	plan := planLike(t)
	mp := plan.MountPoints["mp0"]
	mp.Path = types.StringValue("/srv/data")
	mp.Backup = types.BoolNull()
	mp.ReadOnly = types.BoolValue(true)
	plan.MountPoints["mp0"] = mp
	plan.MountPoints["mp3"] = mountPointModel{Storage: types.StringValue("local-lvm"), Size: fwutil.SizeFromString("4"), Path: types.StringValue("/new")}
	u, err := toUpdate(stateFromLive(t), plan, liveConfig())
	if err != nil {
		t.Fatal(err)
	}
	got, _ := u.delta.Get("mp0")
	drive, err := wire.ParseDrive(got)
	if err != nil {
		t.Fatal(err)
	}
	if drive.VolumeID() != "local-lvm:vm-130-disk-1" || drive.Options["mp"] != "/srv/data" || drive.Options["ro"] != "1" ||
		drive.Options["mountoptions"] != "noatime" || drive.Options["size"] != "10G" || drive.Options["backup"] != "" {
		t.Errorf("W37: mp0 rewritten as %q", got)
	}
	// W21: the create form only into the empty slot.
	if got, _ := u.delta.Get("mp3"); got != "local-lvm:4,mp=/new" {
		t.Errorf("mp3 = %q", got)
	}
	if got := u.delta.SetKeys(); !slices.Equal(got, []string{"mp0", "mp3"}) {
		t.Errorf("set %v", got)
	}
}

func TestToUpdateRemovedMountPointIsDetachedW24(t *testing.T) {
	t.Parallel()
	plan := planLike(t)
	delete(plan.MountPoints, "mp0")
	delete(plan.MountPoints, "mp1")
	u, err := toUpdate(stateFromLive(t), plan, liveConfig())
	if err != nil {
		t.Fatal(err)
	}
	if got := u.delta.Deleted(); !slices.Equal(got, []string{"mp0", "mp1"}) {
		t.Errorf("deleted %v", got)
	}
	// A bind mount holds no volume: nothing to purge.
	if !maps.Equal(u.detached, map[string]string{"mp0": "local-lvm:vm-130-disk-1"}) {
		t.Errorf("detached %v", u.detached)
	}
}

func TestToUpdateSetDeleteDisjointW16W34(t *testing.T) {
	t.Parallel()
	plan := planLike(t)
	plan.CPU = &cpuModel{Cores: types.Int64Value(4), Limit: types.Float64Null(), Units: types.Int64Value(100)}
	plan.DNS = nil
	plan.Console = &consoleModel{Enabled: types.BoolValue(true), Mode: types.StringValue("shell"), TTYs: types.Int64Null()}
	plan.Features = &featuresModel{Nesting: types.BoolValue(true), Keyctl: types.BoolNull(), Fuse: types.BoolNull(), Mknod: types.BoolNull(),
		Mount: types.SetNull(types.StringType)}
	plan.Unprivileged = types.BoolValue(false)
	nic := plan.Network["net0"]
	nic.IPv4 = &ipModel{Address: types.StringValue("dhcp"), Gateway: types.StringNull()}
	nic.IPv6 = nil
	nic.MACAddress = types.StringValue("bc:24:11:2a:3b:4c")
	plan.Network["net0"] = nic
	plan.Network["net1"] = nicModel{Name: types.StringValue("eth1"), Bridge: types.StringValue("vmbr1"), MACAddress: types.StringNull()}
	u, err := toUpdate(stateFromLive(t), plan, liveConfig())
	if err != nil {
		t.Fatal(err)
	}
	if err := u.delta.Validate(); err != nil {
		t.Fatalf("W16: %v", err)
	}
	values := u.delta.Values()
	if values.Has("unprivileged") || strings.Contains(values.Get("delete"), "unprivileged") {
		t.Errorf("W34: unprivileged is never written: %v", values)
	}
	if got := u.delta.SetKeys(); !slices.Equal(got, []string{"cmode", "console", "cores", "cpuunits", "net0", "net1"}) {
		t.Errorf("set %v", got)
	}
	if got := u.delta.Deleted(); !slices.Equal(got, []string{"cpulimit", "nameserver", "searchdomain", "tty"}) {
		t.Errorf("deleted %v", got)
	}
	net0, _ := u.delta.Get("net0")
	props, _ := wire.ParsePropertyString(net0, "")
	// W38: ip/gw inline; the MAC keeps PVE's spelling; unmodelled keys stay.
	if props["ip"] != "dhcp" || props["gw"] != "" || props["ip6"] != "" || props["type"] != "veth" || props["hwaddr"] == "" || props["tag"] != "20" {
		t.Errorf("net0 = %q", net0)
	}
	// features: force_rw_sys, which the provider does not model, stays.
	if _, set := u.delta.Get("features"); set {
		t.Errorf("features did not change: %v", values)
	}
}

func TestMountFollowUpsW22W23(t *testing.T) {
	t.Parallel()
	plan := planLike(t)
	plan.RootDisk = &rootDiskModel{Storage: types.StringValue("local-zfs"), Size: fwutil.SizeFromString("8G"), Volume: types.StringNull()}
	mp := plan.MountPoints["mp0"]
	mp.Size = fwutil.SizeFromString("12")
	plan.MountPoints["mp0"] = mp
	resizes, moves, err := mountFollowUps(plan, liveConfig())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(resizes, []guestops.Resize{{Slot: "mp0", Size: "12G"}}) {
		t.Errorf("W22: resizes %v (the bind mount has none)", resizes)
	}
	if !slices.Equal(moves, []guestops.Move{{Slot: "rootfs", Storage: "local-zfs"}}) {
		t.Errorf("W23: moves %v", moves)
	}
}

func issueKeys(issues []guestops.Issue) []string {
	var out []string
	for _, i := range issues {
		kind := "error"
		if i.Warning {
			kind = "warning"
		}
		out = append(out, kind+" "+i.Path.String()+": "+i.Summary)
	}
	slices.Sort(out)
	return out
}

func TestCheckPlanDataLossGuardW22W24W36(t *testing.T) {
	t.Parallel()
	state := stateFromLive(t)
	plan := planLike(t)
	plan.RootDisk = &rootDiskModel{Storage: types.StringValue("local-lvm"), Size: fwutil.SizeFromString("4"), Volume: state.RootDisk.Volume}
	mp1 := plan.MountPoints["mp1"]
	mp1.HostPath = types.StringValue("/srv/other")
	plan.MountPoints["mp1"] = mp1
	plan.MountPoints["mp5"] = plan.MountPoints["mp0"]
	delete(plan.MountPoints, "mp0")
	got := issueKeys(checkPlan(state, plan))
	want := []string{
		`error mount_points["mp1"].host_path: Bind Mount Cannot Be Re-Pointed`,
		`error mount_points["mp5"]: Mount Point Cannot Move Between Slots`,
		`error root_disk.size: Root Disk Cannot Shrink`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("issues:\n got %q\nwant %q", got, want)
	}

	plan = planLike(t)
	delete(plan.MountPoints, "mp0")
	delete(plan.MountPoints, "mp1")
	plan.RootDisk = &rootDiskModel{Storage: types.StringValue("local-zfs"), Size: fwutil.SizeFromString("8"), Volume: types.StringUnknown()}
	plan.Started = types.BoolValue(true)
	got = issueKeys(checkPlan(state, plan))
	want = []string{`warning mount_points["mp0"]: Mount Point Will Be Detached`, `warning started: Container Stops For A Volume Move`}
	if !slices.Equal(got, want) {
		t.Errorf("issues:\n got %q\nwant %q", got, want)
	}

	plan = planLike(t)
	plan.MountPoints["mp1"] = mountPointModel{Storage: types.StringValue("local-lvm"), Size: fwutil.SizeFromString("1"), Path: types.StringValue("/share")}
	if got := issueKeys(checkPlan(state, plan)); !slices.Equal(got, []string{`error mount_points["mp1"]: Mount Point Cannot Change Kind`}) {
		t.Errorf("kind switch: %q", got)
	}
}

func TestRootOnlyIssuesW33W36(t *testing.T) {
	t.Parallel()
	state := stateFromLive(t)
	// Nothing changes: reading what root set is fine.
	if issues := rootOnlyIssues(state, planLike(t), "ops@pve!tf"); len(issues) != 0 {
		t.Errorf("unchanged flags and binds: %v", issues)
	}
	plan := planLike(t)
	plan.Features = &featuresModel{Nesting: types.BoolValue(false), Keyctl: types.BoolValue(true), Fuse: types.BoolValue(false), Mknod: types.BoolNull(),
		Mount: types.SetNull(types.StringType)}
	mp1 := plan.MountPoints["mp1"]
	mp1.ReadOnly = types.BoolNull()
	plan.MountPoints["mp1"] = mp1
	got := issueKeys(rootOnlyIssues(state, plan, "ops@pve!tf"))
	// nesting may change in an unprivileged container; fuse stays off.
	want := []string{`error features.keyctl: Option Needs root@pam`, `error mount_points["mp1"].host_path: Option Needs root@pam`}
	if !slices.Equal(got, want) {
		t.Errorf("issues:\n got %q\nwant %q", got, want)
	}
	plan.Unprivileged = types.BoolValue(false)
	if got := issueKeys(rootOnlyIssues(state, plan, "ops@pve!tf")); !slices.Contains(got, `error features.nesting: Option Needs root@pam`) {
		t.Errorf("W33: nesting of a privileged container is root's: %q", got)
	}
	// At create everything set is a change.
	create := planLike(t)
	got = issueKeys(rootOnlyIssues(nil, create, "ops@pve!tf"))
	if !slices.Equal(got, []string{`error mount_points["mp1"].host_path: Option Needs root@pam`}) {
		t.Errorf("create: %q", got)
	}
	for _, i := range rootOnlyIssues(nil, create, "ops@pve!tf") {
		if !strings.Contains(i.Detail, "password login as root@pam") || !strings.Contains(i.Detail, "ops@pve!tf") {
			t.Errorf("the error says what to do: %s", i.Detail)
		}
	}
}

func TestCheckConfig(t *testing.T) {
	t.Parallel()
	m := &containerModel{
		Unprivileged: types.BoolNull(),
		MountPoints: map[string]mountPointModel{
			"mp0": {Storage: types.StringValue("local-lvm"), HostPath: types.StringValue("/srv"), Size: fwutil.SizeFromString("1")},
			"mp1": {Storage: types.StringNull(), HostPath: types.StringNull(), Size: fwutil.SizeNull()},
			"mp2": {Storage: types.StringValue("local-lvm"), HostPath: types.StringNull(), Size: fwutil.SizeNull()},
			"mp3": {Storage: types.StringNull(), HostPath: types.StringValue("/srv"), Size: fwutil.SizeFromString("1")},
			"mp4": {Storage: types.StringValue("local-lvm"), HostPath: types.StringNull(), Size: fwutil.SizeFromString("1"), Quota: types.BoolValue(true)},
		},
		CPU: &cpuModel{},
	}
	got := issueKeys(checkConfig(m))
	want := []string{
		`error cpu: Empty CPU Settings`,
		`error mount_points["mp0"]: Volume Or Bind Mount`,
		`error mount_points["mp1"]: Volume Or Bind Mount`,
		`error mount_points["mp2"].size: Mount Point Size Required`,
		`error mount_points["mp3"].size: Bind Mount Has No Size`,
		`error mount_points["mp4"].quota: Quotas Need A Privileged Container`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("issues:\n got %q\nwant %q", got, want)
	}
}

func TestCreateOnlyWarnings(t *testing.T) {
	t.Parallel()
	state := stateFromLive(t)
	plan := planLike(t)
	plan.PasswordWOVersion = types.Int64Value(2)
	plan.SSHPublicKeys = types.SetValueMust(types.StringType, []attr.Value{types.StringValue("ssh-ed25519 AAAA me@host")})
	got := issueKeys(createOnlyWarnings(state, plan))
	want := []string{"warning password_wo_version: Password Applies Only To New Containers", "warning ssh_public_keys: SSH Keys Apply Only To New Containers"}
	if !slices.Equal(got, want) {
		t.Errorf("issues:\n got %q\nwant %q", got, want)
	}
}

func TestRecognizeLostCreateW13(t *testing.T) {
	t.Parallel()
	m := stateFromLive(t)
	form, err := m.toCreate(types.StringNull())
	if err != nil {
		t.Fatal(err)
	}
	if !m.recognize(liveConfig(), form) {
		t.Error("the container carrying the planned hostname is ours")
	}
	other := liveConfig()
	other["hostname"] = "someone-else"
	if m.recognize(other, form) {
		t.Error("another hostname is another container")
	}
}
