package replication

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

var (
	_ resource.Resource                = (*jobResource)(nil)
	_ resource.ResourceWithConfigure   = (*jobResource)(nil)
	_ resource.ResourceWithImportState = (*jobResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*jobResource)(nil)
)

// maxCreateAttempts bounds the retries of a create whose chosen job number
// another job took meanwhile.
const maxCreateAttempts = 5

// defaultDeleteTimeout bounds the wait for PVE to remove a deleted job:
// the job's next run removes it, and PVE's scheduler runs due jobs every
// minute.
const defaultDeleteTimeout = 10 * time.Minute

// NewJobResource is the pve_replication_job constructor registered with
// the provider.
func NewJobResource() resource.Resource {
	return fwutil.WithIdentity(&jobResource{}, jobIdentity)
}

// jobIdentity is a replication job's key: the guest and the job's number,
// the parts of its import id VMID-NUMBER.
var jobIdentity = fwutil.Identity{
	Attributes: []fwutil.IdentityAttribute{
		{Name: "vmid", Int: true, Description: "The VMID of the guest the job replicates, as `vmid`."},
		{Name: "job_number", Int: true, Description: "The job's number among the guest's jobs, as `job_number`."},
	},
	ImportID: func(v map[string]string) string { return v["vmid"] + "-" + v["job_number"] },
}

type jobResource struct {
	client *pveapi.Client
}

func (r *jobResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_replication_job"
}

func (r *jobResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A storage replication job: PVE copies a guest's volumes to another node on a schedule, " +
			"so that the guest can be started or migrated there quickly (for example by HA after a node failure). " +
			"PVE replicates only volumes on local ZFS (`zfspool`) storages; a guest with a disk on another local storage " +
			"is refused at plan time when the provider can see it (set `replicate=0` on such a disk to leave it out). " +
			"\n\nDestroying the job asks PVE to remove it: PVE's next run of the job (its scheduler runs due jobs every " +
			"minute on the guest's node) deletes the replication snapshots and the replicated volumes on the target, then " +
			"the job. The destroy waits for that, so the same job can be created again in the same apply." +
			"\n\nWhen the guest moves to the job's target (a migration, or HA after a node failure), PVE turns the job " +
			"around: it then replicates from the target back to the node the guest left. The provider follows that: " +
			"`target` keeps its declared value, `source` shows the node the guest now runs on (equal to `target` while the " +
			"job runs in reverse), and the plan stays empty. When the guest moves back, PVE turns the job around again." +
			"\n\n**Changes that replace the job:** `vmid`, `job_number`, `target` (PVE cannot change a job's target).",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The job id PVE uses, `<vmid>-<job_number>` (for example `100-0`).",
				Computed:            true,
			},
			"vmid": schema.Int64Attribute{
				MarkdownDescription: "The guest (VM or container) to replicate. Changing it replaces the job.",
				Required:            true,
				Validators:          []validator.Int64{int64validator.Between(100, 999999999)},
				PlanModifiers:       []planmodifier.Int64{int64planmodifier.RequiresReplace()},
			},
			"job_number": schema.Int64Attribute{
				MarkdownDescription: "The job's number among the guest's jobs, the `N` of the job id `<vmid>-N`. " +
					"When not set, the provider takes the lowest number the guest's jobs do not use. Changing it replaces the job.",
				Optional: true,
				Computed: true,
				Validators: []validator.Int64{
					int64validator.Between(0, wire.MaxReplicationJobNum),
				},
				PlanModifiers: []planmodifier.Int64{int64planmodifier.RequiresReplaceIfConfigured()},
			},
			"target": schema.StringAttribute{
				MarkdownDescription: "The node to replicate to; it must differ from the guest's node, and a guest has at most " +
					"one job per target. Changing it replaces the job.",
				Required:      true,
				Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"schedule": schema.StringAttribute{
				MarkdownDescription: "When the job runs, as a PVE calendar event (for example `*/15`, every 15 minutes, " +
					"or `mon..fri 22:00`). When not set, PVE runs the job every 15 minutes (`*/15`).",
				Optional: true,
				Validators: []validator.String{
					stringvalidator.LengthBetween(1, wire.MaxReplicationScheduleLength),
					fwutil.Problem(wire.CalendarEventProblem, "must be a PVE calendar event"),
				},
			},
			"rate": schema.Float64Attribute{
				MarkdownDescription: "Bandwidth limit of the transfer, in megabytes per second (at least 1). " +
					"When not set, the transfer is not limited.",
				Optional:   true,
				Validators: []validator.Float64{float64validator.AtLeast(wire.MinReplicationRate)},
			},
			"comment": schema.StringAttribute{
				MarkdownDescription: "Free-text comment.",
				Optional:            true,
				Validators: []validator.String{
					stringvalidator.LengthBetween(1, wire.MaxReplicationCommentLength),
				},
			},
			"disable": schema.BoolAttribute{
				MarkdownDescription: "`true` stops the job's runs while keeping it and its replicated data.",
				Optional:            true,
			},
			"source": schema.StringAttribute{
				MarkdownDescription: "The node PVE replicates from: the guest's node when the job was created or last ran. " +
					"Equal to `target` after the guest moved to the target node and PVE turned the job around.",
				Computed:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Delete: true}),
		},
	}
}

func (r *jobResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		r.client = pd.Client
	}
}

func (r *jobResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan jobModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	vmid := int(plan.VMID.ValueInt64())
	chosen := plan.JobNumber.IsNull() || plan.JobNumber.IsUnknown()
	var id string
	for attempt := 0; ; attempt++ {
		if chosen {
			jobs, err := r.client.ReplicationJobs(ctx)
			if err != nil {
				fwutil.AddAPIError(&resp.Diagnostics, "Unable To List Replication Jobs", err)
				return
			}
			plan.JobNumber = types.Int64Value(int64(firstFreeJobNumber(jobs, vmid)))
		}
		id = plan.jobID()
		err := r.client.CreateReplicationJob(ctx, id, plan.Target.ValueString(), plan.createParams())
		if err == nil {
			break
		}
		if !pveapi.IsReplicationJobExists(err) {
			fwutil.AddAPIError(&resp.Diagnostics, "Unable To Create Replication Job", err)
			return
		}
		// A job destroyed outside Terraform (or by an interrupted run)
		// holds its id until its removal run: wait for it, then create.
		if r.waitMarkedJobGone(ctx, id, &resp.Diagnostics) && attempt < maxCreateAttempts {
			continue
		}
		if resp.Diagnostics.HasError() {
			return
		}
		// Another job of the same apply took the number chosen: take the
		// next free one.
		if chosen && attempt < maxCreateAttempts {
			continue
		}
		resp.Diagnostics.AddAttributeError(path.Root("job_number"), "Replication Job Already Exists", fmt.Sprintf(
			"Replication job %s already exists in PVE. Import it (an import block with id = %q), "+
				"or choose another job_number.\n\nPVE said: %s", id, id, fwutil.APIErrorDetail(err)))
		return
	}
	if r.readBack(ctx, id, &plan, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	}
}

// waitMarkedJobGone waits, within a minute and a half, for a job that is
// marked for removal to go. It reports false with no error when the job is
// not marked (a real conflict).
func (r *jobResource) waitMarkedJobGone(ctx context.Context, id string, diags *diag.Diagnostics) bool {
	job, err := r.client.GetReplicationJob(ctx, id)
	if pveapi.IsNoSuchReplicationJob(err) {
		return true
	}
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read Replication Job", err)
		return false
	}
	if job.RemoveJob == "" {
		return false
	}
	wctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	if _, err := r.client.WaitReplicationJobGone(wctx, id); err != nil {
		diags.AddError("Replication Job Still Being Removed", fmt.Sprintf(
			"Replication job %s is marked for removal and PVE has not removed it yet: its next run on the guest's node "+
				"removes it. Check the job's log on that node, then run apply again.\n\n%v", id, err))
		return false
	}
	return true
}

func (r *jobResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state jobModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	job, err := r.client.GetReplicationJob(ctx, state.ID.ValueString())
	if pveapi.IsNoSuchReplicationJob(err) || err == nil && job.RemoveJob != "" {
		// A job marked for removal is on its way out.
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read Replication Job", err)
		return
	}
	state.fromAPI(job)
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

// maxDigestRetries bounds the retries of an update refused because
// another job of replication.cfg changed between its read and the write
// (the digest covers the whole file, so parallel updates of different
// jobs collide).
const maxDigestRetries = 3

func (r *jobResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state jobModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := state.ID.ValueString()
	set, remove := updateParams(&state, &plan)
	if len(set) > 0 || len(remove) > 0 {
		var err error
		for attempt := 0; ; attempt++ {
			var job *pveapi.ReplicationJob
			job, err = r.client.GetReplicationJob(ctx, id)
			if err == nil && job.RemoveJob != "" {
				err = errors.New("the job is marked for removal")
			}
			if err == nil {
				err = r.client.UpdateReplicationJob(ctx, id, set, remove, job.Digest)
			}
			if !pveapi.IsReplicationConfigChanged(err) || attempt >= maxDigestRetries {
				break
			}
		}
		if err != nil {
			fwutil.AddAPIError(&resp.Diagnostics, "Unable To Update Replication Job", err)
			return
		}
	}
	if r.readBack(ctx, id, &plan, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	}
}

// readBack reads the job after a write, so state holds what PVE keeps.
func (r *jobResource) readBack(ctx context.Context, id string, m *jobModel, diags *diag.Diagnostics) bool {
	job, err := r.client.GetReplicationJob(ctx, id)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read Replication Job After Writing It", err)
		return false
	}
	m.fromAPI(job)
	return true
}

func (r *jobResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state jobModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := state.Timeouts.Delete(ctx, defaultDeleteTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	id := state.ID.ValueString()
	if err := r.client.DeleteReplicationJob(ctx, id, false, false); err != nil {
		if pveapi.IsNoSuchReplicationJob(err) {
			return
		}
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Delete Replication Job", err)
		return
	}
	if _, err := r.client.WaitReplicationJobGone(ctx, id); err != nil {
		resp.Diagnostics.AddError("Replication Job Not Removed Yet", fmt.Sprintf(
			"PVE marked replication job %s for removal, but its removal run has not finished within %s. "+
				"The job's next run on the guest's node removes the replication snapshots, the replicated volumes on %s "+
				"and then the job; it cannot run while that node is offline, and fails while %s is unreachable "+
				"(see the job's log in the guest's Replication panel). Run destroy again once the run can succeed.\n\n%v",
			id, timeout, state.Target.ValueString(), state.Target.ValueString(), err))
	}
}

func (r *jobResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	vmid, jobnum, err := wire.ParseReplicationJobID(req.ID)
	if err != nil {
		resp.Diagnostics.AddError("Invalid Import ID", "Import pve_replication_job by its job id, <vmid>-<job number> "+
			"(for example 100-0): "+err.Error()+".")
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("vmid"), int64(vmid))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("job_number"), int64(jobnum))...)
}
