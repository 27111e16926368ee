package storage_test

import (
	"context"
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

// readStorages reads pve_storages with the given attributes over the
// protocol; it returns the state as plain Go values and the GET paths the
// read sent.
func readStorages(tb testing.TB, p *acctest.Protocol, attrs map[string]any) (map[string]any, []string, []*tfprotov6.Diagnostic) {
	tb.Helper()
	ctx := context.Background()
	schemas, err := p.Server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		tb.Fatal(err)
	}
	typ := schemas.DataSourceSchemas["pve_storages"].ValueType().(tftypes.Object)
	values := map[string]tftypes.Value{}
	for name, t := range typ.AttributeTypes {
		values[name] = tftypes.NewValue(t, nil)
	}
	for name, v := range attrs {
		values[name] = tftypes.NewValue(typ.AttributeTypes[name], v)
	}
	cfg, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, values))
	if err != nil {
		tb.Fatal(err)
	}
	if diags := validateStorages(tb, p, &cfg); len(diags) > 0 {
		return nil, nil, diags
	}
	p.Sim.ResetCounters()
	resp, err := p.Server.ReadDataSource(ctx, &tfprotov6.ReadDataSourceRequest{TypeName: "pve_storages", Config: &cfg})
	if err != nil {
		tb.Fatal(err)
	}
	var paths []string
	for _, r := range p.Sim.Requests() {
		paths = append(paths, r.Method+" "+r.Path)
	}
	if len(resp.Diagnostics) > 0 {
		return nil, paths, resp.Diagnostics
	}
	state, err := resp.State.Unmarshal(typ)
	if err != nil {
		tb.Fatal(err)
	}
	return goValue(tb, state).(map[string]any), paths, nil
}

func validateStorages(tb testing.TB, p *acctest.Protocol, cfg *tfprotov6.DynamicValue) []*tfprotov6.Diagnostic {
	tb.Helper()
	resp, err := p.Server.ValidateDataResourceConfig(context.Background(),
		&tfprotov6.ValidateDataResourceConfigRequest{TypeName: "pve_storages", Config: cfg})
	if err != nil {
		tb.Fatal(err)
	}
	return resp.Diagnostics
}

// goValue turns a value into maps, slices, strings, bools and numbers
// (int64), nil for null.
func goValue(tb testing.TB, v tftypes.Value) any {
	tb.Helper()
	if v.IsNull() {
		return nil
	}
	switch {
	case v.Type().Is(tftypes.String):
		var s string
		_ = v.As(&s)
		return s
	case v.Type().Is(tftypes.Bool):
		var b bool
		_ = v.As(&b)
		return b
	case v.Type().Is(tftypes.Number):
		var n big.Float
		_ = v.As(&n)
		i, _ := n.Int64()
		return i
	case v.Type().Is(tftypes.List{}), v.Type().Is(tftypes.Set{}):
		var items []tftypes.Value
		_ = v.As(&items)
		out := []any{}
		for _, it := range items {
			out = append(out, goValue(tb, it))
		}
		return out
	default:
		var m map[string]tftypes.Value
		if err := v.As(&m); err != nil {
			tb.Fatalf("value %v: %v", v, err)
		}
		out := map[string]any{}
		for k, it := range m {
			out[k] = goValue(tb, it)
		}
		return out
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// entries maps the listed storages by id.
func entries(state map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, e := range state["storages"].([]any) {
		m := e.(map[string]any)
		out[m["storage"].(string)] = m
	}
	return out
}

// nonNull drops the null attributes of an entry.
func nonNull(e map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range e {
		if v != nil {
			out[k] = v
		}
	}
	return out
}

// Without node, pve_storages lists storage.cfg's definitions from one GET
// /storage: type, content, nodes, shared, disabled, where each storage
// lives and its other options, never a secret; the status attributes are
// null. With node, the node's status list and the definitions once for
// all storages: two requests whatever the number of storages.
func TestStoragesDataSourceDefinitions(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	ctx := context.Background()
	secrets := []string{"pbs-Secret-4711", "ceph-Keyring-0815"}
	for _, s := range []struct {
		id, typ string
		opts    map[string]string
	}{
		{"backups", "pbs", map[string]string{"server": "10.0.0.60", "datastore": "main", "username": "pve@pbs",
			"password": secrets[0], "port": "8007", "namespace": "lab"}},
		{"ceph", "rbd", map[string]string{"pool": "rbd", "monhost": "10.0.0.51", "keyring": secrets[1], "krbd": "1"}},
		{"san", "lvm", map[string]string{"vgname": "vg-san", "shared": "1", "disable": "1", "nodes": "pve2,pve1"}},
		{"empty", "dir", map[string]string{"path": "/srv/empty", "content": "none"}},
	} {
		if err := p.Client.CreateStorage(ctx, s.id, s.typ, s.opts); err != nil {
			t.Fatalf("create %s: %v", s.id, err)
		}
	}

	state, paths, diags := readStorages(t, p, nil)
	if len(diags) > 0 {
		t.Fatalf("read: %v", diags[0])
	}
	if strings.Join(paths, " ") != "GET /storage" {
		t.Errorf("requests: %v, want one GET /storage", paths)
	}
	if state["id"] != "storages" {
		t.Errorf("id = %v", state["id"])
	}
	got := entries(state)
	for id, want := range map[string]string{
		"backups": `{"content":["backup"],"datastore":"main","disabled":false,"namespace":"lab","options":{"username":"pve@pbs"},` +
			`"port":8007,"server":"10.0.0.60","shared":true,"storage":"backups","type":"pbs"}`,
		"ceph": `{"content":["images"],"disabled":false,"monhost":"10.0.0.51","options":{"krbd":"1"},"pool":"rbd","shared":true,` +
			`"storage":"ceph","type":"rbd"}`,
		"san": `{"content":["images"],"disabled":true,"nodes":["pve1","pve2"],"options":{},"shared":true,"storage":"san","type":"lvm",` +
			`"vgname":"vg-san"}`,
		"empty": `{"content":["none"],"disabled":false,"options":{},"path":"/srv/empty","shared":false,"storage":"empty","type":"dir"}`,
		"local-lvm": `{"content":["images","rootdir"],"disabled":false,"options":{},"shared":false,"storage":"local-lvm",` +
			`"thinpool":"data","type":"lvmthin","vgname":"pve"}`,
	} {
		if g := jsonOf(nonNull(got[id])); g != want {
			t.Errorf("%s =\n %s\nwant\n %s", id, g, want)
		}
	}
	if len(got) != 7 {
		t.Errorf("%d storages: %v", len(got), jsonOf(state["storages"]))
	}
	if text := jsonOf(state); strings.Contains(text, secrets[0]) || strings.Contains(text, secrets[1]) {
		t.Errorf("a secret is in the data source's state: %s", text)
	}

	// Filters without node: type and content and shared, still one request.
	for _, tc := range []struct {
		attrs map[string]any
		want  string
	}{
		{map[string]any{"type": "lvm"}, "san"},
		{map[string]any{"content": "backup"}, "backups local"},
		{map[string]any{"content": "iso"}, "local shared-nfs"},
		{map[string]any{"shared": true, "content": "images"}, "ceph san shared-nfs"},
		{map[string]any{"shared": false}, "empty local local-lvm"},
		{map[string]any{"type": "dir", "shared": false}, "empty local"},
	} {
		state, paths, diags := readStorages(t, p, tc.attrs)
		if len(diags) > 0 {
			t.Fatalf("%v: %v", tc.attrs, diags[0])
		}
		var ids []string
		for _, e := range state["storages"].([]any) {
			ids = append(ids, e.(map[string]any)["storage"].(string))
		}
		if strings.Join(ids, " ") != tc.want || len(paths) != 1 {
			t.Errorf("%v: %v with %v, want %s", tc.attrs, ids, paths, tc.want)
		}
	}

	// With node: the status and the definition of each storage, from two
	// requests.
	state, paths, diags = readStorages(t, p, map[string]any{"node": "pve1"})
	if len(diags) > 0 {
		t.Fatalf("read pve1: %v", diags[0])
	}
	if strings.Join(paths, " ") != "GET /storage GET /nodes/pve1/storage" {
		t.Errorf("requests: %v", paths)
	}
	got = entries(state)
	local := nonNull(got["local"])
	delete(local, "used")
	delete(local, "available")
	if g := jsonOf(local); g != `{"active":true,"content":["backup","import","iso","snippets","vztmpl"],"disabled":false,"enabled":true,`+
		`"options":{},"path":"/var/lib/vz","shared":false,"storage":"local","total":107374182400,"type":"dir"}` {
		t.Errorf("local on pve1 = %s", g)
	}
	if nfs := got["shared-nfs"]; nfs["server"] != "192.0.2.5" || nfs["export"] != "/srv/pve" || jsonOf(nfs["options"]) != `{"options":"vers=4.2"}` {
		t.Errorf("shared-nfs on pve1 = %s", jsonOf(nonNull(nfs)))
	}
	if e := got["san"]; e["enabled"] != false || e["disabled"] != true || e["vgname"] != "vg-san" {
		t.Errorf("san on pve1 = %s", jsonOf(nonNull(e)))
	}
	if text := jsonOf(state); strings.Contains(text, secrets[0]) || strings.Contains(text, secrets[1]) {
		t.Errorf("a secret is in the data source's state: %s", text)
	}
	state, _, _ = readStorages(t, p, map[string]any{"node": "pve3", "type": "lvm"})
	if g := jsonOf(state["storages"]); !strings.Contains(g, `"storage":"san"`) || strings.Count(g, `"storage":`) != 1 ||
		!strings.Contains(g, `"enabled":false`) {
		t.Errorf("lvm on pve3 = %s", g)
	}

	// A type PVE does not have is refused, naming the attribute.
	_, _, diags = readStorages(t, p, map[string]any{"type": "zfs-pool"})
	if len(diags) == 0 || diags[0].Attribute == nil || !strings.Contains(diags[0].Attribute.String(), "type") {
		t.Errorf("bad type: %v", diags)
	}
}
