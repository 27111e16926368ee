package firewall

import (
	"context"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

var _ datasource.DataSourceWithConfigure = (*macrosDataSource)(nil)

// NewMacrosDataSource is the pve_firewall_macros constructor.
func NewMacrosDataSource() datasource.DataSource {
	return &macrosDataSource{}
}

type macrosDataSource struct {
	client *pveapi.Client
}

type macrosModel struct {
	ID     types.String `tfsdk:"id"`
	Names  []string     `tfsdk:"names"`
	Macros []macroModel `tfsdk:"macros"`
}

type macroModel struct {
	Name        types.String `tfsdk:"name"`
	Description types.String `tfsdk:"description"`
}

func (d *macrosDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_firewall_macros"
}

func (d *macrosDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The macros PVE's firewall knows, sorted by name. A firewall rule names one in its `macro` " +
			"to stand for the protocols and ports of a service (for example `SSH` or `HTTPS`). Any user may read them.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "Always `macros`.",
				Computed:            true,
			},
			"names": schema.ListAttribute{
				MarkdownDescription: "The macros' names, sorted.",
				ElementType:         types.StringType,
				Computed:            true,
			},
			"macros": schema.ListNestedAttribute{
				MarkdownDescription: "One entry per macro, sorted by name.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"name":        schema.StringAttribute{Computed: true, MarkdownDescription: "The macro's name, as a rule's `macro` takes it."},
						"description": schema.StringAttribute{Computed: true, MarkdownDescription: "What the macro allows, as PVE describes it."},
					},
				},
			},
		},
	}
}

func (d *macrosDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		d.client = pd.Client
	}
}

func (d *macrosDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	macros, err := d.client.FirewallMacros(ctx)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To List Firewall Macros", err)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, macrosFromAPI(macros))...)
}

// macrosFromAPI sorts PVE's list, which comes in hash order.
func macrosFromAPI(macros []pveapi.FirewallMacro) macrosModel {
	sorted := append([]pveapi.FirewallMacro(nil), macros...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Macro < sorted[j].Macro })
	m := macrosModel{ID: types.StringValue("macros"), Names: []string{}, Macros: []macroModel{}}
	for _, macro := range sorted {
		m.Names = append(m.Names, macro.Macro)
		m.Macros = append(m.Macros, macroModel{
			Name:        types.StringValue(macro.Macro),
			Description: types.StringValue(macro.Description),
		})
	}
	return m
}
