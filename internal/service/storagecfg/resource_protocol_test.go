package storagecfg_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// typeCase is one storage type's test configuration: what it needs to be
// created, and one fixed option with another value.
type typeCase struct {
	typ      string
	required map[string]any
	fixed    string // a fixed attribute to change; "" when the type has none
	fixedTo  any
}

var typeCases = []typeCase{
	{typ: "dir", required: map[string]any{"path": "/srv/t"}, fixed: "path", fixedTo: "/srv/u"},
	{typ: "nfs", required: map[string]any{"path": "/mnt/pve/t", "server": "10.0.0.20", "export": "/export/t"}, fixed: "export", fixedTo: "/export/u"},
	{typ: "cifs", required: map[string]any{"path": "/mnt/pve/t", "server": "10.0.0.21", "share": "t"}, fixed: "share", fixedTo: "u"},
	{typ: "lvm", required: map[string]any{"vgname": "vgt"}, fixed: "vgname", fixedTo: "vgu"},
	{typ: "lvmthin", required: map[string]any{"vgname": "pve", "thinpool": "tdata"}, fixed: "thinpool", fixedTo: "udata"},
	{typ: "zfspool", required: map[string]any{"pool": "tank/t"}, fixed: "pool", fixedTo: "tank/u"},
	{typ: "zfs", required: map[string]any{"portal": "10.0.0.30", "target": "iqn.2003-01.org.linux-iscsi.san:t", "pool": "tank",
		"blocksize": "8k", "iscsiprovider": "LIO"}, fixed: "blocksize", fixedTo: "16k"},
	{typ: "iscsi", required: map[string]any{"portal": "10.0.0.40", "target": "iqn.2003-01.org.linux-iscsi.san:t"}, fixed: "target", fixedTo: "iqn.2003-01.org.linux-iscsi.san:u"},
	{typ: "iscsidirect", required: map[string]any{"portal": "10.0.0.41", "target": "iqn.2003-01.org.linux-iscsi.san:t"}, fixed: "portal", fixedTo: "10.0.0.42"},
	{typ: "rbd", required: map[string]any{"pool": "rbd", "monhost": "10.0.0.51"}},
	{typ: "cephfs", required: map[string]any{"path": "/mnt/pve/cephfs"}, fixed: "path", fixedTo: "/mnt/pve/other"},
	{typ: "pbs", required: map[string]any{"server": "10.0.0.60", "datastore": "main", "username": "pve@pbs", "password_wo": "pbs-secret-1"},
		fixed: "datastore", fixedTo: "other"},
	{typ: "btrfs", required: map[string]any{"path": "/mnt/btrfs"}, fixed: "path", fixedTo: "/mnt/btrfs2"},
	{typ: "esxi", required: map[string]any{"server": "esxi.example.com", "username": "root", "password_wo": "esxi-secret-1"}},
}

func resType(typ string) string { return "pve_storage_" + typ }

// config is a configuration of typeName with the given attributes, every
// other one null. Values are strings, bools, ints, []string for a set, or
// map[string]any for a nested object.
func config(tb testing.TB, p *acctest.Protocol, typeName string, attrs map[string]any) *tfprotov6.DynamicValue {
	tb.Helper()
	typ := p.StateValue(tb, typeName, p.NullState(tb, typeName)).Type().(tftypes.Object)
	values := map[string]tftypes.Value{}
	for name, t := range typ.AttributeTypes {
		values[name] = tftypes.NewValue(t, nil)
	}
	for name, v := range attrs {
		t, ok := typ.AttributeTypes[name]
		if !ok {
			tb.Fatalf("%s has no attribute %s", typeName, name)
		}
		values[name] = tfValue(tb, t, v)
	}
	dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, values))
	if err != nil {
		tb.Fatalf("configuration: %v", err)
	}
	return &dv
}

func tfValue(tb testing.TB, t tftypes.Type, v any) tftypes.Value {
	tb.Helper()
	switch x := v.(type) {
	case string, bool:
		return tftypes.NewValue(t, x)
	case int:
		return tftypes.NewValue(t, int64(x))
	case []string:
		elems := make([]tftypes.Value, len(x))
		for i, s := range x {
			elems[i] = tftypes.NewValue(tftypes.String, s)
		}
		return tftypes.NewValue(t, elems)
	case map[string]any:
		ot := t.(tftypes.Object)
		vals := map[string]tftypes.Value{}
		for name, at := range ot.AttributeTypes {
			vals[name] = tftypes.NewValue(at, nil)
		}
		for name, av := range x {
			vals[name] = tfValue(tb, ot.AttributeTypes[name], av)
		}
		return tftypes.NewValue(t, vals)
	}
	tb.Fatalf("unsupported value %T", v)
	return tftypes.Value{}
}

func with(base map[string]any, kv ...any) map[string]any {
	out := map[string]any{}
	for k, v := range base {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

func diagText(diags []*tfprotov6.Diagnostic, severity tfprotov6.DiagnosticSeverity) string {
	var lines []string
	for _, d := range diags {
		if d.Severity != severity {
			continue
		}
		at := ""
		if d.Attribute != nil {
			at = d.Attribute.String()
		}
		lines = append(lines, at+": "+d.Summary+": "+d.Detail)
	}
	return strings.Join(lines, "\n")
}

func errorsOf(diags []*tfprotov6.Diagnostic) string {
	return diagText(diags, tfprotov6.DiagnosticSeverityError)
}

// apply plans config against prior and applies it; it fails the test on
// errors and returns the new state and the plan.
func apply(tb testing.TB, p *acctest.Protocol, typeName string, prior, cfg *tfprotov6.DynamicValue) (*tfprotov6.DynamicValue, *tfprotov6.PlanResourceChangeResponse) {
	tb.Helper()
	plan := p.PlanResponse(tb, typeName, prior, cfg)
	if msg := errorsOf(plan.Diagnostics); msg != "" {
		tb.Fatalf("plan: %s", msg)
	}
	resp, err := p.Server.ApplyResourceChange(context.Background(), &tfprotov6.ApplyResourceChangeRequest{
		TypeName: typeName, PriorState: prior, PlannedState: plan.PlannedState, Config: cfg, PlannedPrivate: plan.PlannedPrivate,
	})
	if err != nil {
		tb.Fatal(err)
	}
	if msg := errorsOf(resp.Diagnostics); msg != "" {
		tb.Fatalf("apply: %s", msg)
	}
	return resp.NewState, plan
}

// wantNoChange checks that planning cfg against state changes nothing.
func wantNoChange(tb testing.TB, p *acctest.Protocol, typeName string, state, cfg *tfprotov6.DynamicValue, when string) {
	tb.Helper()
	plan := p.PlanResponse(tb, typeName, state, cfg)
	if msg := errorsOf(plan.Diagnostics); msg != "" {
		tb.Fatalf("%s: plan: %s", when, msg)
	}
	before := p.StateValue(tb, typeName, state)
	after := p.StateValue(tb, typeName, plan.PlannedState)
	if !before.Equal(after) || len(plan.RequiresReplace) > 0 {
		diffs, _ := before.Diff(after)
		tb.Errorf("%s: the plan is not empty: %v (replace %v)", when, diffs, plan.RequiresReplace)
	}
}

func attrOf(tb testing.TB, p *acctest.Protocol, typeName string, state *tfprotov6.DynamicValue, name string) tftypes.Value {
	tb.Helper()
	var m map[string]tftypes.Value
	if err := p.StateValue(tb, typeName, state).As(&m); err != nil {
		tb.Fatal(err)
	}
	return m[name]
}

// Every storage type: create, an empty plan after it, import round trip,
// an in-place update (PUT) and removal of optional attributes, a fixed
// option's replacement with its warning, and destroy.
func TestStorageLifecycleEveryType(t *testing.T) {
	t.Parallel()
	if len(typeCases) != len(wire.StorageTypes) {
		t.Fatalf("%d cases for %d storage types", len(typeCases), len(wire.StorageTypes))
	}
	for _, tc := range typeCases {
		t.Run(tc.typ, func(t *testing.T) {
			t.Parallel()
			p := acctest.NewProtocol(t)
			ctx := context.Background()
			rt := resType(tc.typ)
			id := "t-" + tc.typ
			base := with(tc.required, "storage", id)
			created := config(t, p, rt, base)
			state, _ := apply(t, p, rt, p.NullState(t, rt), created)
			cfg, found, err := p.Client.GetStorageConfig(ctx, id)
			if err != nil || !found || cfg.Type != tc.typ {
				t.Fatalf("PVE has %+v (found %v): %v", cfg, found, err)
			}
			if s := attrOf(t, p, rt, state, "id"); !s.Equal(tftypes.NewValue(tftypes.String, id)) {
				t.Errorf("id is %v", s)
			}
			if v := attrOf(t, p, rt, state, "disable"); !v.IsNull() {
				t.Errorf("disable is %v in state, want null (absent in PVE)", v)
			}
			wantNoChange(t, p, rt, state, created, "after create")

			imported := p.Import(t, rt, id)
			importedValue := p.StateValue(t, rt, imported)
			if !importedValue.Equal(p.StateValue(t, rt, state)) {
				diffs, _ := importedValue.Diff(p.StateValue(t, rt, state))
				t.Errorf("import differs from the created state: %v", diffs)
			}
			wantNoChange(t, p, rt, imported, created, "after import")

			// In place: disable and nodes set, then removed again.
			updated := config(t, p, rt, with(base, "disable", true, "nodes", []string{"pve1"}))
			_, writesBefore := p.Requests()
			state2, plan := apply(t, p, rt, state, updated)
			if len(plan.RequiresReplace) > 0 {
				t.Fatalf("disable and nodes replace the storage: %v", plan.RequiresReplace)
			}
			if _, writes := p.Requests(); writes != writesBefore+1 {
				t.Errorf("the update made %d writes, want one PUT", writes-writesBefore)
			}
			cfg, _, _ = p.Client.GetStorageConfig(ctx, id)
			if cfg.Options["disable"] != "1" || cfg.Options["nodes"] != "pve1" {
				t.Errorf("after the update PVE has %v", cfg.Options)
			}
			wantNoChange(t, p, rt, state2, updated, "after update")
			state3, _ := apply(t, p, rt, state2, created)
			cfg, _, _ = p.Client.GetStorageConfig(ctx, id)
			if _, ok := cfg.Options["disable"]; ok {
				t.Errorf("disable was not deleted: %v", cfg.Options)
			}
			if _, ok := cfg.Options["nodes"]; ok {
				t.Errorf("nodes was not deleted: %v", cfg.Options)
			}
			wantNoChange(t, p, rt, state3, created, "after removing the options")

			if tc.fixed != "" {
				moved := config(t, p, rt, with(base, tc.fixed, tc.fixedTo))
				plan := p.PlanResponse(t, rt, state3, moved)
				if msg := errorsOf(plan.Diagnostics); msg != "" {
					t.Fatalf("plan: %s", msg)
				}
				if len(plan.RequiresReplace) != 1 || !plan.RequiresReplace[0].Equal(tftypes.NewAttributePath().WithAttributeName(tc.fixed)) {
					t.Errorf("changing %s replaces %v", tc.fixed, plan.RequiresReplace)
				}
				acctest.WantAll(t, "the replacement warning", acctest.Warning(plan.Diagnostics, "Storage Definition Replaced"),
					tc.fixed, id, "volumes on the storage stay")
			}

			destroy := p.PlanResponse(t, rt, state3, nil)
			if msg := errorsOf(destroy.Diagnostics); msg != "" {
				t.Fatalf("destroy plan: %s", msg)
			}
			resp, err := p.Server.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{
				TypeName: rt, PriorState: state3, PlannedState: destroy.PlannedState, Config: destroy.PlannedState,
			})
			if err != nil || errorsOf(resp.Diagnostics) != "" {
				t.Fatalf("destroy: %v %s", err, errorsOf(resp.Diagnostics))
			}
			if _, found, _ := p.Client.GetStorageConfig(ctx, id); found {
				t.Error("the storage still exists after destroy")
			}
		})
	}
}
