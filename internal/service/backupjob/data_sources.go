package backupjob

import (
	"context"
	"sort"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

var (
	_ datasource.DataSourceWithConfigure = (*backupJobsDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*notBackedUpDataSource)(nil)
)

// NewBackupJobsDataSource is the pve_backup_jobs constructor.
func NewBackupJobsDataSource() datasource.DataSource { return &backupJobsDataSource{} }

// NewGuestsNotBackedUpDataSource is the pve_guests_not_backed_up
// constructor.
func NewGuestsNotBackedUpDataSource() datasource.DataSource { return &notBackedUpDataSource{} }

type backupJobsDataSource struct{ client *pveapi.Client }

type backupJobsModel struct {
	ID   types.String     `tfsdk:"id"`
	Jobs []backupJobEntry `tfsdk:"jobs"`
}

type backupJobEntry struct {
	ID       types.String `tfsdk:"id"`
	Schedule types.String `tfsdk:"schedule"`
	Enabled  types.Bool   `tfsdk:"enabled"`
	Comment  types.String `tfsdk:"comment"`
	All      types.Bool   `tfsdk:"all"`
	VMIDs    types.Set    `tfsdk:"vmids"`
	Pool     types.String `tfsdk:"pool"`
	Exclude  types.Set    `tfsdk:"exclude"`
	Node     types.String `tfsdk:"node"`
	Storage  types.String `tfsdk:"storage"`
	Mode     types.String `tfsdk:"mode"`
	NextRun  types.String `tfsdk:"next_run"`
}

func (d *backupJobsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_backup_jobs"
}

func (d *backupJobsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	computed := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "The cluster's backup jobs, in PVE's order, with when each runs next.",
		Attributes: map[string]schema.Attribute{
			"id": computed("Always `backup-jobs`."),
			"jobs": schema.ListNestedAttribute{
				MarkdownDescription: "The backup jobs.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"id":       computed("Job id."),
					"schedule": computed("Calendar event of the job."),
					"enabled":  schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the job runs on its schedule."},
					"comment":  computed("Description of the job; null when none."),
					"all":      schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the job backs up every guest (but `exclude`)."},
					"vmids": schema.SetAttribute{Computed: true, ElementType: types.Int64Type,
						MarkdownDescription: "The guests the job lists; null when it selects by `all` or `pool`."},
					"pool": computed("Pool whose guests the job backs up; null when none."),
					"exclude": schema.SetAttribute{Computed: true, ElementType: types.Int64Type,
						MarkdownDescription: "Guests left out of `all`; null when none."},
					"node":     computed("Node the job is bound to; null when it runs cluster-wide."),
					"storage":  computed("Target storage; null when PVE's default (`local`)."),
					"mode":     computed("Backup mode; null when PVE's default (`snapshot`)."),
					"next_run": computed("When the job runs next (RFC 3339, UTC) as PVE computes it; null for a disabled job or when PVE does not tell."),
				}},
			},
		},
	}
}

func (d *backupJobsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		d.client = pd.Client
	}
}

func (d *backupJobsDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	jobs, err := d.client.BackupJobs(ctx)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To List Backup Jobs", err)
		return
	}
	m := backupJobsModel{ID: types.StringValue("backup-jobs"), Jobs: jobEntries(jobs)}
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

// jobEntries maps the listing, keeping PVE's order.
func jobEntries(jobs []pveapi.BackupJob) []backupJobEntry {
	out := make([]backupJobEntry, 0, len(jobs))
	for _, j := range jobs {
		var full backupJobModel
		full.fromOptions(j.Options)
		e := backupJobEntry{
			ID: types.StringValue(j.ID), Schedule: full.Schedule, Enabled: full.Enabled, Comment: full.Comment,
			All: types.BoolValue(full.All.ValueBool()), VMIDs: full.VMIDs, Pool: full.Pool, Exclude: full.Exclude,
			Node: full.Node, Storage: full.Storage, Mode: full.Mode, NextRun: types.StringNull(),
		}
		if j.NextRun > 0 {
			e.NextRun = types.StringValue(time.Unix(j.NextRun, 0).UTC().Format(time.RFC3339))
		}
		out = append(out, e)
	}
	return out
}

type notBackedUpDataSource struct{ client *pveapi.Client }

type notBackedUpModel struct {
	ID     types.String   `tfsdk:"id"`
	Guests []guestSummary `tfsdk:"guests"`
}

type guestSummary struct {
	VMID types.Int64  `tfsdk:"vmid"`
	Name types.String `tfsdk:"name"`
	Type types.String `tfsdk:"type"`
}

func (d *notBackedUpDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_guests_not_backed_up"
}

func (d *notBackedUpDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The guests no backup job covers, as PVE reports them (Datacenter → Backup → Guests without backup job), " +
			"sorted by VMID. Only guests the provider may audit are listed.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "Always `not-backed-up`."},
			"guests": schema.ListNestedAttribute{
				MarkdownDescription: "The guests without a backup job.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"vmid": schema.Int64Attribute{Computed: true, MarkdownDescription: "VMID of the guest."},
					"name": schema.StringAttribute{Computed: true, MarkdownDescription: "Name (VM) or hostname (container); null when unset."},
					"type": schema.StringAttribute{Computed: true, MarkdownDescription: "`qemu` (VM) or `lxc` (container)."},
				}},
			},
		},
	}
}

func (d *notBackedUpDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		d.client = pd.Client
	}
}

func (d *notBackedUpDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	list, err := d.client.GuestsNotBackedUp(ctx)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To List Guests Without Backup Job", err)
		return
	}
	m := notBackedUpModel{ID: types.StringValue("not-backed-up"), Guests: guestSummaries(list)}
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

func guestSummaries(list []pveapi.UnbackedGuest) []guestSummary {
	sorted := append([]pveapi.UnbackedGuest(nil), list...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].VMID < sorted[j].VMID })
	out := make([]guestSummary, 0, len(sorted))
	for _, g := range sorted {
		name := types.StringNull()
		if g.Name != "" {
			name = types.StringValue(string(g.Name))
		}
		out = append(out, guestSummary{VMID: types.Int64Value(int64(g.VMID)), Name: name, Type: types.StringValue(g.Type)})
	}
	return out
}
