package access

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

const realmDescription = "An authentication realm of PVE (PVE calls them domains, in `domains.cfg`): the settings of the built-in " +
	"`pam` and `pve` realms, or an LDAP, Active Directory (`ad`) or OpenID Connect (`openid`) realm.\n\n" +
	"Each type has its own attributes; one that does not apply to the `type` is refused at plan time. Every attribute of the type " +
	"is managed: one left out is removed from PVE, so PVE's default applies.\n\n" +
	"**Built-in realms.** `pam` and `pve` exist on every cluster and cannot be created or deleted. A `pve_realm` for one of them " +
	"adopts it: the first apply sets the realm's `comment`, `default` and `tfa` as configured (the plan warns about settings it " +
	"removes), and destroying the resource removes them again, which restores PVE's defaults (the built-in comment comes back). " +
	"Other realms are never taken over: creating one that exists fails and says to import it.\n\n" +
	"**The default realm.** PVE has one default realm, preselected on the login form: making a realm the default takes the flag from " +
	"the one that had it. Declare `default = true` on one realm only; two `pve_realm` resources of one provider configuration that " +
	"both do are refused at plan time. Resources in different configurations (or under different provider aliases) that both " +
	"declare it take the flag from each other on every apply. A realm that loses the flag shows `default = false` where " +
	"the configuration says so, and no change where it leaves `default` out.\n\n" +
	"**Secrets.** The bind password of an LDAP or AD realm (`password_wo`) and the client key of an OpenID realm (`client_key_wo`) are " +
	"write-only: they never reach the state, the plan or the logs. PVE sends the client key back in plain text when the realm is " +
	"read; the provider drops it. A changed secret is written when its `*_wo_version` changes; a change made outside Terraform " +
	"cannot be seen.\n\n" +
	"**Sync.** With `sync` set, an LDAP or AD realm's users and groups are synced into PVE after the realm is created, and again " +
	"whenever `sync_trigger` changes. Users and groups created by a sync are not managed by Terraform (a group is named " +
	"`NAME-REALM`). `remove_vanished` with `entry` deletes the realm's users and groups that are no longer in the directory, even " +
	"those a `pve_user` or `pve_group` manages, and with `acl` their permissions: the plan warns before such a sync. " +
	"A failed sync fails the apply and shows the end of its log; after an update the next apply syncs again, after a create " +
	"the realm is tainted and the next apply creates it again. Deleting a realm leaves its users in PVE, as PVE does.\n\n" +
	"Changes are checked against what PVE holds right before they are written: a realm changed outside Terraform since the plan " +
	"fails the apply instead of being overwritten.\n\n" +
	"A plan that deletes or replaces the realm of the provider's own identity, or that puts a second factor on it while the " +
	"provider logs in with a password, is refused unless `allow_self_lockout = true`.\n\n" +
	"**Privileges:** `Realm.Allocate` on `/access/realm`; reading needs `Realm.Allocate` or `Sys.Audit` there. A sync needs " +
	"`Realm.AllocateUser` on `/access/realm/REALM` and `User.Modify` on `/access/groups`.\n\n" +
	"**Changes that replace the resource:** `realm`, `type`, `username_claim` (PVE cannot change them). Not managed: the deprecated " +
	"`secure` option (use `mode`) and OpenID's `audiences`, which the API schemas of PVE 8.4 and 9.1 do not have."

func realmSchema(ctx context.Context) schema.Schema {
	attrs := map[string]schema.Attribute{
		"id": schema.StringAttribute{
			MarkdownDescription: "The realm's name, equal to `realm` (also the import id).",
			Computed:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		},
		"realm": schema.StringAttribute{
			MarkdownDescription: "The realm's name: a letter, then letters, digits, `.`, `-` or `_`, at most 32 characters. " +
				"`pam` and `pve` are the built-in realms.",
			Required:      true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators:    []validator.String{fwutil.Format(func(s string) bool { return wire.RealmProblem(s) == "" }, "must be a letter, then letters, digits, '.', '-' or '_', 2 to 32 characters")},
		},
		"type": schema.StringAttribute{
			MarkdownDescription: "`pam`, `pve` (only for the realms of those names), `ldap`, `ad` or `openid`.",
			Required:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators:          []validator.String{stringvalidator.OneOf("pam", "pve", "ldap", "ad", "openid")},
		},
		"comment": schema.StringAttribute{
			MarkdownDescription: "A comment, shown on the login form. For `pam` and `pve` unset means PVE's built-in comment.",
			Optional:            true,
			Validators:          []validator.String{realmMaxLen(4096), realmNoLineBreak{}},
		},
		"default": schema.BoolAttribute{
			MarkdownDescription: "Whether this is the default realm of the login form. Setting it takes the flag from the realm " +
				"that has it (see above).",
			Optional: true,
		},
		"tfa": schema.SingleNestedAttribute{
			MarkdownDescription: "A second factor every user of the realm must use (PVE option `tfa`); not for `openid` realms.",
			Optional:            true,
			Attributes: map[string]schema.Attribute{
				"type": schema.StringAttribute{MarkdownDescription: "`oath` (TOTP) or `yubico` (Yubico OTP).", Required: true,
					Validators: []validator.String{stringvalidator.OneOf("oath", "yubico")}},
				"digits": schema.Int64Attribute{MarkdownDescription: "TOTP digits, 6 to 8 (`oath`). Unset: PVE's default, 6.", Optional: true,
					Validators: []validator.Int64{int64validator.Between(6, 8)}},
				"step": schema.Int64Attribute{MarkdownDescription: "TOTP time step in seconds, at least 10 (`oath`). Unset: PVE's default, 30.", Optional: true,
					Validators: []validator.Int64{int64validator.AtLeast(10)}},
				"id": schema.StringAttribute{MarkdownDescription: "Yubico API id (`yubico`).", Optional: true,
					Validators: []validator.String{tfaValue{}}},
				"key": schema.StringAttribute{MarkdownDescription: "Yubico API key (`yubico`). Sensitive: PVE shows it to anyone who may read the realm, so it is in the state.",
					Optional: true, Sensitive: true, Validators: []validator.String{tfaValue{}}},
				"url": schema.StringAttribute{MarkdownDescription: "Yubico API URL (`yubico`).", Optional: true,
					Validators: []validator.String{tfaValue{}}},
			},
		},
		"password_wo": schema.StringAttribute{
			MarkdownDescription: "The password of `bind_dn` (ldap and ad realms). Write-only: never in state, plan or logs. " +
				"Written at create, and on update when `password_wo_version` changes.",
			Optional:   true,
			Sensitive:  true,
			WriteOnly:  true,
			Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
		},
		"password_wo_version": schema.Int64Attribute{
			MarkdownDescription: "Change it to write `password_wo` again; required with `password_wo`. Changed while `password_wo` is " +
				"unset, it removes the stored bind password.",
			Optional: true,
		},
		"client_key_wo": schema.StringAttribute{
			MarkdownDescription: "The client secret of an openid realm (PVE option `client-key`). Write-only: never in state, plan or logs. " +
				"Written at create, and on update when `client_key_wo_version` changes.",
			Optional:   true,
			Sensitive:  true,
			WriteOnly:  true,
			Validators: []validator.String{realmMaxLen(256), realmNoLineBreak{}},
		},
		"client_key_wo_version": schema.Int64Attribute{
			MarkdownDescription: "Change it to write `client_key_wo` again; required with `client_key_wo`. Changed while `client_key_wo` " +
				"is unset, it removes the client key from PVE.",
			Optional: true,
		},
		"sync_defaults": schema.SingleNestedAttribute{
			MarkdownDescription: "The default options of a sync of this realm (PVE option `sync-defaults-options`; ldap and ad realms), " +
				"used by syncs started in PVE and by `sync` where it leaves an option out. Set at least one attribute.",
			Optional:   true,
			Attributes: syncOptionAttributes(false),
		},
		"sync": schema.SingleNestedAttribute{
			MarkdownDescription: "Sync the realm's users and groups from the directory after the realm is created, and whenever " +
				"`sync_trigger` changes (ldap and ad realms). Options left out come from `sync_defaults`, then PVE's defaults; " +
				"the scope must be given in one of them. Changing these options does not start a sync; changing `sync_trigger` does. " +
				"Setting `sync` on an existing realm syncs once.",
			Optional:   true,
			Attributes: syncOptionAttributes(true),
		},
		"sync_trigger": schema.StringAttribute{
			MarkdownDescription: "Any value: changing it syncs the realm again (needs `sync`). For example a date, or a value from `time_rotating`.",
			Optional:            true,
		},
		"allow_self_lockout": schema.BoolAttribute{
			MarkdownDescription: "Allow a plan that cuts the provider off from PVE: deleting or replacing the realm of the provider's own " +
				"user, or, when the provider logs in with a password, setting or changing `tfa` on that realm (the login would then need " +
				"a second factor). Set it and apply before such a change; to destroy the resource, set it and apply first.",
			Optional: true,
		},
		"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true}),
	}
	for _, p := range realmProps {
		attrs[p.attr] = propAttribute(p)
	}
	return schema.Schema{MarkdownDescription: realmDescription, Attributes: attrs}
}

// syncOptionAttributes are the options of a sync, for sync_defaults and
// (with dry_run) sync.
func syncOptionAttributes(run bool) map[string]schema.Attribute {
	attrs := map[string]schema.Attribute{
		"scope": schema.StringAttribute{MarkdownDescription: "What to sync: `users`, `groups` or `both`.", Optional: true,
			Validators: []validator.String{stringvalidator.OneOf("users", "groups", "both")}},
		"remove_vanished": schema.SetAttribute{
			MarkdownDescription: "What to remove when it is no longer in the directory: `entry` (the realm's users and groups), " +
				"`acl` (their ACL entries), `properties` (user settings the directory does not set). Empty: nothing (PVE's `none`, its default).",
			Optional: true, ElementType: types.StringType,
			Validators: []validator.Set{setvalidator.ValueStringsAre(stringvalidator.OneOf(removeVanishedOrder...))}},
		"enable_new": schema.BoolAttribute{MarkdownDescription: "Whether new users are enabled. Unset: PVE's default, true.", Optional: true},
	}
	if run {
		attrs["dry_run"] = schema.BoolAttribute{
			MarkdownDescription: "Only show what a sync would change: the sync's log is shown as a warning and nothing changes in PVE.",
			Optional:            true}
	}
	return attrs
}

// realmNoLineBreak refuses a value with a line break, which PVE refuses
// in any domains.cfg option (pve-common src/PVE/SectionConfig.pm
// check_value).
type realmNoLineBreak struct{}

func (realmNoLineBreak) Description(context.Context) string { return "must not contain a line break" }

func (v realmNoLineBreak) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (realmNoLineBreak) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if strings.ContainsAny(req.ConfigValue.ValueString(), "\r\n") {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Realm Setting", req.Path.String()+" must not contain a line break: PVE refuses it.")
	}
}

// tfaValue refuses what the tfa property string cannot carry.
type tfaValue struct{}

func (tfaValue) Description(context.Context) string {
	return "must not be empty or contain ',' or a line break"
}

func (v tfaValue) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v tfaValue) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	s := req.ConfigValue.ValueString()
	if s == "" || strings.ContainsAny(s, ",\r\n") {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Realm Setting", req.Path.String()+" "+v.Description(ctx)+
			": it is written into PVE's tfa property string.")
	}
}
