package pool

import (
	"context"
	"fmt"
	"slices"
	"strings"

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
	_ resource.Resource                = (*poolResource)(nil)
	_ resource.ResourceWithConfigure   = (*poolResource)(nil)
	_ resource.ResourceWithImportState = (*poolResource)(nil)
)

// NewPoolResource is the pve_pool constructor registered with the provider.
func NewPoolResource() resource.Resource {
	return fwutil.WithIdentity(&poolResource{}, poolIdentity)
}

// poolIdentity is a pool's key, its import id. A pool is renamed in place
// (its members move along), so its identity follows a rename.
var poolIdentity = fwutil.Identity{
	Attributes: []fwutil.IdentityAttribute{{
		Name: "poolid", Description: "The pool's id, as `poolid` (for example `prod` or `prod/web`).",
	}},
	Mutable: true,
}

type poolResource struct {
	client *pveapi.Client
}

func (r *poolResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_pool"
}

func (r *poolResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A PVE resource pool: a named group of guests and storages, used for permissions and overview. " +
			"Guests join a pool through their own `pool` attribute." +
			"\n\n**Changes that replace the pool:** `pool_id` (PVE has no way to rename a pool).",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The pool's id, equal to `poolid`.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"poolid": schema.StringAttribute{
				MarkdownDescription: "Pool name: letters, digits, `.`, `-` and `_`; nested pools as `parent/child` (at most three levels, the parent must exist). " +
					"Changing it renames the pool in place: PVE has no rename, so the provider creates the new pool, moves the guests and storages over and deletes the old one " +
					"(the plan warns and lists them). Permissions granted on the old pool's path are deleted with it by PVE. Guests should refer to the pool as " +
					"`pve_pool.NAME.poolid` so they follow in the same apply. A pool that contains nested pools cannot be renamed.",
				Required: true,
				Validators: []validator.String{
					fwutil.Format(wire.IsPoolID,
						"must be letters, digits, '.', '-' or '_', at most three levels separated by '/'"),
				},
			},
			"comment": schema.StringAttribute{
				MarkdownDescription: "Free-text comment shown in the PVE web UI.",
				Optional:            true,
				Validators: []validator.String{
					stringvalidator.LengthAtLeast(1),
				},
			},
		},
	}
}

func (r *poolResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		r.client = pd.Client
	}
}

func (r *poolResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan poolModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	poolID := plan.PoolID.ValueString()

	if err := r.client.CreatePool(ctx, poolID, plan.Comment.ValueString()); err != nil {
		fwutil.AddAttributeAPIError(&resp.Diagnostics, path.Root("poolid"), "Unable To Create Pool", err)
		return
	}

	if r.readBack(ctx, poolID, &plan, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	}
}

func (r *poolResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state poolModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	poolID := state.PoolID.ValueString()

	pool, found, err := r.client.GetPool(ctx, poolID)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read Pool", err)
		return
	}
	if !found {
		resp.State.RemoveResource(ctx)
		return
	}
	state.fromAPI(poolID, pool)
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

func (r *poolResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state poolModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	poolID := plan.PoolID.ValueString()

	if from := state.PoolID.ValueString(); from != poolID {
		if !r.rename(ctx, from, poolID, plan.Comment, &resp.Diagnostics) {
			return
		}
		state.Comment = plan.Comment
	}
	if update, needed := toUpdate(state, plan); needed {
		if err := r.client.UpdatePool(ctx, update); err != nil {
			fwutil.AddAPIError(&resp.Diagnostics, "Unable To Update Pool", err)
			return
		}
	}

	if r.readBack(ctx, poolID, &plan, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	}
}

// readBack reads the pool after a write, so state holds what PVE keeps
// rather than what was sent. A pool that vanished in between is an error:
// another client deleted it, and the next apply recreates it.
func (r *poolResource) readBack(ctx context.Context, poolID string, m *poolModel, diags *diag.Diagnostics) bool {
	pool, found, err := r.client.GetPool(ctx, poolID)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read Pool After Writing It", err)
		return false
	}
	if !found {
		fwutil.AddVanishedAfterWrite(diags, "Pool", "Pool "+poolID)
		return false
	}
	m.fromAPI(poolID, pool)
	return true
}

func (r *poolResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state poolModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	poolID := state.PoolID.ValueString()

	// A pool that is already gone is what Delete wants. A pool that still
	// has members is refused by PVE, and its message names the member.
	if err := r.client.DeletePool(ctx, poolID); err != nil && !pveapi.IsPoolNotFound(err) {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Delete Pool", err)
	}
}

func (r *poolResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if !wire.IsPoolID(req.ID) {
		resp.Diagnostics.AddError("Invalid Import ID",
			"Import pve_pool by its poolid (for example \"prod\" or \"prod/web\"), got "+req.ID+".")
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("poolid"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
	// Guest members are managed by the guests' own pool attribute; storage
	// members have no attribute anywhere, so the import names them rather
	// than drop them silently. A failed read is left to the refresh.
	if pool, found, err := r.client.GetPool(ctx, req.ID); err == nil && found {
		if storages := storageMembers(pool); len(storages) > 0 {
			resp.Diagnostics.AddWarning(fwutil.UnmanagedSummary, fmt.Sprintf(
				"Pool %s has storage members that pve_pool has no attribute for: %s. Terraform neither shows nor changes them; "+
					"they stay in the pool.", req.ID, strings.Join(storages, ", ")))
		}
	}
}

// storageMembers lists a pool's storages once each, sorted: PVE lists a
// storage once per node.
func storageMembers(pool *pveapi.Pool) []string {
	var out []string
	for _, m := range pool.Members {
		if m.Type == "storage" && m.Storage != "" && !slices.Contains(out, m.Storage) {
			out = append(out, m.Storage)
		}
	}
	slices.Sort(out)
	return out
}
