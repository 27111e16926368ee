// Package provider is the pve provider: its schema, its configuration and the
// list of resources and data sources it serves.
package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/access"
	"github.com/proxops/terraform-provider-pve/internal/service/backupjob"
	"github.com/proxops/terraform-provider-pve/internal/service/cluster"
	"github.com/proxops/terraform-provider-pve/internal/service/firewall"
	"github.com/proxops/terraform-provider-pve/internal/service/functions"
	"github.com/proxops/terraform-provider-pve/internal/service/guest"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/service/ha"
	"github.com/proxops/terraform-provider-pve/internal/service/lxc"
	"github.com/proxops/terraform-provider-pve/internal/service/mapping"
	"github.com/proxops/terraform-provider-pve/internal/service/pool"
	"github.com/proxops/terraform-provider-pve/internal/service/qemu"
	"github.com/proxops/terraform-provider-pve/internal/service/replication"
	"github.com/proxops/terraform-provider-pve/internal/service/sdn"
	"github.com/proxops/terraform-provider-pve/internal/service/snapshot"
	"github.com/proxops/terraform-provider-pve/internal/service/storage"
	"github.com/proxops/terraform-provider-pve/internal/service/storagecfg"
)

// RegistryAddress is where the provider is published.
const RegistryAddress = "registry.terraform.io/proxops/pve"

var (
	_ provider.Provider                  = (*pveProvider)(nil)
	_ provider.ProviderWithFunctions     = (*pveProvider)(nil)
	_ provider.ProviderWithActions       = (*pveProvider)(nil)
	_ provider.ProviderWithListResources = (*pveProvider)(nil)
)

type pveProvider struct {
	version string
	getenv  func(string) string
}

// New returns a constructor of the provider, as providerserver expects.
func New(version string) func() provider.Provider {
	return NewWithEnv(version, nil)
}

// NewWithEnv is New with the environment lookup injected, so tests can give
// each provider instance its own environment without touching the process's.
func NewWithEnv(version string, getenv func(string) string) func() provider.Provider {
	return func() provider.Provider {
		return &pveProvider{version: version, getenv: getenv}
	}
}

type providerModel struct {
	Endpoint       types.String `tfsdk:"endpoint"`
	APIToken       types.String `tfsdk:"api_token"`
	Username       types.String `tfsdk:"username"`
	Password       types.String `tfsdk:"password"`
	CAFile         types.String `tfsdk:"ca_file"`
	Insecure       types.Bool   `tfsdk:"insecure"`
	TLSServerName  types.String `tfsdk:"tls_server_name"`
	RequestTimeout types.String `tfsdk:"request_timeout"`
	VMIDRange      types.Object `tfsdk:"vmid_range"`
}

type vmidRangeModel struct {
	Min types.Int64 `tfsdk:"min"`
	Max types.Int64 `tfsdk:"max"`
}

func (p *pveProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "pve"
	resp.Version = p.version
}

func (p *pveProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = providerSchema()
}

func (p *pveProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var model providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &model)...)
	if resp.Diagnostics.HasError() {
		return
	}

	settings, diags := resolveSettings(ctx, model, p.lookupEnv)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	settings.client.UserAgent = "terraform-provider-pve/" + p.version + " (+https://" + RegistryAddress + ")"
	settings.client.Logger = fwutil.APILogger{}

	client, err := pveapi.New(settings.client)
	if err != nil {
		resp.Diagnostics.AddError("Invalid Provider Configuration", err.Error())
		return
	}

	data := fwutil.NewProviderData(client, settings.vmidRange)
	resp.ResourceData = data
	resp.DataSourceData = data
	resp.ActionData = data
	resp.ListResourceData = data
}

func (p *pveProvider) Resources(_ context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		pool.NewPoolResource,
		firewall.NewRulesResource,
		firewall.NewSecurityGroupResource,
		qemu.NewVMResource,
		qemu.NewVMTemplateResource,
		lxc.NewContainerResource,
		lxc.NewContainerTemplateResource,
		storage.NewISOResource,
		storage.NewOSTemplateResource,
		storage.NewDiskImageResource,
		firewall.NewOptionsResource,
		firewall.NewAliasResource,
		firewall.NewIPSetResource,
		access.NewAPITokenResource,
		access.NewUserResource,
		access.NewGroupResource,
		access.NewRoleResource,
		access.NewACLResource,
		access.NewRealmResource,
		ha.NewGroupResource,
		ha.NewRuleResource,
		ha.NewHAResourceResource,
		replication.NewJobResource,
		mapping.NewPCIMappingResource,
		mapping.NewUSBMappingResource,
		mapping.NewDirMappingResource,
		backupjob.NewBackupJobResource,
		storagecfg.NewDirResource,
		storagecfg.NewNFSResource,
		storagecfg.NewCIFSResource,
		storagecfg.NewLVMResource,
		storagecfg.NewLVMThinResource,
		storagecfg.NewZFSPoolResource,
		storagecfg.NewZFSResource,
		storagecfg.NewISCSIResource,
		storagecfg.NewISCSIDirectResource,
		storagecfg.NewRBDResource,
		storagecfg.NewCephFSResource,
		storagecfg.NewPBSResource,
		storagecfg.NewBTRFSResource,
		storagecfg.NewESXiResource,
		sdn.NewControllerResource,
		sdn.NewIPAMResource,
		sdn.NewDNSResource,
		sdn.NewFabricResource,
		sdn.NewFabricNodeResource,
		sdn.NewApplierResource,
		sdn.NewZoneResource,
		sdn.NewVnetResource,
		sdn.NewSubnetResource,
		snapshot.NewVMSnapshotResource,
		snapshot.NewContainerSnapshotResource,
	}
}

// ListResources are the resource types `terraform query` can list
// (Terraform 1.14 and later).
func (p *pveProvider) ListResources(_ context.Context) []func() list.ListResource {
	return []func() list.ListResource{
		qemu.NewVMListResource,
		qemu.NewVMTemplateListResource,
		lxc.NewContainerListResource,
		lxc.NewContainerTemplateListResource,
		pool.NewPoolListResource,
		storage.NewISOListResource,
		storage.NewOSTemplateListResource,
		storage.NewDiskImageListResource,
	}
}

func (p *pveProvider) DataSources(_ context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		cluster.NewVersionDataSource,
		cluster.NewNodesDataSource,
		guest.LookupDataSource(guestops.VM),
		guest.ListDataSource(guestops.VM),
		guest.LookupDataSource(guestops.Container),
		guest.ListDataSource(guestops.Container),
		storage.NewStoragesDataSource,
		firewall.NewMacrosDataSource,
		firewall.NewRefsDataSource,
		access.NewProviderPrivilegesDataSource,
		access.NewUsersDataSource,
		access.NewGroupsDataSource,
		access.NewRolesDataSource,
		access.NewPermissionsDataSource,
		ha.NewHAStatusDataSource,
		backupjob.NewBackupJobsDataSource,
		backupjob.NewGuestsNotBackedUpDataSource,
		sdn.NewZonesDataSource,
		sdn.NewVnetsDataSource,
	}
}

// Actions are the provider's actions (Terraform 1.14 and later).
func (p *pveProvider) Actions(_ context.Context) []func() action.Action {
	return []func() action.Action{
		snapshot.NewPowerAction,
		snapshot.NewSnapshotAction,
	}
}

// Functions are the provider-defined functions (provider::pve::NAME). They
// need no configuration: Terraform may call them before Configure.
func (p *pveProvider) Functions(_ context.Context) []func() function.Function {
	return functions.All()
}

func (p *pveProvider) lookupEnv(name string) string {
	if p.getenv != nil {
		return p.getenv(name)
	}
	return osGetenv(name)
}
