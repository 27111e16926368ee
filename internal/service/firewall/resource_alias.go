package firewall

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

var (
	_ resource.Resource                = (*aliasResource)(nil)
	_ resource.ResourceWithConfigure   = (*aliasResource)(nil)
	_ resource.ResourceWithImportState = (*aliasResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*aliasResource)(nil)
)

// NewAliasResource is the pve_firewall_alias constructor registered with
// the provider.
func NewAliasResource() resource.Resource {
	return fwutil.WithIdentity(&aliasResource{}, scopedNameIdentity)
}

// scopedNameIdentity is the key of an object named within a firewall (an
// alias, an IP set): the guest whose firewall holds it, if any, and its
// name, the parts of its import id cluster/NAME or guest/VMID/NAME. Both
// are renamed in place, so their identity follows a rename.
var scopedNameIdentity = fwutil.Identity{
	Mutable: true,
	Attributes: []fwutil.IdentityAttribute{
		{Name: "vmid", Int: true, Optional: true, Description: "The VMID of the guest whose firewall holds the object, as `vmid`; absent for the cluster's firewall."},
		{Name: "name", Description: "The object's name, as `name`."},
	},
	ImportID: func(v map[string]string) string {
		if v["vmid"] == "" {
			return "cluster/" + v["name"]
		}
		return "guest/" + v["vmid"] + "/" + v["name"]
	},
}

type aliasResource struct {
	client *pveapi.Client
}

func (r *aliasResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_firewall_alias"
}

func (r *aliasResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs := scopeAttributes("the alias", false)
	attrs["id"] = schema.StringAttribute{
		MarkdownDescription: "The alias's import id: `cluster/NAME` or `guest/VMID/NAME`.",
		Computed:            true,
	}
	attrs["ref"] = refAttribute("the alias", "dc/office")
	attrs["name"] = schema.StringAttribute{
		MarkdownDescription: "The alias's name: 2 to 64 letters, digits, `-` and `_`, starting with a letter. " +
			"PVE matches alias names without regard to case and keeps the spelling given. " +
			"Changing it renames the alias in place; rules and IP sets that name the alias are not rewritten by PVE.",
		Required:   true,
		Validators: []validator.String{nameValidator(validateAliasName)},
	}
	attrs["cidr"] = schema.StringAttribute{
		MarkdownDescription: "The IPv4 or IPv6 address or network (CIDR notation) the alias stands for, e.g. `192.0.2.10` or `10.0.0.0/24`. " +
			"PVE stores a single address without `/32` or `/128`; either spelling plans no change.",
		Required:   true,
		Validators: []validator.String{grammarValidator{check: func(s string) error { _, err := normalizeAliasCIDR(s); return err }, description: "an IP address or network in CIDR notation"}},
	}
	attrs["comment"] = schema.StringAttribute{
		MarkdownDescription: "A comment shown in the PVE web UI: one line.",
		Optional:            true,
		Validators:          []validator.String{commentValidator()},
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "An alias of PVE's firewall: a name for an address or network that rules and IP sets can use. " +
			"The alias belongs to the cluster's firewall, or with `vmid` to a guest's (a node's own firewall has no aliases). " +
			"Every change is made in place, guarded by the digest of the firewall's alias list: an alias changed outside Terraform " +
			"since the last refresh is not overwritten.\n\n" +
			"**Privileges:** Sys.Modify on `/` for an alias of the cluster's firewall, VM.Config.Network on `/vms/VMID` for a guest's; " +
			"reading needs Sys.Audit on `/` or VM.Audit on `/vms/VMID`.\n\n" +
			"**Changes that replace the alias:** `vmid`.",
		Attributes: attrs,
	}
}

func (r *aliasResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		r.client = pd.Client
	}
}

// ModifyPlan plans the id, which follows the name.
func (r *aliasResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan aliasModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if plan.Name.IsUnknown() || plan.VMID.IsUnknown() {
		plan.ID = types.StringUnknown()
	} else {
		plan.ID = types.StringValue(aliasID(plan.scope(), plan.Name.ValueString()))
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("id"), plan.ID)...)
	planRef(ctx, req, resp)
}

func (r *aliasResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan aliasModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	scope := plan.scope()
	fw, ok := resolveForWrite(ctx, r.client, scope, "Unable To Create Firewall Alias", &resp.Diagnostics)
	if !ok {
		return
	}
	name := plan.Name.ValueString()
	if err := r.client.CreateFirewallAlias(ctx, fw, name, plan.CIDR.ValueString(), plan.Comment.ValueString()); err != nil {
		fwutil.AddAttributeAPIError(&resp.Diagnostics, path.Root("name"), "Unable To Create Firewall Alias", err)
		return
	}
	if d, ok := r.readBack(ctx, fw, scope, name, &plan, &resp.Diagnostics); ok {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
		writeDigests(ctx, resp.Private, d, &resp.Diagnostics)
	}
}

func (r *aliasResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state aliasModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	scope := state.scope()
	fw, ok := resolveExisting(ctx, r.client, scope, "Unable To Read Firewall Alias", &resp.Diagnostics, func() { resp.State.RemoveResource(ctx) })
	if !ok {
		return
	}
	aliases, err := r.client.FirewallAliases(ctx, fw)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read Firewall Alias", err)
		return
	}
	alias, found := findAlias(aliases, state.Name.ValueString())
	if !found {
		resp.State.RemoveResource(ctx)
		return
	}
	state.fromAPI(scope, alias)
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
	writeDigests(ctx, resp.Private, digests{Aliases: alias.Digest}, &resp.Diagnostics)
}

func (r *aliasResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state aliasModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	kept := readDigests(ctx, req.Private)
	if !aliasNeedsWrite(state, plan) {
		// Only the spelling of the same address changed.
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
		return
	}
	scope := plan.scope()
	fw, ok := resolveForWrite(ctx, r.client, scope, "Unable To Update Firewall Alias", &resp.Diagnostics)
	if !ok {
		resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
		return
	}
	oldName, newName := state.Name.ValueString(), plan.Name.ValueString()
	err := guardedWrite(ctx, kept.Aliases, func(digest string) error {
		return r.client.UpdateFirewallAlias(ctx, fw, oldName, newName, plan.CIDR.ValueString(), plan.Comment.ValueString(), digest)
	}, func(ctx context.Context) (string, error) {
		return r.recheck(ctx, fw, scope, state)
	})
	if err != nil {
		addWriteError(&resp.Diagnostics, "Unable To Update Firewall Alias", err)
		// Nothing changed: the state stays as it was.
		resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
		return
	}
	if d, ok := r.readBack(ctx, fw, scope, newName, &plan, &resp.Diagnostics); ok {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
		writeDigests(ctx, resp.Private, d, &resp.Diagnostics)
	}
}

func (r *aliasResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state aliasModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	scope := state.scope()
	fw, ok := resolveExisting(ctx, r.client, scope, "Unable To Delete Firewall Alias", &resp.Diagnostics, nil)
	if !ok {
		return
	}
	name := state.Name.ValueString()
	kept := readDigests(ctx, req.Private)
	err := guardedWrite(ctx, kept.Aliases, func(digest string) error {
		return r.client.DeleteFirewallAlias(ctx, fw, name, digest)
	}, func(ctx context.Context) (string, error) {
		return r.recheck(ctx, fw, scope, state)
	})
	if err != nil {
		var outside *changedOutsideError
		if asChangedOutside(err, &outside) && outside.detail == aliasGoneDetail {
			return // already gone: what Delete wants
		}
		addWriteError(&resp.Diagnostics, "Unable To Delete Firewall Alias", err)
	}
}

func (r *aliasResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importScopedName(ctx, req, resp, "pve_firewall_alias", parseAliasID)
}

// readBack reads the alias after a write, so state holds what PVE keeps,
// and answers the alias list's new digest.
func (r *aliasResource) readBack(ctx context.Context, fw pveapi.FirewallScope, scope scopeRef, name string, m *aliasModel, diags *diag.Diagnostics) (digests, bool) {
	aliases, err := r.client.FirewallAliases(ctx, fw)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read Firewall Alias After Writing It", err)
		return digests{}, false
	}
	alias, found := findAlias(aliases, name)
	if !found {
		fwutil.AddVanishedAfterWrite(diags, "Firewall Alias", fmt.Sprintf("Alias %s of %s", name, scope.describe()))
		return digests{}, false
	}
	m.fromAPI(scope, alias)
	return digests{Aliases: alias.Digest}, true
}

// aliasGoneDetail is the recheck's finding when the alias no longer exists.
const aliasGoneDetail = "it no longer exists"

// recheck reads the alias list again after PVE refused a digest: when the
// alias is still as the state describes, the change goes ahead with the
// list's new digest (another alias of the same firewall changed).
func (r *aliasResource) recheck(ctx context.Context, fw pveapi.FirewallScope, scope scopeRef, state aliasModel) (string, error) {
	aliases, err := r.client.FirewallAliases(ctx, fw)
	if err != nil {
		return "", err
	}
	what := fmt.Sprintf("Alias %s of %s", state.Name.ValueString(), scope.describe())
	alias, found := findAlias(aliases, state.Name.ValueString())
	if !found {
		return "", &changedOutsideError{what: what, detail: aliasGoneDetail}
	}
	if !aliasUnchanged(state, alias) {
		return "", &changedOutsideError{what: what, detail: fmt.Sprintf("PVE now has %s %s, comment %q", alias.Name, alias.CIDR, alias.Comment)}
	}
	return alias.Digest, nil
}
