package access

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// realmSpecialAttrs are the attributes outside realmProps that only some
// realm types have.
var realmSpecialAttrs = []struct {
	attr  string
	kinds realmKinds
	what  string
}{
	{"tfa", kindBuiltin | kindDirectory, "PVE option tfa"},
	{"password_wo", kindDirectory, "the bind password"},
	{"password_wo_version", kindDirectory, "the bind password's version"},
	{"client_key_wo", kindOpenID, "PVE option client-key"},
	{"client_key_wo_version", kindOpenID, "the client key's version"},
	{"sync_defaults", kindDirectory, "PVE option sync-defaults-options"},
	{"sync", kindDirectory, "a sync"},
	{"sync_trigger", kindDirectory, "a sync"},
}

// maxTFALength is the tfa option's maxLength in the API schema.
const maxTFALength = 128

// ValidateConfig refuses what the realm's type does not have or lacks
// what it needs, each error on its attribute.
func (r *realmResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	config, ok := getRealmValues(ctx, req.Config.Get, &resp.Diagnostics)
	if !ok {
		return
	}
	typ, typeKnown := config.str("type")
	name, nameKnown := config.str("realm")
	if typeKnown && nameKnown {
		builtinName := name == "pam" || name == "pve"
		builtinType := realmKindOf(typ)&kindBuiltin != 0
		if (builtinName || builtinType) && name != typ {
			at, detail := path.Root("type"), fmt.Sprintf("Realm %s is PVE's built-in %s realm: set type = %q.", name, name, name)
			if !builtinName {
				at, detail = path.Root("realm"), fmt.Sprintf("Type %s is only the type of PVE's built-in %s realm: set realm = %q, "+
					"or choose ldap, ad or openid.", typ, typ, typ)
			}
			resp.Diagnostics.AddAttributeError(at, "Built-In Realm Type Mismatch", detail)
		}
	}
	kind := realmKindOf(typ)
	if !typeKnown || kind == 0 {
		return
	}
	notFor := func(attr, what string, kinds realmKinds) {
		resp.Diagnostics.AddAttributeError(path.Root(attr), "Attribute Not Available For This Realm Type",
			fmt.Sprintf("%s (%s) is for %s only; this realm's type is %s. Remove %s.", attr, what, kinds.describe(), typ, attr))
	}
	for _, p := range realmProps {
		switch {
		case p.kinds&kind == 0 && config.set(p.attr):
			notFor(p.attr, "PVE option "+p.key, p.kinds)
		case p.required&kind != 0 && !config.set(p.attr):
			resp.Diagnostics.AddAttributeError(path.Root(p.attr), "Missing Realm Setting",
				fmt.Sprintf("A realm of type %s needs %s (PVE option %s).", typ, p.attr, p.key))
		}
	}
	for _, s := range realmSpecialAttrs {
		if s.kinds&kind == 0 && config.set(s.attr) {
			notFor(s.attr, s.what, s.kinds)
		}
	}
	if kind&kindDirectory != 0 {
		validateRealmSync(config, resp)
	}
	for _, pair := range [][2]string{{"password_wo", "password_wo_version"}, {"client_key_wo", "client_key_wo_version"}} {
		if config.set(pair[0]) && !config.set(pair[1]) {
			resp.Diagnostics.AddAttributeError(path.Root(pair[1]), "Missing Secret Version",
				fmt.Sprintf("Set %s together with %s: the secret is write-only, so a change of %s alone cannot be seen. "+
					"Change %s whenever the secret changes.", pair[1], pair[0], pair[0], pair[1]))
		}
	}
	if tfa, ok := config.object("tfa"); ok && realmObjectKnown(tfa) {
		if s := formatTFA(tfa); len(s) > maxTFALength {
			resp.Diagnostics.AddAttributeError(path.Root("tfa"), "Invalid Realm Setting",
				fmt.Sprintf("tfa is written as %d characters (%s); PVE takes at most %d.", len(s), tfaTypeOnly(s), maxTFALength))
		}
	}
}

func tfaTypeOnly(s string) string {
	typ, _, _ := strings.Cut(s, ",")
	return typ + ",..."
}

// realmObjectKnown is true when no attribute of an object is unknown.
func realmObjectKnown(o realmValues) bool {
	for _, v := range o {
		if v.IsUnknown() {
			return false
		}
	}
	return true
}

func validateRealmSync(config realmValues, resp *resource.ValidateConfigResponse) {
	defaults, hasDefaults := config.object("sync_defaults")
	if hasDefaults && realmObjectKnown(defaults) && !defaults.set("scope") && !defaults.set("remove_vanished") && !defaults.set("enable_new") {
		resp.Diagnostics.AddAttributeError(path.Root("sync_defaults"), "Empty Sync Defaults",
			"sync_defaults sets no option: set scope, remove_vanished or enable_new, or remove sync_defaults.")
	}
	if config.set("sync_trigger") && !config.set("sync") {
		resp.Diagnostics.AddAttributeError(path.Root("sync_trigger"), "Sync Trigger Without Sync",
			"sync_trigger starts a sync when it changes, with the options of sync: set sync too (sync = {} syncs with sync_defaults).")
	}
	sync, hasSync := config.object("sync")
	if !hasSync || sync["scope"] == nil || sync["scope"].IsUnknown() || sync.set("scope") {
		return
	}
	if hasDefaults && (defaults["scope"] == nil || defaults["scope"].IsUnknown() || defaults.set("scope")) {
		return
	}
	if config["sync_defaults"] != nil && config["sync_defaults"].IsUnknown() {
		return
	}
	resp.Diagnostics.AddAttributeError(path.Root("sync").AtName("scope"), "Missing Sync Scope",
		"A sync needs to know what to sync: set sync.scope or sync_defaults.scope to users, groups or both.")
}

// ModifyPlan refuses a second realm planned as the default, says which
// settings adopting a built-in realm removes, and warns before a sync
// that removes users, groups or permissions.
func (r *realmResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if r.client == nil {
		return
	}
	if req.Plan.Raw.IsNull() {
		if state, ok := getRealmValues(ctx, req.State.Get, &resp.Diagnostics); ok {
			r.refuseSelfLockout(state, nil, false, resp)
		}
		return
	}
	plan, ok := getRealmValues(ctx, req.Plan.Get, &resp.Diagnostics)
	if !ok {
		return
	}
	creating := req.State.Raw.IsNull()
	var prior realmValues
	if !creating {
		if prior, ok = getRealmValues(ctx, req.State.Get, &resp.Diagnostics); !ok {
			return
		}
	}
	name, nameKnown := plan.str("realm")
	if !nameKnown {
		return
	}
	if plan.isDefault() {
		if others := realmCoordinatorFor(r.client).claimDefault(name); len(others) > 0 {
			sort.Strings(others)
			resp.Diagnostics.AddAttributeError(path.Root("default"), "Two Default Realms",
				fmt.Sprintf("Realms %s and %s both declare default = true. PVE has one default realm, and makes a realm the default "+
					"by taking the flag from the others: the realms would take it from each other on every apply. "+
					"Keep default = true on one realm.", strings.Join(others, ", "), name))
		}
	}
	r.refuseSelfLockout(prior, plan, len(resp.RequiresReplace) > 0, resp)
	if creating && plan.kind()&kindBuiltin != 0 {
		r.warnAdoption(ctx, name, plan, resp)
	}
	r.warnSyncRemovals(name, prior, plan, creating, resp)
}

// warnAdoption lists the settings of a built-in realm that adopting it
// removes or changes.
func (r *realmResource) warnAdoption(ctx context.Context, name string, plan realmValues, resp *resource.ModifyPlanResponse) {
	current, err := r.client.GetRealm(ctx, name)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read Realm", err)
		return
	}
	live, err := realmFromAPI(ctx, current, nil, r.types(ctx))
	if err != nil {
		resp.Diagnostics.AddError("Unable To Read Realm", fmt.Sprintf("Realm %s: %v", name, err))
		return
	}
	before, after := live.wireOptions(), plan.wireOptions()
	var lost []string
	for _, key := range sortedStringKeys(before) {
		if after[key] != before[key] && !plan[attributeOfKey(key)].IsUnknown() {
			lost = append(lost, fmt.Sprintf("%s (now %q)", attributeOfKey(key), before[key]))
		}
	}
	if live.isDefault() && !plan.isDefault() {
		lost = append(lost, "default (now true)")
	}
	if len(lost) > 0 {
		resp.Diagnostics.AddWarning("Adopting A Built-In Realm Changes Its Settings",
			fmt.Sprintf("Realm %s exists in PVE; pve_realm adopts it and sets what the configuration declares. These settings of it "+
				"are replaced or removed: %s. Declare them to keep them.", name, strings.Join(lost, ", ")))
	}
}

// warnSyncRemovals warns before a sync whose remove_vanished deletes
// users and groups (entry) or permissions (acl).
func (r *realmResource) warnSyncRemovals(name string, prior, plan realmValues, creating bool, resp *resource.ModifyPlanResponse) {
	if !plan.set("sync") || (!creating && !realmSyncDue(prior, plan)) {
		return
	}
	sync, _ := plan.object("sync")
	if dry, _ := sync.boolean("dry_run"); dry {
		return
	}
	source := "sync.remove_vanished"
	flags, ok := sync.strings("remove_vanished")
	if !ok {
		defaults, _ := plan.object("sync_defaults")
		flags, _ = defaults.strings("remove_vanished")
		source = "sync_defaults.remove_vanished"
	}
	var removes []string
	if slices.Contains(flags, "entry") {
		removes = append(removes, "deletes the realm's users and groups (names ending in @"+name+" and -"+name+
			") that are no longer in the directory, those managed by pve_user or pve_group included")
	}
	if slices.Contains(flags, "acl") {
		removes = append(removes, "deletes the ACL entries of the realm's users and groups that are no longer in the directory")
	}
	if len(removes) == 0 {
		return
	}
	resp.Diagnostics.AddAttributeWarning(path.Root("sync"), "Realm Sync Removes Users Or Permissions",
		fmt.Sprintf("This apply syncs realm %s, and %s holds %q: the sync %s. Use sync.dry_run = true to see what it would change first.",
			name, source, formatRemoveVanished(flags), strings.Join(removes, "; it ")))
}

// refuseSelfLockout refuses, unless allow_self_lockout is set, a plan
// that deletes or replaces the realm of the provider's own user (plan nil:
// the resource is destroyed; prior nil: it is created), or that sets or
// changes its tfa while the provider logs in with a password. The built-in
// realms are never deleted: destroying their resource only restores PVE's
// settings.
func (r *realmResource) refuseSelfLockout(prior, plan realmValues, replacing bool, resp *resource.ModifyPlanResponse) {
	allowed, _ := prior.boolean("allow_self_lockout")
	if plan != nil {
		allowed, _ = plan.boolean("allow_self_lockout")
	}
	principal := r.client.Principal()
	user, _, isToken := strings.Cut(principal, "!")
	_, ownRealm, ok := wire.SplitUserID(user)
	if allowed || !ok {
		return
	}
	priorName, _ := prior.str("realm")
	planName, _ := plan.str("realm")
	removing := prior != nil && prior.kind()&kindBuiltin == 0 && priorName == ownRealm && (plan == nil || replacing)
	if removing {
		doing := "deletes"
		if plan != nil {
			doing = "replaces (deletes, then creates)"
		}
		resp.Diagnostics.AddError("Realm Change Would Lock The Provider Out",
			fmt.Sprintf("This plan %s realm %s, the realm of the provider's own identity %s: the provider could no longer log in. "+
				"Let the provider use an identity of another realm, or set allow_self_lockout = true on this resource and apply before "+
				"this change.", doing, ownRealm, principal))
		return
	}
	if plan != nil && !isToken && planName == ownRealm && plan.set("tfa") && (prior["tfa"] == nil || !prior["tfa"].Equal(plan["tfa"])) {
		resp.Diagnostics.AddAttributeError(path.Root("tfa"), "Realm Change Would Lock The Provider Out",
			fmt.Sprintf("The provider logs in as %s with a password, and this plan sets a second factor on realm %s: its next login "+
				"would need one. Use an API token for the provider, or set allow_self_lockout = true on this resource.", principal, ownRealm))
	}
}
