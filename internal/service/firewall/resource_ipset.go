package firewall

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

var (
	_ resource.Resource                   = (*ipsetResource)(nil)
	_ resource.ResourceWithConfigure      = (*ipsetResource)(nil)
	_ resource.ResourceWithImportState    = (*ipsetResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*ipsetResource)(nil)
	_ resource.ResourceWithValidateConfig = (*ipsetResource)(nil)
)

// NewIPSetResource is the pve_firewall_ipset constructor registered with
// the provider.
func NewIPSetResource() resource.Resource {
	return fwutil.WithIdentity(&ipsetResource{}, scopedNameIdentity)
}

type ipsetResource struct {
	client *pveapi.Client
}

func (r *ipsetResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_firewall_ipset"
}

func (r *ipsetResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs := scopeAttributes("the IP set", false)
	attrs["id"] = schema.StringAttribute{
		MarkdownDescription: "The IP set's import id: `cluster/NAME` or `guest/VMID/NAME`.",
		Computed:            true,
	}
	attrs["ref"] = refAttribute("the IP set", "+dc/trusted")
	attrs["name"] = schema.StringAttribute{
		MarkdownDescription: "The IP set's name: 2 to 64 lowercase letters, digits, `-` and `_`, starting with a letter " +
			"(PVE stores IP set names in lowercase). Rules refer to it as `+NAME` (`+dc/NAME`, `+guest/NAME`). " +
			"Changing it renames the set in place; rules that name the set are not rewritten by PVE.",
		Required:   true,
		Validators: []validator.String{nameValidator(validateIPSetName)},
	}
	attrs["comment"] = schema.StringAttribute{
		MarkdownDescription: "A comment shown in the PVE web UI: one line.",
		Optional:            true,
		Validators:          []validator.String{commentValidator()},
	}
	attrs["entries"] = schema.MapNestedAttribute{
		MarkdownDescription: "The set's entries, keyed by address: an IPv4 or IPv6 address, a network in CIDR notation, or an alias " +
			"(`NAME`, `dc/NAME` for the cluster's, `guest/NAME` for the guest's own; the alias must exist first). " +
			"PVE stores a network with its host bits cleared (`10.0.0.5/24` as `10.0.0.0/24`) and a single address without `/32` or `/128`; " +
			"either spelling plans no change, but two keys PVE would store as the same address are refused. " +
			"The resource owns every entry of the set: an entry added outside Terraform shows in the next plan as one to remove. " +
			"A change costs one request per changed address, however large the set.",
		Optional: true,
		Validators: []validator.Map{mapvalidator.KeysAre(grammarValidator{
			check:       func(s string) error { _, err := normalizeIPSetCIDR(s); return err },
			description: "an IP address, a network in CIDR notation or an alias name",
		})},
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"nomatch": schema.BoolAttribute{
				MarkdownDescription: "Exclude the address from the set (an exception to a larger network of the set). Default `false`.",
				Optional:            true,
				Computed:            true,
				Default:             booldefault.StaticBool(false),
			},
			"comment": schema.StringAttribute{
				MarkdownDescription: "A comment for the entry: one line.",
				Optional:            true,
				Validators:          []validator.String{commentValidator()},
			},
		}},
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "An IP set of PVE's firewall: a named list of addresses and networks that rules match as `+NAME`. " +
			"The set belongs to the cluster's firewall, or with `vmid` to a guest's (a node's own firewall has no IP sets). " +
			"Renames, comments and entries change in place; edits of existing entries are guarded by the set's digest, " +
			"so a set changed outside Terraform since the last refresh is not overwritten. Destroying the resource deletes the set " +
			"with all its entries.\n\n" +
			"**Privileges:** Sys.Modify on `/` for an IP set of the cluster's firewall, VM.Config.Network on `/vms/VMID` for a guest's; " +
			"reading needs Sys.Audit on `/` or VM.Audit on `/vms/VMID`.\n\n" +
			"**Changes that replace the IP set:** `vmid`.",
		Attributes: attrs,
	}
}

func (r *ipsetResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		r.client = pd.Client
	}
}

// ValidateConfig refuses two entries PVE would store as the same address.
func (r *ipsetResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var entries types.Map
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("entries"), &entries)...)
	if resp.Diagnostics.HasError() || entries.IsNull() || entries.IsUnknown() {
		return
	}
	models := make(map[string]ipsetEntryModel, len(entries.Elements()))
	for cidr := range entries.Elements() {
		// A malformed address is its key's own error.
		if _, err := normalizeIPSetCIDR(cidr); err == nil {
			models[cidr] = ipsetEntryModel{}
		}
	}
	if _, _, err := storedEntries(models); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("entries"), "Duplicate IP Set Address", "Attribute entries: "+err.Error()+".")
	}
}

// ModifyPlan plans the id, which follows the name.
func (r *ipsetResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var name types.String
	var vmid types.Int64
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("name"), &name)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("vmid"), &vmid)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := types.StringUnknown()
	if !name.IsUnknown() && !vmid.IsUnknown() {
		id = types.StringValue(ipsetID(scopeFromModel(types.StringNull(), vmid), name.ValueString()))
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("id"), id)...)
	planRef(ctx, req, resp)
}

func (r *ipsetResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan ipsetModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	desired, _, diags := configuredEntries(plan.Entries)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	scope := plan.scope()
	fw, ok := resolveForWrite(ctx, r.client, scope, "Unable To Create Firewall IP Set", &resp.Diagnostics)
	if !ok {
		return
	}
	name := plan.Name.ValueString()
	if err := r.client.CreateIPSet(ctx, fw, name, plan.Comment.ValueString()); err != nil {
		fwutil.AddAttributeAPIError(&resp.Diagnostics, path.Root("name"), "Unable To Create Firewall IP Set", err)
		return
	}
	w := &entryWriter{client: r.client, fw: fw, scope: scope, name: name, current: entryMap{}}
	w.digest = w.current.digest()
	err := w.apply(ctx, planEntryChanges(w.current, desired))
	// The set exists: state records it with the entries it got, so a
	// failed create is tainted and replaced by the next apply.
	saveEntries(ctx, plan, plan, w, digests{}, &resp.State, resp.Private, &resp.Diagnostics)
	if err != nil {
		addWriteError(&resp.Diagnostics, "Unable To Add IP Set Entry", err)
	}
}

func (r *ipsetResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state ipsetModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	scope := state.scope()
	fw, ok := resolveExisting(ctx, r.client, scope, "Unable To Read Firewall IP Set", &resp.Diagnostics, func() { resp.State.RemoveResource(ctx) })
	if !ok {
		return
	}
	set, list, entriesDigest, found, err := r.readSet(ctx, fw, state.Name.ValueString())
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read Firewall IP Set", err)
		return
	}
	if !found {
		resp.State.RemoveResource(ctx)
		return
	}
	resp.Diagnostics.Append(state.fromAPI(scope, set, entriesFromAPI(list))...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
	writeDigests(ctx, resp.Private, digests{IPSets: set.Digest, Entries: entriesDigest}, &resp.Diagnostics)
}

// readSet reads one IP set: its entry in the set list (for the comment and
// the list's digest) and its entries with their digest.
func (r *ipsetResource) readSet(ctx context.Context, fw pveapi.FirewallScope, name string) (pveapi.IPSet, []pveapi.IPSetEntry, string, bool, error) {
	sets, err := r.client.IPSets(ctx, fw)
	if err != nil {
		return pveapi.IPSet{}, nil, "", false, err
	}
	set, found := findIPSet(sets, name)
	if !found {
		return pveapi.IPSet{}, nil, "", false, nil
	}
	list, digest, err := r.client.IPSetEntries(ctx, fw, name)
	if pveapi.IsNoSuchIPSet(err) {
		return pveapi.IPSet{}, nil, "", false, nil
	}
	if err != nil {
		return pveapi.IPSet{}, nil, "", false, err
	}
	return set, list, digest, true, nil
}

func findIPSet(sets []pveapi.IPSet, name string) (pveapi.IPSet, bool) {
	for _, s := range sets {
		if s.Name == name {
			return s, true
		}
	}
	return pveapi.IPSet{}, false
}

func (r *ipsetResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state ipsetModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	current, _, diags := configuredEntries(state.Entries)
	resp.Diagnostics.Append(diags...)
	desired, _, diags := configuredEntries(plan.Entries)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	kept := readDigests(ctx, req.Private)
	scope := plan.scope()
	changes := planEntryChanges(current, desired)
	renamed := !state.Name.Equal(plan.Name) || !state.Comment.Equal(plan.Comment)
	if !renamed && changes.count() == 0 {
		// Only spellings PVE stores the same changed.
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
		return
	}
	fw, ok := resolveForWrite(ctx, r.client, scope, "Unable To Update Firewall IP Set", &resp.Diagnostics)
	if !ok {
		resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
		return
	}

	if renamed {
		oldName, newName, comment := state.Name.ValueString(), plan.Name.ValueString(), plan.Comment.ValueString()
		err := guardedWrite(ctx, kept.IPSets, func(digest string) error {
			return r.client.UpdateIPSet(ctx, fw, oldName, newName, &comment, digest)
		}, func(ctx context.Context) (string, error) {
			return r.recheckSet(ctx, fw, scope, state)
		})
		if err != nil {
			addWriteError(&resp.Diagnostics, "Unable To Update Firewall IP Set", err)
			// Nothing changed: the state stays as it was.
			resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
			return
		}
		// The set list changed; its digest is read at the next refresh
		// (or when a guarded write needs it).
		kept.IPSets = ""
		state.Name, state.Comment = plan.Name, plan.Comment
		state.ID = types.StringValue(ipsetID(scope, newName))
	}

	w := &entryWriter{client: r.client, fw: fw, scope: scope, name: plan.Name.ValueString(), current: current, digest: kept.Entries}
	err := w.apply(ctx, changes)
	saveEntries(ctx, state, plan, w, kept, &resp.State, resp.Private, &resp.Diagnostics)
	if err != nil {
		addWriteError(&resp.Diagnostics, "Unable To Update IP Set Entries", err)
	}
}

func (r *ipsetResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state ipsetModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	fw, ok := resolveExisting(ctx, r.client, state.scope(), "Unable To Delete Firewall IP Set", &resp.Diagnostics, nil)
	if !ok {
		return
	}
	// The resource owns every entry, so the set goes with its entries.
	err := r.client.DeleteIPSet(ctx, fw, state.Name.ValueString(), true)
	if err != nil && !pveapi.IsNoSuchIPSet(err) {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Delete Firewall IP Set", err)
	}
}

func (r *ipsetResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importScopedName(ctx, req, resp, "pve_firewall_ipset", parseIPSetID)
}

// recheckSet reads the set list again after PVE refused its digest: when
// the set still has the name and comment the state describes, the change
// goes ahead with the list's new digest (another set of the same firewall
// changed).
func (r *ipsetResource) recheckSet(ctx context.Context, fw pveapi.FirewallScope, scope scopeRef, state ipsetModel) (string, error) {
	sets, err := r.client.IPSets(ctx, fw)
	if err != nil {
		return "", err
	}
	name := state.Name.ValueString()
	what := fmt.Sprintf("IP set %s of %s", name, scope.describe())
	set, found := findIPSet(sets, name)
	if !found {
		return "", &changedOutsideError{what: what, detail: "it no longer exists"}
	}
	if set.Comment != state.Comment.ValueString() {
		return "", &changedOutsideError{what: what, detail: fmt.Sprintf("its comment is now %q", set.Comment)}
	}
	return set.Digest, nil
}

// stateSetter is the part of a response's state saveEntries writes.
type stateSetter interface {
	Set(ctx context.Context, val any) diag.Diagnostics
}

// saveEntries records the set after its entries were written: base with
// the entries the writer knows PVE holds, each in the planned spelling
// where the plan has the address and in base's spelling otherwise (an
// entry left over by a failed apply), and the digests kept for the next
// guarded write.
func saveEntries(ctx context.Context, base, plan ipsetModel, w *entryWriter, kept digests, state stateSetter, private privateSetter, diags *diag.Diagnostics) {
	_, baseSpelling, d := configuredEntries(base.Entries)
	diags.Append(d...)
	desired, plannedSpelling, d := configuredEntries(plan.Entries)
	diags.Append(d...)
	if diags.HasError() {
		return
	}
	spelling := map[string]string{}
	for k := range w.current {
		from := baseSpelling
		if _, planned := desired[k]; planned {
			from = plannedSpelling
		}
		if s, ok := from[k]; ok {
			spelling[k] = s
		}
	}
	entries, d := entriesValue(w.current, spelling, plan.Entries.IsNull())
	diags.Append(d...)
	if d.HasError() {
		return
	}
	base.Entries = entries
	base.ID = types.StringValue(ipsetID(base.scope(), base.Name.ValueString()))
	base.Ref = types.StringValue("+" + base.scope().referencePrefix() + base.Name.ValueString())
	diags.Append(state.Set(ctx, base)...)
	kept.Entries = w.digest
	writeDigests(ctx, private, kept, diags)
}
