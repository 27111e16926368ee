package access

import (
	"context"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

var _ datasource.DataSourceWithConfigure = (*usersDataSource)(nil)

// NewUsersDataSource is the pve_users constructor.
func NewUsersDataSource() datasource.DataSource {
	return &usersDataSource{}
}

type usersDataSource struct {
	client *pveapi.Client
}

type usersModel struct {
	ID      types.String `tfsdk:"id"`
	Enabled types.Bool   `tfsdk:"enabled"`
	Users   []userEntry  `tfsdk:"users"`
}

type userEntry struct {
	UserID    types.String      `tfsdk:"userid"`
	RealmType types.String      `tfsdk:"realm_type"`
	Enabled   types.Bool        `tfsdk:"enabled"`
	Expire    timetypes.RFC3339 `tfsdk:"expire"`
	FirstName types.String      `tfsdk:"first_name"`
	LastName  types.String      `tfsdk:"last_name"`
	Email     types.String      `tfsdk:"email"`
	Comment   types.String      `tfsdk:"comment"`
	Groups    types.Set         `tfsdk:"groups"`
	Tokens    types.Set         `tfsdk:"tokens"`
}

// userEntryFromAPI is one user of the list.
func userEntryFromAPI(u pveapi.User) userEntry {
	tokens := make([]string, 0, len(u.Tokens))
	for _, t := range u.Tokens {
		tokens = append(tokens, wire.JoinTokenID(u.UserID, t.TokenID))
	}
	return userEntry{
		UserID:    types.StringValue(u.UserID),
		RealmType: textFromAPI(u.RealmType),
		Enabled:   types.BoolValue(bool(u.Enable)),
		Expire:    expireFromAPI(int64(u.Expire)),
		FirstName: textFromAPI(u.Firstname),
		LastName:  textFromAPI(u.Lastname),
		Email:     textFromAPI(u.Email),
		Comment:   textFromAPI(u.Comment),
		Groups:    computedIDSet(u.Groups),
		Tokens:    computedIDSet(tokens),
	}
}

func (d *usersDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_users"
}

func (d *usersDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	computedText := func(description string) schema.StringAttribute {
		return schema.StringAttribute{MarkdownDescription: description, Computed: true}
	}
	computedSet := func(description string) schema.SetAttribute {
		return schema.SetAttribute{MarkdownDescription: description, ElementType: types.StringType, Computed: true}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "The PVE users the provider may see: those in groups where it has `User.Modify` or `Sys.Audit` " +
			"(all of them with either on `/access/groups`), and always its own user. The legacy two-factor `keys` of a " +
			"user are left out: they may hold TOTP secrets.",
		Attributes: map[string]schema.Attribute{
			"id": computedText("`users`, or `users:enabled` / `users:disabled` with the filter."),
			"enabled": schema.BoolAttribute{
				MarkdownDescription: "Only enabled (`true`) or only disabled (`false`) users. Left out, all of them.",
				Optional:            true,
			},
			"users": schema.ListNestedAttribute{
				MarkdownDescription: "The users, sorted by user id.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"userid":     computedText("User id, `USER@REALM`."),
						"realm_type": computedText("Type of the user's realm: `pam`, `pve`, `ldap`, `ad` or `openid`."),
						"enabled": schema.BoolAttribute{
							MarkdownDescription: "Whether the user may log in and use its tokens.",
							Computed:            true,
						},
						"expire": schema.StringAttribute{
							MarkdownDescription: "When the account expires (RFC 3339, UTC); null if never.",
							CustomType:          timetypes.RFC3339Type{},
							Computed:            true,
						},
						"first_name": computedText("First name."),
						"last_name":  computedText("Last name."),
						"email":      computedText("Email address."),
						"comment":    computedText("Comment."),
						"groups":     computedSet("The groups the user is a member of."),
						"tokens":     computedSet("The full ids of the user's API tokens, `USER@REALM!TOKEN`."),
					},
				},
			},
		},
	}
}

func (d *usersDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		d.client = pd.Client
	}
}

func (d *usersDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var config usersModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	users, err := d.client.Users(ctx, true)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To List Users", err)
		return
	}
	sort.Slice(users, func(i, j int) bool { return users[i].UserID < users[j].UserID })
	config.ID = types.StringValue("users")
	config.Users = []userEntry{}
	// PVE's enabled parameter filters by the same flag (src/PVE/API2/User.pm
	// index); the client lists them all and the filter applies here.
	for _, u := range users {
		if !config.Enabled.IsNull() && bool(u.Enable) != config.Enabled.ValueBool() {
			continue
		}
		config.Users = append(config.Users, userEntryFromAPI(u))
	}
	if !config.Enabled.IsNull() {
		if config.Enabled.ValueBool() {
			config.ID = types.StringValue("users:enabled")
		} else {
			config.ID = types.StringValue("users:disabled")
		}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, config)...)
}
