package access

import (
	"context"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

var _ datasource.DataSourceWithConfigure = (*groupsDataSource)(nil)

// NewGroupsDataSource is the pve_groups constructor.
func NewGroupsDataSource() datasource.DataSource {
	return &groupsDataSource{}
}

type groupsDataSource struct {
	client *pveapi.Client
}

type groupsModel struct {
	ID     types.String `tfsdk:"id"`
	Groups []groupEntry `tfsdk:"groups"`
}

type groupEntry struct {
	GroupID types.String `tfsdk:"groupid"`
	Comment types.String `tfsdk:"comment"`
	Members types.Set    `tfsdk:"members"`
}

func (d *groupsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_groups"
}

func (d *groupsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The PVE user groups the provider may see (those where it has `Sys.Audit`, `Group.Allocate` " +
			"or `User.Modify` on `/access/groups/GROUP`), with their members.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "Always `groups`.",
				Computed:            true,
			},
			"groups": schema.ListNestedAttribute{
				MarkdownDescription: "The groups, sorted by name.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"groupid": schema.StringAttribute{MarkdownDescription: "Group name.", Computed: true},
						"comment": schema.StringAttribute{MarkdownDescription: "Comment.", Computed: true},
						"members": schema.SetAttribute{
							MarkdownDescription: "User ids of the members.",
							ElementType:         types.StringType,
							Computed:            true,
						},
					},
				},
			},
		},
	}
}

func (d *groupsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		d.client = pd.Client
	}
}

func (d *groupsDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	groups, err := d.client.Groups(ctx)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To List Groups", err)
		return
	}
	sort.Slice(groups, func(i, j int) bool { return groups[i].GroupID < groups[j].GroupID })
	state := groupsModel{ID: types.StringValue("groups"), Groups: make([]groupEntry, 0, len(groups))}
	for _, g := range groups {
		state.Groups = append(state.Groups, groupEntry{
			GroupID: types.StringValue(g.GroupID),
			Comment: textFromAPI(g.Comment),
			Members: computedIDSet(g.Users),
		})
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}
