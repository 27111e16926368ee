package pool

import (
	"context"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// NewPoolListResource is the pve_pool list resource registered with the
// provider (terraform query, Terraform 1.14 and later): the cluster's
// pools, found with one GET /pools, each with include_resource as
// pve_pool imports it.
func NewPoolListResource() list.ListResource { return &poolListResource{} }

type poolListResource struct {
	data *fwutil.ProviderData
}

var (
	_ list.ListResourceWithConfigure      = (*poolListResource)(nil)
	_ list.ListResourceWithValidateConfig = (*poolListResource)(nil)
)

type poolListFilter struct {
	PoolID types.String `tfsdk:"poolid"`
}

func (l *poolListResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_pool"
}

func (l *poolListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Lists the cluster's resource pools, for `terraform query`. With `include_resource = true` each result carries " +
			"the pool as an import of it reads it, so `terraform query -generate-config-out` writes configuration that plans no change once imported.",
		Attributes: map[string]schema.Attribute{
			"poolid": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Only the pools whose id matches this shell pattern: `*` matches any run of characters, " +
					"`?` one character, `[a-z]` one of a class (e.g. `prod*` for prod and the pools nested in it). The whole id must match.",
			},
		},
	}
}

func (l *poolListResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		l.data = pd
	}
}

func (l *poolListResource) ValidateListResourceConfig(ctx context.Context, req list.ValidateConfigRequest, resp *list.ValidateConfigResponse) {
	var f poolListFilter
	resp.Diagnostics.Append(req.Config.Get(ctx, &f)...)
	fwutil.ListNamePattern(f.PoolID.ValueString(), "poolid", &resp.Diagnostics)
}

func (l *poolListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var diags diag.Diagnostics
	var f poolListFilter
	diags.Append(req.Config.Get(ctx, &f)...)
	pattern := f.PoolID.ValueString()
	fwutil.ListNamePattern(pattern, "poolid", &diags)
	if l.data == nil {
		diags.AddError("Provider Not Configured", "The provider has no connection to PVE to list pools with.")
	}
	if diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	pools, err := l.data.Client.Pools(ctx)
	if err != nil {
		fwutil.AddAPIError(&diags, "Unable To List Pools", err)
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	slices.SortFunc(pools, func(a, b pveapi.PoolSummary) int { return strings.Compare(a.PoolID, b.PoolID) })
	r := NewPoolResource()
	if req.IncludeResource {
		if conf := fwutil.ConfigureListed(ctx, r, l.data); conf.HasError() {
			stream.Results = list.ListResultsStreamDiagnostics(conf)
			return
		}
	}
	stream.Results = func(push func(list.ListResult) bool) {
		var pushed int64
		for _, p := range pools {
			if !fwutil.ListNameMatches(pattern, p.PoolID) {
				continue
			}
			if req.Limit > 0 && pushed >= req.Limit {
				return
			}
			result, ok := fwutil.Listed(ctx, r, req, p.PoolID, map[string]string{"poolid": p.PoolID}, p.PoolID)
			if !ok {
				continue
			}
			pushed++
			if !push(result) {
				return
			}
		}
	}
}
