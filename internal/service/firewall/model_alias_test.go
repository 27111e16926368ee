package firewall

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

func TestNormalizeAliasCIDR(t *testing.T) {
	for in, want := range map[string]string{
		"10.0.0.5":          "10.0.0.5",
		"10.0.0.5/32":       "10.0.0.5",
		"10.0.0.5/24":       "10.0.0.5/24", // PVE keeps an alias's host bits
		"10.0.0.0/8":        "10.0.0.0/8",
		"2001:db8::1/128":   "2001:db8::1",
		"2001:db8::/64":     "2001:db8::/64",
		"fe80::1":           "fe80::1",
		"192.168.100.10/31": "192.168.100.10/31",
	} {
		got, err := normalizeAliasCIDR(in)
		if err != nil || got != want {
			t.Errorf("normalizeAliasCIDR(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "office", "dc/office", "10.0.0.256", "10.0.0.0/33", "2001:db8::/129", "10.0.0.0/", "10.0.0.0/a", "fe80::1%eth0"} {
		if got, err := normalizeAliasCIDR(bad); err == nil {
			t.Errorf("normalizeAliasCIDR(%q) = %q, want an error", bad, got)
		}
	}
}

func TestValidateFirewallName(t *testing.T) {
	for _, ok := range []string{"ab", "Office", "web-servers_2", strings.Repeat("a", 64)} {
		if err := validateAliasName(ok); err != nil {
			t.Errorf("validateAliasName(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"a", "1web", "-web", "web servers", "web.servers", strings.Repeat("a", 65), "dc/web"} {
		if validateAliasName(bad) == nil {
			t.Errorf("validateAliasName(%q) accepted", bad)
		}
	}
}

func TestValidateFirewallComment(t *testing.T) {
	for _, ok := range []string{"office network # main", "-", "Büro"} {
		if err := validateFirewallComment(ok); err != nil {
			t.Errorf("comment %q was refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", " lead", "trail ", "two\nlines", "0"} {
		if validateFirewallComment(bad) == nil {
			t.Errorf("validateFirewallComment(%q) accepted", bad)
		}
	}
}

func TestParseAliasID(t *testing.T) {
	scope, name, err := parseAliasID("guest/100/Office")
	if err != nil || scope != (scopeRef{VMID: 100}) || name != "Office" {
		t.Errorf("parseAliasID(guest/100/Office) = %+v, %q, %v", scope, name, err)
	}
	scope, name, err = parseAliasID("cluster/web")
	if err != nil || scope != (scopeRef{}) || name != "web" {
		t.Errorf("parseAliasID(cluster/web) = %+v, %q, %v", scope, name, err)
	}
	for _, bad := range []string{"cluster", "cluster/", "node/pve1/web", "guest/100", "guest/100/1x", "web"} {
		if _, _, err := parseAliasID(bad); err == nil {
			t.Errorf("parseAliasID(%q) accepted", bad)
		}
	}
}

// PVE stores 10.0.0.5/32 as 10.0.0.5: the state keeps the configured
// spelling, so the plan stays empty; another address replaces it.
func TestAliasFromAPIKeepsSpelling(t *testing.T) {
	m := aliasModel{VMID: types.Int64Null(), Name: types.StringValue("office"), CIDR: types.StringValue("10.0.0.5/32")}
	m.fromAPI(scopeRef{}, pveapi.FirewallAlias{Name: "Office", CIDR: "10.0.0.5"})
	want := aliasModel{
		ID: types.StringValue("cluster/Office"), VMID: types.Int64Null(), Name: types.StringValue("Office"),
		CIDR: types.StringValue("10.0.0.5/32"), Comment: types.StringNull(), Ref: types.StringValue("dc/Office"),
	}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("fromAPI (-want +got):\n%s", diff)
	}
	m.fromAPI(scopeRef{VMID: 100}, pveapi.FirewallAlias{Name: "Office", CIDR: "10.0.0.6", Comment: "moved"})
	if m.CIDR.ValueString() != "10.0.0.6" || m.Comment.ValueString() != "moved" || m.ID.ValueString() != "guest/100/Office" || m.Ref.ValueString() != "guest/Office" {
		t.Errorf("fromAPI after an outside change = %+v", m)
	}
}

func TestAliasNeedsWrite(t *testing.T) {
	base := aliasModel{Name: types.StringValue("office"), CIDR: types.StringValue("10.0.0.5"), Comment: types.StringNull()}
	respelled := base
	respelled.CIDR = types.StringValue("10.0.0.5/32")
	if aliasNeedsWrite(base, respelled) {
		t.Error("a respelled address PVE stores the same needs a write")
	}
	for what, change := range map[string]func(*aliasModel){
		"address": func(m *aliasModel) { m.CIDR = types.StringValue("10.0.0.6") },
		"name":    func(m *aliasModel) { m.Name = types.StringValue("Office") },
		"comment": func(m *aliasModel) { m.Comment = types.StringValue("x") },
	} {
		plan := base
		change(&plan)
		if !aliasNeedsWrite(base, plan) {
			t.Errorf("a changed %s needs no write", what)
		}
	}
}

func TestAliasUnchanged(t *testing.T) {
	state := aliasModel{Name: types.StringValue("office"), CIDR: types.StringValue("10.0.0.5/32"), Comment: types.StringValue("x")}
	if !aliasUnchanged(state, pveapi.FirewallAlias{Name: "office", CIDR: "10.0.0.5", Comment: "x"}) {
		t.Error("the alias as read was taken for a change")
	}
	for _, a := range []pveapi.FirewallAlias{
		{Name: "Office", CIDR: "10.0.0.5", Comment: "x"},
		{Name: "office", CIDR: "10.0.0.6", Comment: "x"},
		{Name: "office", CIDR: "10.0.0.5"},
	} {
		if aliasUnchanged(state, a) {
			t.Errorf("%+v was taken for the alias as read", a)
		}
	}
}

var errDigest = &pveapi.Error{Method: "PUT", Path: "/cluster/firewall/aliases/x", StatusCode: 500,
	Message: "detected modified configuration - file changed by other user? Try again."}

func TestGuardedWrite(t *testing.T) {
	ctx := context.Background()
	var sent []string
	write := func(ok string) func(string) error {
		return func(d string) error {
			sent = append(sent, d)
			if d != ok {
				return errDigest
			}
			return nil
		}
	}
	recheck := func(context.Context) (string, error) { return "fresh", nil }

	// A digest PVE takes: one request.
	sent = nil
	if err := guardedWrite(ctx, "kept", write("kept"), recheck); err != nil || !cmp.Equal(sent, []string{"kept"}) {
		t.Errorf("current digest: err %v, sent %v", err, sent)
	}
	// A refused digest, the object unchanged: once more with PVE's digest.
	sent = nil
	if err := guardedWrite(ctx, "stale", write("fresh"), recheck); err != nil || !cmp.Equal(sent, []string{"stale", "fresh"}) {
		t.Errorf("stale digest: err %v, sent %v", err, sent)
	}
	// No digest known: read first.
	sent = nil
	if err := guardedWrite(ctx, "", write("fresh"), recheck); err != nil || !cmp.Equal(sent, []string{"fresh"}) {
		t.Errorf("no digest: err %v, sent %v", err, sent)
	}
	// The object changed: nothing more is sent.
	sent = nil
	outside := &changedOutsideError{what: "Alias x of the cluster's firewall", detail: "it no longer exists"}
	err := guardedWrite(ctx, "stale", write("fresh"), func(context.Context) (string, error) { return "", outside })
	if !errors.Is(err, outside) || len(sent) != 1 {
		t.Errorf("changed object: err %v, sent %v", err, sent)
	}
	if !strings.Contains(err.Error(), "run terraform plan again") {
		t.Errorf("the error does not say what to do: %v", err)
	}
	// Another error is not retried.
	sent = nil
	other := &pveapi.Error{StatusCode: 403, Message: "Permission check failed (/, Sys.Modify)"}
	if err := guardedWrite(ctx, "kept", func(string) error { sent = append(sent, "x"); return other }, recheck); !errors.Is(err, other) || len(sent) != 1 {
		t.Errorf("other error: err %v, sent %v", err, sent)
	}
}
