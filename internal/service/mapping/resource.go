package mapping

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

var (
	_ resource.Resource                = (*mappingResource)(nil)
	_ resource.ResourceWithConfigure   = (*mappingResource)(nil)
	_ resource.ResourceWithImportState = (*mappingResource)(nil)
)

// updateTries bounds the re-reads of an update whose digest went stale:
// the digest covers the kind's whole file, so a change to any other
// mapping of the kind between the read and the write makes PVE refuse.
const updateTries = 8

// NewPCIMappingResource is the pve_pci_mapping constructor.
func NewPCIMappingResource() resource.Resource { return newMappingResource("pci") }

// NewUSBMappingResource is the pve_usb_mapping constructor.
func NewUSBMappingResource() resource.Resource { return newMappingResource("usb") }

// NewDirMappingResource is the pve_dir_mapping constructor.
func NewDirMappingResource() resource.Resource { return newMappingResource("dir") }

func newMappingResource(kind string) resource.Resource {
	return fwutil.WithIdentity(&mappingResource{kind: kinds[kind]}, mappingIdentity)
}

// mappingIdentity is a mapping's key, its id (the import id).
var mappingIdentity = fwutil.Identity{Attributes: []fwutil.IdentityAttribute{{
	Name: "id", Description: "The mapping's id, as `id`.",
}}}

type mappingResource struct {
	kind   *kindSpec
	client *pveapi.Client
}

func (r *mappingResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + r.kind.typeName
}

func (r *mappingResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	k := r.kind
	entryAttrs := map[string]schema.Attribute{}
	for _, f := range k.fields {
		if f.integer {
			entryAttrs[f.attr] = schema.Int64Attribute{MarkdownDescription: f.doc, Required: f.required, Optional: !f.required}
			continue
		}
		entryAttrs[f.attr] = schema.StringAttribute{MarkdownDescription: f.doc, Required: f.required, Optional: !f.required,
			Validators: f.checks}
	}
	name := k.wire.Name
	attrs := map[string]schema.Attribute{
		"id": schema.StringAttribute{
			MarkdownDescription: "The mapping's name, which guests refer to (`mapping=<id>`): a letter, then letters, " +
				"digits, `-` or `_`, at least two characters. Changing it replaces the mapping.",
			Required:      true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators: []validator.String{fwutil.Format(wire.IsMappingID,
				"a letter, then letters, digits, '-' or '_' (at least two characters)")},
		},
		"description": schema.StringAttribute{
			MarkdownDescription: "A description of the mapping (one line; PVE refuses line breaks).",
			Optional:            true,
			Validators: []validator.String{stringvalidator.LengthBetween(1, 4096), fwutil.Problem(func(s string) string {
				if stringContainsLineBreak(s) {
					return "must be a single line (PVE refuses line breaks in it)"
				}
				return ""
			}, "a single line")},
		},
		"map": schema.MapNestedAttribute{
			MarkdownDescription: "The mapping's entry on each node, keyed by node name. A node without an entry " +
				"cannot run guests that use the mapping.",
			Required: true,
			Validators: []validator.Map{
				mapvalidator.SizeAtLeast(1),
				mapvalidator.KeysAre(fwutil.Format(wire.IsNodeName, "a node name")),
			},
			NestedObject: schema.NestedAttributeObject{Attributes: entryAttrs},
		},
	}
	if k.pci {
		attrs["mdev"] = schema.BoolAttribute{
			MarkdownDescription: "Marks the devices as providing mediated devices (vGPU and the like): guests then " +
				"choose an `mdev` type. Unset is PVE's default, false.",
			Optional: true,
		}
		attrs["live_migration_capable"] = schema.BoolAttribute{
			MarkdownDescription: "Marks the devices as able to be live-migrated (experimental in PVE; needs hardware " +
				"and driver support). Unset is PVE's default, false.",
			Optional: true,
		}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: k.doc + fmt.Sprintf(privilegeDoc, name, name, name),
		Attributes:          attrs,
	}
}

func stringContainsLineBreak(s string) bool {
	for _, r := range s {
		if r == '\n' || r == '\r' {
			return true
		}
	}
	return false
}

func (r *mappingResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		r.client = pd.Client
	}
}

func (r *mappingResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	k := r.kind
	plan := k.get(ctx, req.Plan, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	id := plan.ID.ValueString()
	if err := r.client.CreateMapping(ctx, k.wire.Name, id, k.createParams(plan)); err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Create "+k.title, err)
		return
	}
	r.readBack(ctx, id, &plan, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	k.set(ctx, &resp.State, plan, &resp.Diagnostics)
}

// readBack sets m from PVE after a write.
func (r *mappingResource) readBack(ctx context.Context, id string, m *model, diags *diag.Diagnostics) {
	k := r.kind
	api, found, err := r.client.GetMapping(ctx, k.wire.Name, id)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read "+k.title, err)
		return
	}
	if !found {
		fwutil.AddVanishedAfterWrite(diags, k.title, "Mapping "+id)
		return
	}
	if err := k.fromAPI(m, api); err != nil {
		diags.AddError("Unexpected "+k.title, "Mapping "+id+": "+err.Error()+".")
	}
}

func (r *mappingResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	k := r.kind
	state := k.get(ctx, req.State, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	id := state.ID.ValueString()
	api, found, err := r.client.GetMapping(ctx, k.wire.Name, id)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read "+k.title, err)
		return
	}
	if !found {
		resp.State.RemoveResource(ctx)
		return
	}
	if err := k.fromAPI(&state, api); err != nil {
		resp.Diagnostics.AddError("Unsupported "+k.title, "Mapping "+id+": "+err.Error()+".")
		return
	}
	k.set(ctx, &resp.State, state, &resp.Diagnostics)
}

func (r *mappingResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	k := r.kind
	plan := k.get(ctx, req.Plan, &resp.Diagnostics)
	prior := k.get(ctx, req.State, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	id := prior.ID.ValueString()
	params, del := k.updateParams(prior, plan)
	for try := 0; ; try++ {
		api, found, err := r.client.GetMapping(ctx, k.wire.Name, id)
		if err != nil {
			fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read "+k.title, err)
			return
		}
		if !found {
			resp.Diagnostics.AddError(k.title+" Vanished",
				"Mapping "+id+" was deleted outside Terraform since the plan. Run apply again to recreate it.")
			return
		}
		err = r.client.UpdateMapping(ctx, k.wire.Name, id, params, del, api.Digest)
		if err == nil {
			break
		}
		if !pveapi.IsMappingDigestMismatch(err) || try+1 >= updateTries {
			fwutil.AddAPIError(&resp.Diagnostics, "Unable To Update "+k.title, err)
			return
		}
	}
	r.readBack(ctx, id, &plan, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	k.set(ctx, &resp.State, plan, &resp.Diagnostics)
}

func (r *mappingResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	k := r.kind
	state := k.get(ctx, req.State, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	// PVE answers success for a mapping that is already gone.
	if err := r.client.DeleteMapping(ctx, k.wire.Name, state.ID.ValueString()); err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Delete "+k.title, err)
	}
}

func (r *mappingResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if !wire.IsMappingID(req.ID) {
		resp.Diagnostics.AddError("Invalid Import ID", "Import pve_"+r.kind.typeName+" by the mapping's id (a letter, "+
			"then letters, digits, '-' or '_'), got "+fmt.Sprintf("%q", req.ID)+".")
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
}
