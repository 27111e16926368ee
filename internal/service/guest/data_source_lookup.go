package guest

import (
	"context"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

var (
	_ datasource.DataSourceWithConfigure        = (*lookupDataSource)(nil)
	_ datasource.DataSourceWithConfigValidators = (*lookupDataSource)(nil)
)

// LookupDataSource is the constructor of the data source that finds one
// guest of the kind by vmid or by name: pve_vm for guestops.VM,
// pve_container for guestops.Container.
func LookupDataSource(kind guestops.Kind) func() datasource.DataSource {
	base := newDataSource(kind)
	return func() datasource.DataSource {
		return &lookupDataSource{dataSource: base}
	}
}

type lookupDataSource struct{ dataSource }

// dataSource is what the lookup and the list hold: the kind's words and
// the provider's client.
type dataSource struct {
	kind   *kindWords
	client *pveapi.Client
}

func newDataSource(kind guestops.Kind) dataSource {
	return dataSource{kind: wordsOf(kind)}
}

func (d *dataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		d.client = pd.Client
	}
}

func (d *lookupDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + strings.TrimPrefix(d.kind.Resource, "pve_")
}

func (d *lookupDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = d.kind.LookupSchema()
}

func (d *lookupDataSource) ConfigValidators(_ context.Context) []datasource.ConfigValidator {
	return d.kind.LookupConfigValidators()
}

// Read reads the two lookup arguments by path and writes the state as one
// object, since the name's attribute differs by kind.
func (d *lookupDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var (
		vmid types.Int64
		name types.String
	)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("vmid"), &vmid)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root(d.kind.NameKey), &name)...)
	if resp.Diagnostics.HasError() {
		return
	}
	entry, ok := d.kind.Lookup(ctx, d.client, vmid, name, &resp.Diagnostics)
	if !ok {
		return
	}
	summary, diags := d.kind.summaryObject(entry, d.kind.summaryAttrTypes())
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	attrTypes, values := summary.AttributeTypes(ctx), summary.Attributes()
	attrTypes["id"], values["id"] = types.StringType, types.StringValue(strconv.Itoa(entry.VMID.Int()))
	state, diags := types.ObjectValue(attrTypes, values)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}
