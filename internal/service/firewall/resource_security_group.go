package firewall

import (
	"context"
	"fmt"
	"regexp"
	"strings"

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
	_ resource.Resource                   = (*securityGroupResource)(nil)
	_ resource.ResourceWithConfigure      = (*securityGroupResource)(nil)
	_ resource.ResourceWithImportState    = (*securityGroupResource)(nil)
	_ resource.ResourceWithValidateConfig = (*securityGroupResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*securityGroupResource)(nil)
)

// NewSecurityGroupResource is the pve_firewall_security_group constructor
// registered with the provider.
func NewSecurityGroupResource() resource.Resource {
	return fwutil.WithIdentity(&securityGroupResource{}, securityGroupIdentity)
}

// securityGroupIdentity is a security group's key, its name (the import
// id). A group is renamed in place, so its identity follows a rename.
var securityGroupIdentity = fwutil.Identity{
	Attributes: []fwutil.IdentityAttribute{{
		Name: "name", Description: "The security group's name, as `name`.",
	}},
	Mutable: true,
}

type securityGroupResource struct {
	client *pveapi.Client
}

type securityGroupModel struct {
	ID      types.String `tfsdk:"id"`
	Name    types.String `tfsdk:"name"`
	Comment types.String `tfsdk:"comment"`
	Ref     types.String `tfsdk:"ref"`
}

// groupListDigestKey is the private state key of the group list's digest,
// which a rename is checked against.
const groupListDigestKey = "group_list_digest"

func (r *securityGroupResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_firewall_security_group"
}

func (r *securityGroupResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A security group of the cluster's firewall: a named rule list that firewalls apply with a rule of " +
			"`type = \"group\"`. Its rules are a `pve_firewall_rules` with `security_group` set.\n\n" +
			"Privileges: `Sys.Modify` on `/` (reading: `Sys.Audit`).",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The group's name.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				MarkdownDescription: "The group's name: a lowercase letter, then lowercase letters, digits, `-` and `_`, 2 to 18 characters " +
					"(PVE stores group names in lowercase). Changing it renames the group in place: PVE moves its rules and rewrites every rule " +
					"in every firewall that uses the group.",
				Required: true,
			},
			"comment": schema.StringAttribute{
				MarkdownDescription: "Comment shown in PVE. One line: the firewall file is line based.",
				Optional:            true,
				Validators: []validator.String{
					stringvalidator.LengthAtLeast(1),
					stringvalidator.RegexMatches(regexp.MustCompile(`^[^\r\n]*$`), "must be one line"),
				},
			},
			"ref": schema.StringAttribute{
				MarkdownDescription: "What a rule writes to use the group: `action` of a rule with `type = \"group\"`. " +
					"Known once the group exists, so a rule that refers to it is created after the group.",
				Computed: true,
			},
		},
	}
}

func (r *securityGroupResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		r.client = pd.Client
	}
}

func (r *securityGroupResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var name types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("name"), &name)...)
	if name.IsNull() || name.IsUnknown() {
		return
	}
	if err := wire.ValidateFirewallName(wire.FirewallGroupName, name.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Invalid Security Group Name", err.Error())
	} else if lower := strings.ToLower(name.ValueString()); lower != name.ValueString() {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Invalid Security Group Name", fmt.Sprintf(
			"PVE stores security group names in lowercase, so %q would come back as %q: write %q.", name.ValueString(), lower, lower))
	}
}

// ModifyPlan keeps ref known while the name stays, and unknown when it
// changes, so rules that use the group follow a rename in the same apply.
func (r *securityGroupResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || req.State.Raw.IsNull() {
		return
	}
	var plan, state securityGroupModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if plan.Name.Equal(state.Name) {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("ref"), state.Ref)...)
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("id"), state.ID)...)
	} else {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("id"), types.StringUnknown())...)
	}
}

func (r *securityGroupResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan securityGroupModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := r.client.CreateSecurityGroup(ctx, plan.Name.ValueString(), plan.Comment.ValueString()); err != nil {
		fwutil.AddAttributeAPIError(&resp.Diagnostics, path.Root("name"), "Unable To Create Security Group", err)
		return
	}
	if r.readBack(ctx, &plan, resp.Private, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	}
}

// find reads the group list and the group in it.
func (r *securityGroupResource) find(ctx context.Context, name string) (group *pveapi.SecurityGroup, digest string, err error) {
	groups, err := r.client.SecurityGroups(ctx)
	if err != nil {
		return nil, "", err
	}
	for i := range groups {
		digest = groups[i].Digest
		if strings.EqualFold(groups[i].Group, name) {
			group = &groups[i]
		}
	}
	return group, digest, nil
}

func (r *securityGroupResource) readBack(ctx context.Context, m *securityGroupModel, private privateSetter, diags *diag.Diagnostics) bool {
	group, digest, err := r.find(ctx, m.Name.ValueString())
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read Security Group After Writing It", err)
		return false
	}
	if group == nil {
		fwutil.AddVanishedAfterWrite(diags, "Security Group", "Security group "+m.Name.ValueString())
		return false
	}
	m.fromAPI(group)
	diags.Append(private.SetKey(ctx, groupListDigestKey, []byte(`"`+digest+`"`))...)
	return true
}

func (m *securityGroupModel) fromAPI(group *pveapi.SecurityGroup) {
	// The configured name, which differs from PVE's at most in case
	// (refused at plan time), stays as written.
	if !strings.EqualFold(m.Name.ValueString(), group.Group) {
		m.Name = types.StringValue(group.Group)
	}
	m.ID = m.Name
	m.Ref = m.Name
	// PVE trims the comment; the configured spelling stays when it is the
	// same text.
	switch {
	case group.Comment == "":
		m.Comment = types.StringNull()
	case wire.FirewallComment(m.Comment.ValueString()) != group.Comment:
		m.Comment = types.StringValue(group.Comment)
	}
}

func (r *securityGroupResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state securityGroupModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	group, digest, err := r.find(ctx, state.Name.ValueString())
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read Security Group", err)
		return
	}
	if group == nil {
		resp.State.RemoveResource(ctx)
		return
	}
	state.fromAPI(group)
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, groupListDigestKey, []byte(`"`+digest+`"`))...)
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

func (r *securityGroupResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state securityGroupModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	digest := ""
	if raw, d := req.Private.GetKey(ctx, groupListDigestKey); !d.HasError() && len(raw) > 2 {
		digest = strings.Trim(string(raw), `"`)
	}
	comment := plan.Comment.ValueString() // "" clears it
	err := r.client.UpdateSecurityGroup(ctx, state.Name.ValueString(), plan.Name.ValueString(), &comment, digest)
	if pveapi.IsDigestMismatch(err) {
		// The group list changed (another group was added or renamed);
		// a rename names its group, so it cannot hit the wrong one.
		err = r.client.UpdateSecurityGroup(ctx, state.Name.ValueString(), plan.Name.ValueString(), &comment, "")
	}
	if err != nil {
		fwutil.AddAttributeAPIError(&resp.Diagnostics, path.Root("name"), "Unable To Update Security Group", err)
		return
	}
	if r.readBack(ctx, &plan, resp.Private, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	}
}

func (r *securityGroupResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state securityGroupModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	err := r.client.DeleteSecurityGroup(ctx, state.Name.ValueString())
	if err != nil && !pveapi.IsNoSuchSecurityGroup(err) {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Delete Security Group", err)
		if strings.Contains(err.Error(), "is not empty") {
			resp.Diagnostics.AddError("Security Group Still Has Rules", fmt.Sprintf(
				"PVE deletes only an empty security group. Manage its rules with pve_firewall_rules (security_group = %q), "+
					"which Terraform destroys first, or delete them in PVE.", state.Name.ValueString()))
		}
	}
}

func (r *securityGroupResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if err := wire.ValidateFirewallName(wire.FirewallGroupName, req.ID); err != nil {
		resp.Diagnostics.AddError("Invalid Import ID", "Import pve_firewall_security_group by its name: "+err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), strings.ToLower(req.ID))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), strings.ToLower(req.ID))...)
}
