package storagecfg_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

func validate(tb testing.TB, p *acctest.Protocol, typeName string, cfg *tfprotov6.DynamicValue) []*tfprotov6.Diagnostic {
	tb.Helper()
	resp, err := p.Server.ValidateResourceConfig(context.Background(), &tfprotov6.ValidateResourceConfigRequest{TypeName: typeName, Config: cfg})
	if err != nil {
		tb.Fatal(err)
	}
	return resp.Diagnostics
}

// Bad input is refused before anything is sent, naming the attribute.
func TestStoragePlanRefusals(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	dir := map[string]any{"storage": "s1", "path": "/srv/s1"}
	if msg := errorsOf(validate(t, p, "pve_storage_dir", config(t, p, "pve_storage_dir", dir))); msg != "" {
		t.Fatalf("a valid storage is refused: %s", msg)
	}
	for _, tc := range []struct {
		typ, attr string
		cfg       map[string]any
		want      string
	}{
		{"dir", "storage", with(dir, "storage", "1bad"), "not a storage ID"},
		{"dir", "content", with(dir, "content", []string{"images", "nonsense"}), "value must be one of"},
		{"pbs", "content", map[string]any{"storage": "pbs1", "server": "h", "datastore": "d", "content": []string{"images"}}, "value must be one of"},
		{"dir", "content", with(dir, "content", []string{"none", "iso"}), "cannot be combined"},
		{"nfs", "format", map[string]any{"storage": "n1", "server": "h", "export": "/e", "path": "/p", "format": "subvol"}, "value must be one of"},
		{"dir", "preallocation", with(dir, "preallocation", "sparse"), "value must be one of"},
		{"dir", "retention", with(dir, "retention", map[string]any{}), "Empty Retention"},
		{"dir", "retention", with(dir, "retention", map[string]any{"keep_all": true, "keep_last": 2}), "keep-all cannot be set together"},
		{"pbs", "fingerprint", map[string]any{"storage": "pbs1", "server": "h", "datastore": "d", "fingerprint": "aa:bb"}, "32 hex byte pairs"},
		{"pbs", "port", map[string]any{"storage": "pbs1", "server": "h", "datastore": "d", "port": 70000}, "at most 65535"},
		{"lvm", "saferemove_stepsize", map[string]any{"storage": "l", "vgname": "vg1", "saferemove_stepsize": 3}, "value must be one of"},
		{"nfs", "nodes", map[string]any{"storage": "n", "server": "h", "export": "/e", "path": "/p", "nodes": []string{"bad node"}}, "node name"},
	} {
		rt := resType(tc.typ)
		diags := validate(t, p, rt, config(t, p, rt, tc.cfg))
		wantErrorUnder(t, diags, tc.attr, tc.want)
	}
}

// wantErrorUnder checks for an error containing want on attribute attr or
// one of its elements (a set's refused item).
func wantErrorUnder(tb testing.TB, diags []*tfprotov6.Diagnostic, attr, want string) {
	tb.Helper()
	for _, d := range diags {
		if d.Severity != tfprotov6.DiagnosticSeverityError || !strings.Contains(d.Summary+": "+d.Detail, want) {
			continue
		}
		if d.Attribute == nil || len(d.Attribute.Steps()) == 0 || d.Attribute.Steps()[0] != tftypes.AttributeName(attr) {
			tb.Errorf("the error %q names %v, want attribute %s", d.Detail, d.Attribute, attr)
		}
		return
	}
	tb.Errorf("no error on %s contains %q; errors:\n%s", attr, want, errorsOf(diags))
}

// Importing a storage of another type names the resource type to use.
func TestStorageImportOfAnotherType(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	if err := p.Client.CreateStorage(context.Background(), "isos", "nfs", map[string]string{
		"server": "10.0.0.20", "export": "/export/isos", "path": "/mnt/pve/isos", "content": "iso",
	}); err != nil {
		t.Fatal(err)
	}
	imp, err := p.Server.ImportResourceState(context.Background(), &tfprotov6.ImportResourceStateRequest{TypeName: "pve_storage_dir", ID: "isos"})
	if err != nil {
		t.Fatal(err)
	}
	acctest.WantAll(t, "the refusal", errorsOf(imp.Diagnostics), "Storage Of Another Type", "isos", "nfs", "pve_storage_nfs")
	imp, err = p.Server.ImportResourceState(context.Background(), &tfprotov6.ImportResourceStateRequest{TypeName: "pve_storage_dir", ID: "nothere"})
	if err != nil {
		t.Fatal(err)
	}
	acctest.WantAll(t, "the refusal", errorsOf(imp.Diagnostics), "Storage Not Found", "nothere")
}

// A destroy plan lists the storage's content on the nodes it is available
// on and refuses while guest disks are there, unless the state allows it.
// Backups and ISO images do not count.
func TestStorageDestroyWithGuestDisks(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	rt := "pve_storage_dir"
	base := map[string]any{"storage": "vmdata", "path": "/srv/vmdata", "content": []string{"images", "iso"}, "nodes": []string{"pve2"}}
	state, _ := apply(t, p, rt, p.NullState(t, rt), config(t, p, rt, base))
	if err := p.Sim.Update(func(c *pvesim.Cluster) error {
		return c.AddVolume(&pvesim.Volume{VolID: "vmdata:iso/x.iso", Storage: "vmdata", Node: "pve2", Content: "iso", Format: "iso", Size: 1 << 20})
	}); err != nil {
		t.Fatal(err)
	}
	if msg := errorsOf(p.PlanResponse(t, rt, state, nil).Diagnostics); msg != "" {
		t.Fatalf("an ISO image stops the destroy: %s", msg)
	}
	if err := p.Sim.Update(func(c *pvesim.Cluster) error {
		return c.AddVolume(&pvesim.Volume{VolID: "vmdata:100/vm-100-disk-0.qcow2", Storage: "vmdata", Node: "pve2", Content: "images",
			Format: "qcow2", Size: 1 << 30, Owner: 100})
	}); err != nil {
		t.Fatal(err)
	}
	plan := p.PlanResponse(t, rt, state, nil)
	acctest.WantError(t, plan.Diagnostics, "allow_destroy_with_guest_volumes", regexp.MustCompile(`vmdata:100/vm-100-disk-0\.qcow2`))
	acctest.WantAll(t, "the refusal", errorsOf(plan.Diagnostics), "Destroying storage vmdata", "allow_destroy_with_guest_volumes = true")

	// Replacing the definition drops it too.
	moved := config(t, p, rt, with(base, "path", "/srv/other"))
	acctest.WantAll(t, "the replacement refusal", errorsOf(p.PlanResponse(t, rt, state, moved).Diagnostics), "Replacing storage vmdata")

	allowed := config(t, p, rt, with(base, "allow_destroy_with_guest_volumes", true))
	state, _ = apply(t, p, rt, state, allowed)
	if msg := errorsOf(p.PlanResponse(t, rt, state, nil).Diagnostics); msg != "" {
		t.Errorf("the destroy is refused although allowed: %s", msg)
	}
}

// snapshot-as-volume-chain exists from PVE 9.0 on: refused at plan on 8.4,
// taken on 9.
func TestStorageSnapshotChainByRelease(t *testing.T) {
	t.Parallel()
	rt := "pve_storage_dir"
	cfgOf := func(p *acctest.Protocol) *tfprotov6.DynamicValue {
		return config(t, p, rt, map[string]any{"storage": "chain", "path": "/srv/chain", "snapshot_as_volume_chain": true})
	}
	p84 := acctest.NewProtocolOnPVE(t, "8.4")
	plan := p84.PlanResponse(t, rt, p84.NullState(t, rt), cfgOf(p84))
	acctest.WantError(t, plan.Diagnostics, "snapshot_as_volume_chain", regexp.MustCompile(`from PVE 9\.0 on; this cluster runs PVE 8\.4`))

	p9 := acctest.NewProtocol(t)
	state, _ := apply(t, p9, rt, p9.NullState(t, rt), cfgOf(p9))
	if v := attrOf(t, p9, rt, state, "snapshot_as_volume_chain"); !v.Equal(tftypes.NewValue(tftypes.Bool, true)) {
		t.Errorf("snapshot_as_volume_chain is %v", v)
	}
}

// Secrets are write-only: sent at creation and when their version
// changes, never in state or plan; removing the value with a new version
// removes the secret.
func TestStorageSecretsWriteOnly(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	rt := "pve_storage_pbs"
	secret := func() (string, bool) {
		var v string
		var ok bool
		p.Sim.View(func(c *pvesim.Cluster) {
			for _, st := range c.Storages {
				if st.ID == "pbs" {
					v, ok = st.Secrets["password"]
				}
			}
		})
		return v, ok
	}
	base := map[string]any{"storage": "pbs", "server": "10.0.0.60", "datastore": "main", "username": "pve@pbs"}
	first := config(t, p, rt, with(base, "password_wo", "first-secret-value", "password_wo_version", 1))
	state, plan := apply(t, p, rt, p.NullState(t, rt), first)
	for _, dv := range []*tfprotov6.DynamicValue{state, plan.PlannedState} {
		if v := attrOf(t, p, rt, dv, "password_wo"); !v.IsNull() {
			t.Errorf("password_wo is %v in state or plan", v)
		}
		if strings.Contains(string(dv.MsgPack)+string(dv.JSON), "first-secret-value") {
			t.Error("the password is in state or plan")
		}
	}
	if v, _ := secret(); v != "first-secret-value" {
		t.Errorf("PVE keeps password %q", v)
	}
	wantNoChange(t, p, rt, state, first, "after create")
	// A new value alone does nothing.
	wantNoChange(t, p, rt, state, config(t, p, rt, with(base, "password_wo", "second-secret-value", "password_wo_version", 1)), "new value, same version")

	second := config(t, p, rt, with(base, "password_wo", "second-secret-value", "password_wo_version", 2))
	state, _ = apply(t, p, rt, state, second)
	if v, _ := secret(); v != "second-secret-value" {
		t.Errorf("after the version change PVE keeps password %q", v)
	}
	wantNoChange(t, p, rt, state, second, "after the change")

	removed := config(t, p, rt, with(base, "password_wo_version", 3))
	_, _ = apply(t, p, rt, state, removed)
	if v, ok := secret(); ok {
		t.Errorf("the password is still kept: %q", v)
	}
}

// A change made outside Terraform after the refresh stops the update
// instead of being overwritten.
func TestStorageChangedOutsideSinceRefresh(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	ctx := context.Background()
	rt := "pve_storage_nfs"
	base := map[string]any{"storage": "isos", "server": "10.0.0.20", "export": "/export/isos", "path": "/mnt/pve/isos", "options": "vers=4.2"}
	state, _ := apply(t, p, rt, p.NullState(t, rt), config(t, p, rt, base))
	cfg, _, _ := p.Client.GetStorageConfig(ctx, "isos")
	delta := &wire.ConfigDelta{}
	delta.Set("options", "vers=3")
	if err := p.Client.UpdateStorage(ctx, "isos", delta, cfg.Digest); err != nil {
		t.Fatal(err)
	}
	changed := config(t, p, rt, with(base, "disable", true))
	plan := p.PlanResponse(t, rt, state, changed)
	resp, err := p.Server.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{
		TypeName: rt, PriorState: state, PlannedState: plan.PlannedState, Config: changed,
	})
	if err != nil {
		t.Fatal(err)
	}
	acctest.WantAll(t, "the refusal", errorsOf(resp.Diagnostics), "Changed Outside Terraform", "isos", "(options)", "plan again")
	if cfg, _, _ := p.Client.GetStorageConfig(ctx, "isos"); cfg.Options["options"] != "vers=3" || cfg.Options["disable"] != "" {
		t.Errorf("PVE has %v, want the other change kept and nothing written", cfg.Options)
	}
}

// On PVE 8.4 the types without release-specific options behave as on 9.
func TestStorageLifecycleOnPVE84(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocolOnPVE(t, "8.4")
	for _, tc := range typeCases {
		if tc.typ != "dir" && tc.typ != "pbs" && tc.typ != "lvm" {
			continue
		}
		rt := resType(tc.typ)
		id := "v84-" + tc.typ
		created := config(t, p, rt, with(tc.required, "storage", id, "disable", true))
		state, _ := apply(t, p, rt, p.NullState(t, rt), created)
		wantNoChange(t, p, rt, state, created, tc.typ+" after create")
		wantNoChange(t, p, rt, p.Import(t, rt, id), created, tc.typ+" after import")
	}
}

// A storage redefined outside Terraform with another type is not read as
// this resource's type: the refresh says so and names the resource type.
func TestStorageRedefinedWithAnotherType(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	ctx := context.Background()
	rt := "pve_storage_dir"
	state, _ := apply(t, p, rt, p.NullState(t, rt), config(t, p, rt, map[string]any{"storage": "swap", "path": "/srv/swap"}))
	if err := p.Client.DeleteStorage(ctx, "swap"); err != nil {
		t.Fatal(err)
	}
	if err := p.Client.CreateStorage(ctx, "swap", "zfspool", map[string]string{"pool": "rpool/swap"}); err != nil {
		t.Fatal(err)
	}
	resp, err := p.Server.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: rt, CurrentState: state})
	if err != nil {
		t.Fatal(err)
	}
	acctest.WantAll(t, "the refresh error", errorsOf(resp.Diagnostics), "Storage Type Changed", "swap", "zfspool", "pve_storage_zfspool")
}
