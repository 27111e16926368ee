package firewall

import (
	"context"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

var _ datasource.DataSourceWithConfigure = (*refsDataSource)(nil)

// NewRefsDataSource is the pve_firewall_refs constructor.
func NewRefsDataSource() datasource.DataSource {
	return &refsDataSource{}
}

type refsDataSource struct {
	client *pveapi.Client
}

type refsModel struct {
	ID   types.String `tfsdk:"id"`
	VMID types.Int64  `tfsdk:"vmid"`
	Type types.String `tfsdk:"type"`
	Refs []refModel   `tfsdk:"refs"`
}

type refModel struct {
	Type    types.String `tfsdk:"type"`
	Name    types.String `tfsdk:"name"`
	Ref     types.String `tfsdk:"ref"`
	Scope   types.String `tfsdk:"scope"`
	Comment types.String `tfsdk:"comment"`
}

func (d *refsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_firewall_refs"
}

func (d *refsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The aliases and IP sets a firewall rule may name in its `source` or `dest`: the cluster's " +
			"(and those of SDN virtual networks the user may see) for a cluster or node rule, plus the guest's own for a guest's rule.\n\n" +
			"**Privileges:** `Sys.Audit` on `/` for the cluster's list, `VM.Audit` on `/vms/VMID` for a guest's.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The firewall whose rules may use the references: `cluster` or `guest/VMID`.",
				Computed:            true,
			},
			"vmid": schema.Int64Attribute{
				MarkdownDescription: "The VMID of the VM or container whose rules would use the references. Unset: the cluster's " +
					"(a node's rules may use the same).",
				Optional:   true,
				Validators: []validator.Int64{int64validator.Between(100, 999999999)},
			},
			"type": schema.StringAttribute{
				MarkdownDescription: "Only references of this type: `alias` or `ipset`. Unset: both.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.OneOf("alias", "ipset")},
			},
			"refs": schema.ListNestedAttribute{
				MarkdownDescription: "The references, in PVE's order of scopes (`dc`, then `sdn`, then `guest`), then by type and name.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"type":    schema.StringAttribute{Computed: true, MarkdownDescription: "`alias` or `ipset`."},
						"name":    schema.StringAttribute{Computed: true, MarkdownDescription: "The alias's or IP set's name."},
						"ref":     schema.StringAttribute{Computed: true, MarkdownDescription: "What to write in a rule's `source` or `dest` (an IP set's name is prefixed with `+`)."},
						"scope":   schema.StringAttribute{Computed: true, MarkdownDescription: "Where it is defined: `dc` (the cluster), `sdn` (an SDN virtual network) or `guest`."},
						"comment": schema.StringAttribute{Computed: true, MarkdownDescription: "Its comment; null when it has none."},
					},
				},
			},
		},
	}
}

func (d *refsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		d.client = pd.Client
	}
}

func (d *refsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m refsModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	scope := scopeFromModel(types.StringNull(), m.VMID)
	target, ok := resolveFirewall(ctx, d.client, scope, &resp.Diagnostics)
	if !ok {
		return
	}
	refs, err := d.client.FirewallRefs(ctx, target, m.Type.ValueString())
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To List Firewall References", err)
		return
	}
	m.ID = types.StringValue(scope.String())
	m.Refs = refsFromAPI(refs)
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

// scopeRank orders references as PVE's handlers concatenate their lists
// (pve-firewall src/PVE/API2/Firewall/VM.pm refs: dc, sdn, guest); within a
// scope PVE lists in hash order, which the sort replaces.
var scopeRank = map[string]int{"dc": 0, "sdn": 1, "guest": 2}

func refsFromAPI(refs []pveapi.FirewallRef) []refModel {
	sorted := append([]pveapi.FirewallRef(nil), refs...)
	sort.SliceStable(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		if ra, rb := rank(a.Scope), rank(b.Scope); ra != rb {
			return ra < rb
		}
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		return a.Name < b.Name
	})
	out := make([]refModel, 0, len(sorted))
	for _, r := range sorted {
		out = append(out, refModel{
			Type:    types.StringValue(r.Type),
			Name:    types.StringValue(r.Name),
			Ref:     types.StringValue(r.Ref),
			Scope:   nullIfEmpty(r.Scope),
			Comment: nullIfEmpty(r.Comment),
		})
	}
	return out
}

func rank(scope string) int {
	if r, ok := scopeRank[scope]; ok {
		return r
	}
	return len(scopeRank)
}

func nullIfEmpty(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}
