package guestops

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/list/schema"
	fwpath "github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// ListResource is the list resource of a guest kind (`list "pve_vm"` in
// a .tfquery.hcl file, Terraform 1.14 and later): the guests of the
// cluster of that kind, found with one GET /cluster/resources and
// filtered by its entries. A full object (include_resource) is what the
// kind's resource imports, made by that resource's own import and read
// (fwutil.Listed).
type ListResource struct {
	kind        Kind
	newResource func() resource.Resource
	data        *fwutil.ProviderData
}

var (
	_ list.ListResourceWithConfigure      = (*ListResource)(nil)
	_ list.ListResourceWithValidateConfig = (*ListResource)(nil)
)

// NewListResource is the list resource of kind, whose objects newResource
// (the kind's resource constructor) imports.
func NewListResource(kind Kind, newResource func() resource.Resource) list.ListResource {
	return &ListResource{kind: kind, newResource: newResource}
}

// listFilter is a guest list block's configuration.
type listFilter struct {
	Node types.String `tfsdk:"node"`
	Pool types.String `tfsdk:"pool"`
	Tags types.List   `tfsdk:"tags"`
	Name types.String `tfsdk:"name"`
}

func (l *ListResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + strings.TrimPrefix(l.kind.Resource, "pve")
}

func (l *ListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	what := "guest"
	if l.kind.Template {
		what = "template"
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: fmt.Sprintf("Lists the %ss of the cluster (%s manages them; templates and guests of the other type are "+
			"listed by their own list resources), for `terraform query`. With `include_resource = true` each result carries the %s as "+
			"an import of it reads it, so `terraform query -generate-config-out` writes configuration that plans no change once imported. "+
			"Every filter given must match; none lists all of them.", l.kind.Noun, "`"+l.kind.Resource+"`", l.kind.Noun),
		Attributes: map[string]schema.Attribute{
			"node": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: fmt.Sprintf("Only the %ss on this node.", what),
			},
			"pool": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: fmt.Sprintf("Only the %ss in this resource pool.", what),
			},
			"tags": schema.ListAttribute{
				ElementType:         types.StringType,
				Optional:            true,
				MarkdownDescription: fmt.Sprintf("Only the %ss that carry every one of these tags (compared as PVE stores them, in lowercase).", what),
			},
			"name": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: fmt.Sprintf("Only the %ss whose name matches this shell pattern: `*` matches any run of characters, "+
					"`?` one character, `[a-z]` one of a class (e.g. `web-*`). The whole name must match.", what),
			},
		},
	}
}

func (l *ListResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		l.data = pd
	}
}

func (l *ListResource) ValidateListResourceConfig(ctx context.Context, req list.ValidateConfigRequest, resp *list.ValidateConfigResponse) {
	var f listFilter
	resp.Diagnostics.Append(req.Config.Get(ctx, &f)...)
	if resp.Diagnostics.HasError() {
		return
	}
	f.compile(ctx, &resp.Diagnostics)
}

// guestMatcher is a listFilter ready to test /cluster/resources entries.
type guestMatcher struct {
	node, pool, name string
	tags             []string
}

// compile checks f's values and makes its matcher; an unknown value
// matches anything (it is known by the time the listing runs).
func (f listFilter) compile(ctx context.Context, diags *diag.Diagnostics) guestMatcher {
	m := guestMatcher{node: f.Node.ValueString(), pool: f.Pool.ValueString(), name: f.Name.ValueString()}
	fwutil.ListNamePattern(m.name, "name", diags)
	if !f.Tags.IsNull() && !f.Tags.IsUnknown() {
		var tags []string
		diags.Append(f.Tags.ElementsAs(ctx, &tags, false)...)
		norm, err := wire.NormalizeTags(tags)
		if err != nil {
			diags.AddAttributeError(fwpath.Root("tags"), "Invalid Tag", err.Error()+".")
		}
		m.tags = norm
	}
	return m
}

// matches reports whether the listing entry g passes every filter.
func (m guestMatcher) matches(g pveapi.Resource) bool {
	if m.node != "" && g.Node != m.node || m.pool != "" && g.Pool != m.pool {
		return false
	}
	if !fwutil.ListNameMatches(m.name, string(g.Name)) {
		return false
	}
	if len(m.tags) > 0 {
		// A tag PVE would not accept cannot have been stored: such
		// entries are only compared as they are.
		have, _ := wire.ParseTags(string(g.Tags))
		for _, t := range m.tags {
			if !slices.Contains(have, t) {
				return false
			}
		}
	}
	return true
}

func (l *ListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var diags diag.Diagnostics
	var f listFilter
	diags.Append(req.Config.Get(ctx, &f)...)
	m := f.compile(ctx, &diags)
	if l.data == nil {
		diags.AddError("Provider Not Configured", "The provider has no connection to PVE to list "+l.kind.Noun+"s with.")
	}
	if diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	entries, err := l.data.Client.ClusterResources(ctx, "vm")
	if err != nil {
		fwutil.AddAPIError(&diags, "Unable To List "+l.kind.Title+"s", err)
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	var guests []pveapi.Resource
	for _, g := range entries {
		// A guest being created or cloned is not one to import yet (W11);
		// a template's flag tells the template kinds from the others (W17).
		if g.Type != l.kind.Type || bool(g.Template) != l.kind.Template || g.InProgress() || !m.matches(g) {
			continue
		}
		guests = append(guests, g)
	}
	slices.SortFunc(guests, func(a, b pveapi.Resource) int { return int(a.VMID) - int(b.VMID) })

	// Only a full object needs the resource, which reads with the client.
	r := l.newResource()
	if req.IncludeResource {
		if conf := fwutil.ConfigureListed(ctx, r, l.data); conf.HasError() {
			stream.Results = list.ListResultsStreamDiagnostics(conf)
			return
		}
	}
	stream.Results = func(push func(list.ListResult) bool) {
		var pushed int64
		for _, g := range guests {
			if req.Limit > 0 && pushed >= req.Limit {
				return
			}
			vmid := strconv.Itoa(int(g.VMID))
			result, ok := fwutil.Listed(ctx, r, req, g.Node+"/"+vmid,
				map[string]string{"vmid": vmid, "node": g.Node}, displayName(g))
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

// displayName is how a listed guest is shown: its name and VMID.
func displayName(g pveapi.Resource) string {
	if g.Name == "" {
		return strconv.Itoa(int(g.VMID))
	}
	return fmt.Sprintf("%s (%d)", g.Name, int(g.VMID))
}
