package storagecfg_test

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

// content = ["none"]: PVE takes it for the types whose content list has
// "none" and answers "none" (pve-storage src/PVE/Storage/Plugin.pm
// verify_content, decode_value, encode_value): created, imported and
// changed in place both ways with an empty plan after every step. A type
// without "none" refuses it at plan time, naming content.
func TestStorageContentNone(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	ctx := context.Background()
	none := []string{"none"}
	for _, tc := range []struct {
		typ   string
		attrs map[string]any
		other []string
	}{
		{"dir", map[string]any{"path": "/srv/none"}, []string{"iso"}},
		{"iscsi", map[string]any{"portal": "10.0.0.40", "target": "iqn.2003-01.org.linux-iscsi.san:none"}, []string{"images"}},
		{"pbs", map[string]any{"server": "10.0.0.60", "datastore": "main", "username": "pve@pbs", "password_wo": "pbs-secret-1"}, []string{"backup"}},
	} {
		rt := resType(tc.typ)
		id := "none-" + tc.typ
		base := with(tc.attrs, "storage", id)
		created := config(t, p, rt, with(base, "content", none))
		state, _ := apply(t, p, rt, p.NullState(t, rt), created)
		cfg, _, err := p.Client.GetStorageConfig(ctx, id)
		if err != nil || cfg.Options["content"] != "none" {
			t.Fatalf("%s: PVE has content %q: %v", tc.typ, cfg.Options["content"], err)
		}
		wantNoChange(t, p, rt, state, created, tc.typ+" after create")
		imported := p.Import(t, rt, id)
		if v := attrOf(t, p, rt, imported, "content"); !v.Equal(attrOf(t, p, rt, state, "content")) {
			t.Errorf("%s: imported content %v", tc.typ, v)
		}
		wantNoChange(t, p, rt, imported, created, tc.typ+" after import")

		changed := config(t, p, rt, with(base, "content", tc.other))
		state, plan := apply(t, p, rt, state, changed)
		if len(plan.RequiresReplace) > 0 {
			t.Errorf("%s: content replaces: %v", tc.typ, plan.RequiresReplace)
		}
		wantNoChange(t, p, rt, state, changed, tc.typ+" after leaving none")
		state, _ = apply(t, p, rt, state, created)
		if cfg, _, _ := p.Client.GetStorageConfig(ctx, id); cfg.Options["content"] != "none" {
			t.Errorf("%s: back to none, PVE has %q", tc.typ, cfg.Options["content"])
		}
		wantNoChange(t, p, rt, state, created, tc.typ+" after going back to none")
		if v := attrOf(t, p, rt, state, "content"); !v.Equal(tftypes.NewValue(tftypes.Set{ElementType: tftypes.String},
			[]tftypes.Value{tftypes.NewValue(tftypes.String, "none")})) {
			t.Errorf("%s: content in state is %v", tc.typ, v)
		}
	}
	for _, typ := range []string{"lvm", "rbd", "nfs", "esxi"} {
		var tc typeCase
		for _, c := range typeCases {
			if c.typ == typ {
				tc = c
			}
		}
		rt := resType(typ)
		diags := validate(t, p, rt, config(t, p, rt, with(tc.required, "storage", "none-"+typ, "content", none)))
		wantErrorUnder(t, diags, "content", `got: "none"`)
	}
}
