package access_test

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// realmAttributeType is the type of one top-level attribute of pve_realm.
func realmAttributeType(t *testing.T, p *acctest.Protocol, state *tfprotov6.DynamicValue, name string) tftypes.Type {
	t.Helper()
	var attrs map[string]tftypes.Value
	if err := p.StateValue(t, "pve_realm", state).As(&attrs); err != nil {
		t.Fatal(err)
	}
	return attrs[name].Type()
}

// Adopting a built-in realm names the settings it replaces or removes.
func TestRealmPlanWarnsAboutAdoptedSettings(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	tfa, comment := "type=oath,step=60", "by hand"
	if err := p.Client.UpdateRealm(context.Background(), pveapi.RealmUpdate{Realm: "pam", TFA: &tfa, Comment: &comment}); err != nil {
		t.Fatal(err)
	}
	imported := p.Import(t, "pve_realm", "pam")
	config := p.ConfigFromState(t, "pve_realm", imported)
	config = p.WithAttribute(t, "pve_realm", config, "tfa", tftypes.NewValue(realmAttributeType(t, p, imported, "tfa"), nil))
	config = p.WithAttribute(t, "pve_realm", config, "comment", tftypes.NewValue(tftypes.String, "managed"))

	resp := p.PlanResponse(t, "pve_realm", p.NullState(t, "pve_realm"), config)
	warning := acctest.Warning(resp.Diagnostics, "Adopting A Built-In Realm Changes Its Settings")
	acctest.WantAll(t, "the adoption warning", warning, `comment (now "by hand")`, `tfa (now "type=oath,step=60")`, "Declare them to keep them")
}

// A sync whose remove_vanished holds entry or acl is warned about, naming
// the attribute, the realm and what goes; a dry run is not.
func TestRealmPlanWarnsBeforeRemovingSync(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	err := p.Client.CreateRealm(context.Background(), pveapi.RealmCreate{Realm: "corp", Type: "ldap",
		Options: map[string]string{"server1": "ldap1", "base_dn": "dc=example", "user_attr": "uid"}})
	if err != nil {
		t.Fatal(err)
	}
	state := p.Import(t, "pve_realm", "corp")
	syncType := realmAttributeType(t, p, state, "sync").(tftypes.Object)
	syncValue := func(dryRun bool, flags ...string) tftypes.Value {
		elems := make([]tftypes.Value, len(flags))
		for i, f := range flags {
			elems[i] = tftypes.NewValue(tftypes.String, f)
		}
		return tftypes.NewValue(syncType, map[string]tftypes.Value{
			"scope":           tftypes.NewValue(tftypes.String, "both"),
			"remove_vanished": tftypes.NewValue(tftypes.Set{ElementType: tftypes.String}, elems),
			"enable_new":      tftypes.NewValue(tftypes.Bool, nil),
			"dry_run":         tftypes.NewValue(tftypes.Bool, dryRun),
		})
	}
	config := p.ConfigFromState(t, "pve_realm", state)

	resp := p.PlanResponse(t, "pve_realm", state, p.WithAttribute(t, "pve_realm", config, "sync", syncValue(false, "entry", "acl")))
	warning := acctest.Warning(resp.Diagnostics, "Realm Sync Removes Users Or Permissions")
	acctest.WantAll(t, "the sync warning", warning, "syncs realm corp", `sync.remove_vanished holds "acl;entry"`,
		"names ending in @corp and -corp", "pve_user or pve_group", "ACL entries", "dry_run")

	resp = p.PlanResponse(t, "pve_realm", state, p.WithAttribute(t, "pve_realm", config, "sync", syncValue(false, "properties")))
	if w := acctest.Warning(resp.Diagnostics, "Realm Sync Removes Users Or Permissions"); w != "" {
		t.Errorf("remove_vanished properties warned: %s", w)
	}
	resp = p.PlanResponse(t, "pve_realm", state, p.WithAttribute(t, "pve_realm", config, "sync", syncValue(true, "entry")))
	if w := acctest.Warning(resp.Diagnostics, "Realm Sync Removes Users Or Permissions"); w != "" {
		t.Errorf("a dry run warned: %s", w)
	}
}

// An apply checks the realm against the state it planned from: a change
// made to this realm since then fails the apply and names the attribute;
// a change to another realm (which changes the digest of domains.cfg)
// does not stop it.
func TestRealmApplyRefusesAChangeSinceThePlan(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	ctx := context.Background()
	err := p.Client.CreateRealm(ctx, pveapi.RealmCreate{Realm: "corp", Type: "ldap", Comment: "first",
		Options: map[string]string{"server1": "ldap1", "base_dn": "dc=example", "user_attr": "uid"}})
	if err != nil {
		t.Fatal(err)
	}
	state := p.Import(t, "pve_realm", "corp")
	config := p.WithAttribute(t, "pve_realm", p.ConfigFromState(t, "pve_realm", state), "server2", tftypes.NewValue(tftypes.String, "ldap2"))
	plan := p.PlanResponse(t, "pve_realm", state, config)
	if len(plan.Diagnostics) > 0 {
		t.Fatalf("plan: %v", plan.Diagnostics[0])
	}
	planned := plan.PlannedState
	apply := func() *tfprotov6.ApplyResourceChangeResponse {
		resp, err := p.Server.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{
			TypeName: "pve_realm", PriorState: state, PlannedState: planned, Config: config,
		})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}

	other := "changed by hand"
	if err := p.Client.UpdateRealm(ctx, pveapi.RealmUpdate{Realm: "pam", Comment: &other}); err != nil {
		t.Fatal(err)
	}
	if resp := apply(); len(resp.Diagnostics) > 0 {
		t.Fatalf("a change to another realm stopped the apply: %v", resp.Diagnostics[0])
	}
	if r, err := p.Client.GetRealm(ctx, "corp"); err != nil || r.Options["server2"] != "ldap2" {
		t.Fatalf("the apply did not set server2: %v %v", r, err)
	}
	if err := p.Client.UpdateRealm(ctx, pveapi.RealmUpdate{Realm: "corp", Delete: []string{"server2"}, Comment: &other}); err != nil {
		t.Fatal(err)
	}
	resp := apply()
	if len(resp.Diagnostics) == 0 || resp.Diagnostics[0].Summary != "Realm Changed Outside Terraform" {
		t.Fatalf("diagnostics %v", resp.Diagnostics)
	}
	acctest.WantAll(t, "the error", resp.Diagnostics[0].Detail, "Realm corp", "(comment)", "nothing was written")
}
