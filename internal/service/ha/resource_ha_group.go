package ha

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
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
	_ resource.Resource                = (*groupResource)(nil)
	_ resource.ResourceWithConfigure   = (*groupResource)(nil)
	_ resource.ResourceWithImportState = (*groupResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*groupResource)(nil)
)

// Diagnostic summaries of the PVE 8 / PVE 9 split, for tests.
const (
	GroupsReplacedSummary   = "HA Groups Replaced By HA Rules"
	GroupMigrationSummary   = "PVE Will Migrate This HA Group To A Rule"
	GroupMigratedSummary    = "HA Group Migrated To A Rule By PVE"
	groupWriteRetries       = 5
	groupRuleSuggestionText = "Use pve_ha_rule with type = \"node-affinity\" instead: its nodes take the same node = priority map, " +
		"strict = true stands for restricted, and the HA resource's own failback setting replaces nofailback."
)

// NewGroupResource is the pve_ha_group constructor registered with the
// provider.
func NewGroupResource() resource.Resource {
	return fwutil.WithIdentity(&groupResource{}, groupIdentity)
}

// groupIdentity is an HA group's key, its group id (the import id).
var groupIdentity = fwutil.Identity{Attributes: []fwutil.IdentityAttribute{{
	Name: "group", Description: "The group's id, as `group`.",
}}}

type groupResource struct {
	client *pveapi.Client
}

func (r *groupResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_ha_group"
}

// groupNodesAttribute is the node -> priority map of groups and rules.
func groupNodesAttribute(description string, required bool) schema.MapAttribute {
	return schema.MapAttribute{
		MarkdownDescription: description,
		ElementType:         types.Int64Type,
		Required:            required,
		Optional:            !required,
		Validators: []validator.Map{
			mapvalidator.SizeAtLeast(1),
			mapvalidator.KeysAre(fwutil.Format(wire.IsHANodeName,
				"must be a node name: letters, digits and '-', starting and ending with a letter or digit")),
			mapvalidator.ValueInt64sAre(int64validator.AtLeast(0)),
		},
	}
}

func (r *groupResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "An HA group of PVE 8: the nodes, with priorities, on which the HA resources bound to the group run. " +
			"HA resources join a group through `pve_ha_resource`'s `group`." +
			"\n\n**PVE 9** replaced HA groups with HA rules (`pve_ha_rule`, type `node-affinity`). Once every node runs PVE 9, " +
			"PVE's HA manager migrates the groups itself: each group that HA resources use becomes the rule `ha-group-NAME`, " +
			"the group's `nofailback` moves to those resources' `failback`, and all groups are deleted. From then on PVE refuses " +
			"groups and this resource is refused at plan time; import the migrated rule into a `pve_ha_rule` instead. " +
			"On a PVE 9 cluster whose groups are not migrated yet, groups still work and the plan warns of the migration ahead." +
			"\n\n**Changes that replace the group:** `group`.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The group's id, equal to `group`.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"group": schema.StringAttribute{
				MarkdownDescription: "The group's id: a letter, then letters, digits, `-` or `_` (at least two characters).",
				Required:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators: []validator.String{fwutil.Format(wire.IsHAConfigID,
					"must start with a letter, then letters, digits, '-' or '_', at least two characters")},
			},
			"nodes": groupNodesAttribute("The group's nodes, each with its priority: `{ pve1 = 2, pve2 = 1 }`. "+
				"Resources run on the online nodes of the highest priority; 0 is the lowest priority one can give, and what PVE assumes "+
				"for a node written without one. The order of nodes does not matter. Without `restricted`, nodes not listed are used "+
				"when no listed node is online.", true),
			"restricted": schema.BoolAttribute{
				MarkdownDescription: "Resources of a restricted group run only on the group's nodes, and stop when none of them is online. " +
					"Unset, PVE treats the group as unrestricted.",
				Optional: true,
			},
			"nofailback": schema.BoolAttribute{
				MarkdownDescription: "Do not move resources back to a node of higher priority when it comes online again. Unset, PVE fails back.",
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

func (r *groupResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		r.client = pd.Client
	}
}

// ModifyPlan refuses groups where PVE has replaced them with rules, and
// warns on a PVE 9 cluster whose groups are still waiting to be migrated.
func (r *groupResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if r.client == nil || req.Plan.Raw.IsNull() {
		return
	}
	release, err := fwutil.PVERelease(ctx, r.client)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read The PVE Release", err)
		return
	}
	if !release.AtLeast(wire.PVE90) {
		return
	}
	migrated, err := r.client.HAGroupsMigrated(ctx)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read The HA Groups", err)
		return
	}
	var group types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("group"), &group)...)
	name := group.ValueString()
	if migrated {
		resp.Diagnostics.AddAttributeError(path.Root("group"), GroupsReplacedSummary, fmt.Sprintf(
			"This cluster runs PVE %s, whose HA manager has migrated the HA groups to HA rules: PVE refuses HA groups from then on. %s "+
				"PVE migrated each group that HA resources used to a node-affinity rule named ha-group-GROUP; to manage it, import it: "+
				"terraform import pve_ha_rule.NAME ha-group-%s.", release, groupRuleSuggestionText, name))
		return
	}
	if req.State.Raw.IsNull() {
		resp.Diagnostics.AddAttributeWarning(path.Root("group"), GroupMigrationSummary, fmt.Sprintf(
			"This cluster runs PVE %s but its HA manager has not migrated the HA groups to HA rules yet. It does so on its own once "+
				"every node runs PVE 9 with an active HA service: a group that HA resources use becomes the node-affinity rule "+
				"ha-group-%s, the group's nofailback moves to those resources' failback, and all groups are deleted. "+
				"This resource then finds its group gone. %s", release, name, groupRuleSuggestionText))
	}
}

func (r *groupResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan groupModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := plan.Group.ValueString()
	cfg, diags := groupToCreate(ctx, plan)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := r.client.CreateHAGroup(ctx, id, cfg); err != nil {
		fwutil.AddAttributeAPIError(&resp.Diagnostics, path.Root("group"), "Unable To Create HA Group", err)
		return
	}
	if r.readBack(ctx, id, &plan, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	}
}

// readBack reads the group after a write, so state holds what PVE keeps.
func (r *groupResource) readBack(ctx context.Context, id string, m *groupModel, diags *diag.Diagnostics) bool {
	g, found, err := r.client.GetHAGroup(ctx, id)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read HA Group After Writing It", err)
		return false
	}
	if !found {
		fwutil.AddVanishedAfterWrite(diags, "HA Group", "HA group "+id)
		return false
	}
	diags.Append(m.fromAPI(g)...)
	return !diags.HasError()
}

func (r *groupResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state groupModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := state.Group.ValueString()
	g, found, err := r.client.GetHAGroup(ctx, id)
	if pveapi.IsHAGroupsMigrated(err) {
		resp.Diagnostics.AddWarning(GroupMigratedSummary, fmt.Sprintf(
			"PVE's HA manager has migrated the HA groups to HA rules and deleted them, HA group %s included; "+
				"if HA resources used it, its settings live on in the node-affinity rule ha-group-%s. "+
				"Terraform forgets the group. %s Import the migrated rule with: terraform import pve_ha_rule.NAME ha-group-%s.",
			id, id, groupRuleSuggestionText, id))
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read HA Group", err)
		return
	}
	if !found {
		resp.State.RemoveResource(ctx)
		return
	}
	resp.Diagnostics.Append(state.fromAPI(g)...)
	if !resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
	}
}

// Update writes the changes with the digest of a fresh read, after
// checking that the group is still what the state says: the digest covers
// all groups (groups.cfg), so the one from the refresh would also refuse
// a change other groups of the same apply made meanwhile.
func (r *groupResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state groupModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := plan.Group.ValueString()
	cfg, needed, diags := groupToUpdate(ctx, state, plan)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	for attempt := 1; needed; attempt++ {
		g, found, err := r.client.GetHAGroup(ctx, id)
		if err != nil || !found {
			if err == nil {
				err = fmt.Errorf("no such ha group '%s'", id)
			}
			fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read HA Group Before Updating It", err)
			return
		}
		var live groupModel
		resp.Diagnostics.Append(live.fromAPI(g)...)
		if resp.Diagnostics.HasError() {
			return
		}
		if !groupSameAsState(live, state) {
			resp.Diagnostics.AddError("HA Group Changed Outside Terraform",
				"HA group "+id+" changed in PVE since Terraform last read it. Run plan again to see the change, then apply.")
			return
		}
		cfg.Digest = g.Digest
		err = r.client.UpdateHAGroup(ctx, id, cfg)
		if err == nil {
			break
		}
		if !pveapi.IsHAConfigModified(err) || attempt >= groupWriteRetries {
			fwutil.AddAPIError(&resp.Diagnostics, "Unable To Update HA Group", err)
			return
		}
	}
	if r.readBack(ctx, id, &plan, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	}
}

func (r *groupResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state groupModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// PVE deletes a missing group without complaint; after PVE 9's
	// migration the group is gone as well.
	if err := r.client.DeleteHAGroup(ctx, state.Group.ValueString()); err != nil && !pveapi.IsHAGroupsMigrated(err) {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Delete HA Group", err)
	}
}

func (r *groupResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if !wire.IsHAConfigID(req.ID) {
		resp.Diagnostics.AddError("Invalid Import ID",
			"Import pve_ha_group by its group id (for example \"prod\"), got \""+req.ID+"\".")
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("group"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
}
