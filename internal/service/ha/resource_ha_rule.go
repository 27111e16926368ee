package ha

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

var (
	_ resource.Resource                   = (*ruleResource)(nil)
	_ resource.ResourceWithConfigure      = (*ruleResource)(nil)
	_ resource.ResourceWithImportState    = (*ruleResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*ruleResource)(nil)
	_ resource.ResourceWithValidateConfig = (*ruleResource)(nil)
)

// Diagnostic summaries, for tests.
const (
	RuleNeedsPVE9Summary         = "HA Rules Need PVE 9"
	RuleGroupsNotMigratedSummary = "HA Groups Not Migrated Yet"
	RuleNotInEffectSummary       = "HA Rule Not In Effect"
)

// NewRuleResource is the pve_ha_rule constructor registered with the
// provider.
func NewRuleResource() resource.Resource {
	return fwutil.WithIdentity(&ruleResource{}, ruleIdentity)
}

// ruleIdentity is an HA rule's key, its rule id (the import id).
var ruleIdentity = fwutil.Identity{Attributes: []fwutil.IdentityAttribute{{
	Name: "rule", Description: "The rule's id, as `rule`.",
}}}

type ruleResource struct {
	client *pveapi.Client
}

func (r *ruleResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_ha_rule"
}

func (r *ruleResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "An HA rule of PVE 9: where HA resources may run (`node-affinity`) or whether they run together or apart " +
			"(`resource-affinity`). The resources must be HA resources already; name them by `pve_ha_resource`'s `sid` so Terraform " +
			"creates them first. PVE refuses a rule that contradicts the others (a resource in two node-affinity rules, the same " +
			"resources kept together and apart, ...); a rule that other changes made contradictory later stays, but PVE's HA manager " +
			"ignores it, and the plan warns." +
			"\n\nPVE 8 has no HA rules (use `pve_ha_group`), and PVE 9 accepts rules only once its HA manager has migrated the " +
			"HA groups of an upgraded cluster; the plan says so in both cases." +
			"\n\n**Changes that replace the rule:** `rule`, `type`.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The rule's id, equal to `rule`.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"rule": schema.StringAttribute{
				MarkdownDescription: "The rule's id: a letter, then letters, digits, `-` or `_` (at least two characters). " +
					"Rules PVE made from HA groups are named `ha-group-GROUP`.",
				Required:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators: []validator.String{fwutil.Format(wire.IsHAConfigID,
					"must start with a letter, then letters, digits, '-' or '_', at least two characters")},
			},
			"type": schema.StringAttribute{
				MarkdownDescription: "`node-affinity` (the resources prefer or are bound to `nodes`) or `resource-affinity` " +
					"(the resources are kept together or apart, see `affinity`).",
				Required:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{stringvalidator.OneOf(wire.HARuleNodeAffinity, wire.HARuleResourceAffinity)},
			},
			"resources": schema.SetAttribute{
				MarkdownDescription: "The HA resources the rule applies to, as HA resource ids (`vm:100`, `ct:101`): " +
					"`[pve_ha_resource.web.sid, pve_ha_resource.db.sid]`. A resource-affinity rule needs at least two.",
				ElementType: types.StringType,
				Required:    true,
				Validators: []validator.Set{
					setvalidator.SizeAtLeast(1),
					setvalidator.ValueStringsAre(fwutil.Format(wire.IsHARuleResource,
						"must be an HA resource id such as \"vm:100\" or \"ct:101\" (pve_ha_resource's sid)")),
				},
			},
			"nodes": groupNodesAttribute("`node-affinity` only, and required there: the nodes, each with its priority: "+
				"`{ pve1 = 2, pve2 = 1 }`. Resources run on the online nodes of the highest priority; 0 is the lowest priority one can give, "+
				"and what PVE assumes for a node written without one. Without `strict`, nodes not listed rank below every listed node.", false),
			"strict": schema.BoolAttribute{
				MarkdownDescription: "`node-affinity` only: the resources run only on `nodes` and stop when none of them is online. " +
					"Unset, PVE treats the rule as non-strict: the resources prefer `nodes` and may run elsewhere.",
				Optional: true,
			},
			"affinity": schema.StringAttribute{
				MarkdownDescription: "`resource-affinity` only, and required there: `positive` keeps the resources on the same node, " +
					"`negative` on different nodes.",
				Optional:   true,
				Validators: []validator.String{stringvalidator.OneOf(wire.HARuleAffinities...)},
			},
			"disable": schema.BoolAttribute{
				MarkdownDescription: "Keep the rule but have PVE's HA manager ignore it. Unset, the rule is in effect.",
				Optional:            true,
			},
			"comment": schema.StringAttribute{
				MarkdownDescription: "Free-text description.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.LengthBetween(1, 4096)},
			},
		},
	}
}

func (r *ruleResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		r.client = pd.Client
	}
}

// ValidateConfig refuses the attributes the rule's type does not have
// (PVE: "unexpected property"), the ones it requires but lacks, and a
// resource-affinity rule of fewer than two resources (PVE: "rule is
// ineffective as there are less than two resources").
func (r *ruleResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m ruleModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || m.Type.IsUnknown() || m.Type.IsNull() {
		return
	}
	typ := m.Type.ValueString()
	notFor := func(attr string, v interface{ IsNull() bool }) {
		if !v.IsNull() {
			resp.Diagnostics.AddAttributeError(path.Root(attr), "Attribute Not For This Rule Type",
				fmt.Sprintf("Attribute %s does not apply to a %s rule; remove it.", attr, typ))
		}
	}
	required := func(attr string, v interface{ IsNull() bool }) {
		if v.IsNull() {
			resp.Diagnostics.AddAttributeError(path.Root(attr), "Missing Attribute For This Rule Type",
				fmt.Sprintf("A %s rule requires attribute %s.", typ, attr))
		}
	}
	switch typ {
	case wire.HARuleNodeAffinity:
		notFor("affinity", m.Affinity)
		required("nodes", m.Nodes)
	case wire.HARuleResourceAffinity:
		notFor("nodes", m.Nodes)
		notFor("strict", m.Strict)
		required("affinity", m.Affinity)
		if !m.Resources.IsUnknown() && !m.Resources.IsNull() && len(m.Resources.Elements()) < 2 {
			resp.Diagnostics.AddAttributeError(path.Root("resources"), "Too Few Resources",
				"A resource-affinity rule needs at least two resources: PVE refuses one with fewer as ineffective.")
		}
	}
}

// ModifyPlan refuses a rule PVE would refuse for its release: PVE 8 has
// no rules, and PVE 9 takes none until the HA groups are migrated.
func (r *ruleResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if r.client == nil || req.Plan.Raw.IsNull() {
		return
	}
	if !req.State.Raw.IsNull() && req.Plan.Raw.Equal(req.State.Raw) {
		return
	}
	release, err := fwutil.PVERelease(ctx, r.client)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read The PVE Release", err)
		return
	}
	if !release.AtLeast(wire.PVE90) {
		resp.Diagnostics.AddAttributeError(path.Root("type"), RuleNeedsPVE9Summary, fmt.Sprintf(
			"This cluster runs PVE %s, which has no HA rules: they came with PVE 9.0, where they replace HA groups. "+
				"On PVE 8 use pve_ha_group for node preferences (nodes with priorities, restricted, nofailback) and bind "+
				"HA resources to it with pve_ha_resource's group; PVE 8 has no resource affinity. After the upgrade to PVE 9, "+
				"PVE migrates the groups in use to node-affinity rules named ha-group-GROUP.", release))
		return
	}
	migrated, err := r.client.HAGroupsMigrated(ctx)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read The HA Groups", err)
		return
	}
	if !migrated {
		resp.Diagnostics.AddAttributeError(path.Root("rule"), RuleGroupsNotMigratedSummary, ruleGroupsNotMigratedDetail)
	}
}

// ruleGroupsNotMigratedDetail explains PVE 9's refusal of rules while HA
// groups remain.
const ruleGroupsNotMigratedDetail = "This cluster still has HA groups from PVE 8, and PVE refuses new or changed HA rules until its HA manager has " +
	"migrated them to rules. The manager does so on its own once every node runs PVE 9 with an active HA service " +
	"(see ha-manager status and the HA manager's log); groups no HA resource uses are simply deleted then. " +
	"Apply again after the migration, or remove the remaining HA groups (pve_ha_group) first."

func (r *ruleResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan ruleModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := plan.Rule.ValueString()
	cfg, diags := ruleToCreate(ctx, plan)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := r.client.CreateHARule(ctx, id, cfg); err != nil {
		if pveapi.IsHAGroupsNotMigrated(err) {
			resp.Diagnostics.AddAttributeError(path.Root("rule"), RuleGroupsNotMigratedSummary, ruleGroupsNotMigratedDetail)
			return
		}
		fwutil.AddAttributeAPIError(&resp.Diagnostics, path.Root("rule"), "Unable To Create HA Rule", err)
		return
	}
	if r.readBack(ctx, id, &plan, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	}
}

// readBack reads the rule after a write, so state holds what PVE keeps.
func (r *ruleResource) readBack(ctx context.Context, id string, m *ruleModel, diags *diag.Diagnostics) bool {
	rule, found, err := r.client.GetHARule(ctx, id)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read HA Rule After Writing It", err)
		return false
	}
	if !found {
		fwutil.AddVanishedAfterWrite(diags, "HA Rule", "HA rule "+id)
		return false
	}
	diags.Append(m.fromAPI(rule)...)
	return !diags.HasError()
}

func (r *ruleResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state ruleModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := state.Rule.ValueString()
	rule, found, err := r.client.GetHARule(ctx, id)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read HA Rule", err)
		return
	}
	if !found {
		resp.State.RemoveResource(ctx)
		return
	}
	if len(rule.Errors) > 0 && (rule.Disable == nil || !bool(*rule.Disable)) {
		resp.Diagnostics.AddWarning(RuleNotInEffectSummary, fmt.Sprintf(
			"PVE's HA manager ignores HA rule %s because it contradicts other rules:\n%s\nChange this rule or the others.",
			id, ruleErrorsText(rule.Errors)))
	}
	resp.Diagnostics.Append(state.fromAPI(rule)...)
	if !resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
	}
}

// Update writes the changes with the digest of a fresh read, after
// checking that the rule is still what the state says: the digest covers
// all rules (rules.cfg), so the one from the refresh would also refuse a
// change other rules of the same apply made meanwhile.
func (r *ruleResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state ruleModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := plan.Rule.ValueString()
	cfg, needed, diags := ruleToUpdate(ctx, state, plan)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	for attempt := 1; needed; attempt++ {
		rule, found, err := r.client.GetHARule(ctx, id)
		if err != nil || !found {
			if err == nil {
				err = fmt.Errorf("no such ha rule '%s'", id)
			}
			fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read HA Rule Before Updating It", err)
			return
		}
		live := ruleModel{Disable: state.Disable}
		resp.Diagnostics.Append(live.fromAPI(rule)...)
		if resp.Diagnostics.HasError() {
			return
		}
		if !ruleSameAsState(live, state) {
			resp.Diagnostics.AddError("HA Rule Changed Outside Terraform",
				"HA rule "+id+" changed in PVE since Terraform last read it. Run plan again to see the change, then apply.")
			return
		}
		cfg.Digest = rule.Digest
		err = r.client.UpdateHARule(ctx, id, cfg)
		if err == nil {
			break
		}
		if !pveapi.IsHAConfigModified(err) || attempt >= groupWriteRetries {
			fwutil.AddAPIError(&resp.Diagnostics, "Unable To Update HA Rule", err)
			return
		}
	}
	if r.readBack(ctx, id, &plan, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	}
}

func (r *ruleResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state ruleModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// PVE deletes a missing rule without complaint.
	if err := r.client.DeleteHARule(ctx, state.Rule.ValueString()); err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Delete HA Rule", err)
	}
}

func (r *ruleResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if !wire.IsHAConfigID(req.ID) {
		resp.Diagnostics.AddError("Invalid Import ID",
			"Import pve_ha_rule by its rule id (for example \"web-on-fast-nodes\" or \"ha-group-prod\"), got \""+req.ID+"\".")
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("rule"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
}
