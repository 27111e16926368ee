package backupjob

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/boolvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

var (
	_ resource.Resource                   = (*backupJobResource)(nil)
	_ resource.ResourceWithConfigure      = (*backupJobResource)(nil)
	_ resource.ResourceWithImportState    = (*backupJobResource)(nil)
	_ resource.ResourceWithValidateConfig = (*backupJobResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*backupJobResource)(nil)
)

// NewBackupJobResource is the pve_backup_job constructor.
func NewBackupJobResource() resource.Resource {
	return fwutil.WithIdentity(&backupJobResource{}, backupJobIdentity)
}

// backupJobIdentity is a backup job's key, its job id (the import id).
var backupJobIdentity = fwutil.Identity{Attributes: []fwutil.IdentityAttribute{{
	Name: "id", Description: "The job's id, as `id` (for example `backup-1a2b3c4d-5e6f`).",
}}}

type backupJobResource struct {
	client *pveapi.Client
}

func (r *backupJobResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_backup_job"
}

func optionalString(desc string, validators ...validator.String) schema.StringAttribute {
	return schema.StringAttribute{MarkdownDescription: desc, Optional: true, Validators: validators}
}

func optionalInt(desc string, validators ...validator.Int64) schema.Int64Attribute {
	return schema.Int64Attribute{MarkdownDescription: desc, Optional: true, Validators: validators}
}

func optionalBool(desc string) schema.BoolAttribute {
	return schema.BoolAttribute{MarkdownDescription: desc, Optional: true}
}

func (r *backupJobResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	rootOnly := " Only root@pam logged in with a password may set it: under an API token, root's own included, PVE refuses it and so does the plan."
	resp.Schema = schema.Schema{
		MarkdownDescription: "A cluster backup job (Datacenter → Backup): which guests PVE backs up, when, where and how. " +
			"Exactly one of `all`, `vmids` and `pool` selects the guests.\n\n" +
			"A guest destroyed with its purge (as `pve_vm` and `pve_container` do) leaves the `vmids` and `exclude` lists of every job, " +
			"and PVE deletes a job whose `vmids` become empty. Refer to guests as `pve_vm.NAME.vmid` so that removing a guest from the " +
			"configuration also removes it from the job in the same apply.\n\n" +
			"**Changes that replace the job:** `id`.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "Job id: a letter, then letters, digits, `-` and `_` (2 to 50 characters). Left out, the provider picks " +
					"`backup-XXXXXXXX-XXXX` as PVE's web UI does. Changing it replaces the job.",
				Optional: true,
				Computed: true,
				PlanModifiers: []planmodifier.String{
					stringplanmodifier.UseStateForUnknown(),
					stringplanmodifier.RequiresReplace(),
				},
				Validators: []validator.String{fwutil.Format(wire.IsBackupJobID,
					"must start with a letter, then letters, digits, '-' or '_', 2 to 50 characters")},
			},
			"schedule": schema.StringAttribute{
				MarkdownDescription: "When the job runs: a PVE calendar event such as `21:00`, `sat 02:00`, `mon..fri 23:30` or `*-*-1 03:00`. Checked at plan time.",
				Required:            true,
				Validators: []validator.String{
					stringvalidator.LengthAtMost(128),
					fwutil.Problem(wire.CalendarEventProblem, "must be a PVE calendar event"),
				},
			},
			"enabled": schema.BoolAttribute{
				MarkdownDescription: "Whether the job runs on its schedule. Defaults to true.",
				Optional:            true,
				Computed:            true,
				Default:             booldefault.StaticBool(true),
			},
			"comment":       optionalString("Description of the job.", stringvalidator.LengthBetween(1, 512)),
			"repeat_missed": optionalBool("Run the job as soon as possible when a run was missed while the scheduler was not running."),
			"all": optionalBool("Set to true to back up every guest of the cluster (or of `node`), except those in `exclude`. " +
				"Exclusive with `vmids` and `pool`; leave it out rather than set it to false."),
			"vmids": schema.SetAttribute{
				MarkdownDescription: "The guests to back up, by VMID. Exclusive with `all` and `pool`.",
				Optional:            true,
				ElementType:         types.Int64Type,
				Validators: []validator.Set{
					setvalidator.SizeAtLeast(1),
					setvalidator.ValueInt64sAre(int64validator.Between(wire.MinVMID, wire.MaxVMID)),
				},
			},
			"pool": optionalString("Back up the guests of this pool (its members when the job runs). Exclusive with `all` and `vmids`.",
				fwutil.Format(wire.IsPoolID, "must be a pool name")),
			"exclude": schema.SetAttribute{
				MarkdownDescription: "With `all`: the guests to leave out, by VMID.",
				Optional:            true,
				ElementType:         types.Int64Type,
				Validators: []validator.Set{
					setvalidator.SizeAtLeast(1),
					setvalidator.ValueInt64sAre(int64validator.Between(wire.MinVMID, wire.MaxVMID)),
				},
			},
			"node": optionalString("Run only on this node: only the guests living there are backed up.",
				fwutil.Format(wire.IsNodeName, "must be a PVE node name")),
			"storage": optionalString("Storage the backups go to (content `backup`, or a Proxmox Backup Server). PVE uses `local` when left out.",
				fwutil.Format(wire.IsStorageID, "must be a storage id")),
			"mode": optionalString("How running guests are backed up: `snapshot` (live, PVE's default), `suspend` or `stop`.",
				stringvalidator.OneOf("snapshot", "suspend", "stop")),
			"compress": optionalString("Compression of the archives: `0` (none), `1`/`lzo`, `gzip` or `zstd`. Not used with a Proxmox Backup Server.",
				stringvalidator.OneOf("0", "1", "gzip", "lzo", "zstd")),
			"zstd": optionalInt("Zstd threads; 0 uses half of the node's cores.", int64validator.AtLeast(0)),
			"notes_template": optionalString("Notes of each backup, with the variables `{{cluster}}`, `{{guestname}}`, `{{node}}` and `{{vmid}}`; "+
				"`\\n` starts a new line. Needs `storage`.",
				stringvalidator.LengthBetween(1, 1024),
				stringvalidator.AlsoRequires(path.MatchRoot("storage")),
				fwutil.Problem(wire.NotesTemplateProblem, "must be a PVE notes template")),
			"protected": schema.BoolAttribute{
				MarkdownDescription: "Mark the new backups protected (not pruned, not deletable until unprotected). Needs `storage`.",
				Optional:            true,
				Validators:          []validator.Bool{boolvalidator.AlsoRequires(path.MatchRoot("storage"))},
			},
			"retention": fwutil.RetentionAttribute("Which backups to keep (PVE's prune-backups), instead of the storage's retention settings."),
			"pbs_change_detection_mode": optionalString("Container backups to a Proxmox Backup Server: `legacy`, `data` or `metadata`.",
				stringvalidator.OneOf("legacy", "data", "metadata")),
			"notification_mode": optionalString("How PVE notifies: `auto` (PVE's default: mail when `mailto` is set, else the notification system), "+
				"`legacy-sendmail` (mail to `mailto`) or `notification-system` (notification targets and matchers; `mailto` is ignored).",
				stringvalidator.OneOf("auto", "legacy-sendmail", "notification-system")),
			"mailto": schema.SetAttribute{
				MarkdownDescription: "Mail addresses or users to notify (deprecated by PVE in favour of notification targets).",
				Optional:            true,
				ElementType:         types.StringType,
				Validators:          []validator.Set{setvalidator.SizeAtLeast(1)},
			},
			"mail_notification": optionalString("When to mail `mailto`: `always` or `failure`.", stringvalidator.OneOf("always", "failure")),
			"notification_policy": optionalString("PVE 8 only (removed in PVE 9, refused at plan there): when to notify "+
				"`notification_target`: `always`, `failure` or `never`. Deprecated by PVE 8 itself in favour of `notification_mode` and matchers.",
				stringvalidator.OneOf("always", "failure", "never")),
			"notification_target": optionalString("PVE 8 only (removed in PVE 9, refused at plan there): the notification endpoint or group to notify. "+
				"Deprecated by PVE 8 itself in favour of `notification_mode` and matchers.",
				fwutil.Format(wire.IsBackupJobID, "must be a notification target name")),
			"lockwait": optionalInt("Minutes to wait for the global vzdump lock (PVE's default: 180).", int64validator.AtLeast(0)),
			"stopwait": optionalInt("Minutes to wait for a guest to stop in `stop` mode (PVE's default: 10).", int64validator.AtLeast(0)),
			"remove":   optionalBool("Whether to prune older backups according to `retention` after a backup (PVE's default: true)."),
			"bwlimit":  optionalInt("I/O bandwidth limit in KiB/s; 0 for none.", int64validator.AtLeast(0)),
			"ionice":   optionalInt("I/O priority (0-8) of the backup process.", int64validator.Between(0, 8)),
			"fleecing": schema.SingleNestedAttribute{
				MarkdownDescription: "Backup fleecing (VMs only): blocks the guest writes during the backup are first copied to a fleecing image on `storage`.",
				Optional:            true,
				Attributes: map[string]schema.Attribute{
					"enabled": optionalBool("Whether fleecing is used. Needs `storage`."),
					"storage": optionalString("Storage of the fleecing images; a local storage with discard and thin provisioning is best.",
						fwutil.Format(wire.IsStorageID, "must be a storage id")),
				},
			},
			"performance": schema.SingleNestedAttribute{
				MarkdownDescription: "Performance settings of the backup.",
				Optional:            true,
				Attributes: map[string]schema.Attribute{
					"max_workers":     optionalInt("VMs: at most this many I/O workers at a time (1-256).", int64validator.Between(1, 256)),
					"pbs_entries_max": optionalInt("Containers to a Proxmox Backup Server: entries held in memory at a time.", int64validator.AtLeast(1)),
				},
			},
			"script":  optionalString("Hook script run by the backup (a path on the node)." + rootOnly),
			"tmpdir":  optionalString("Temporary directory of the backup." + rootOnly),
			"dumpdir": optionalString("Directory the backups are written to, instead of a storage." + rootOnly),
		},
	}
}

func (r *backupJobResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		r.client = pd.Client
	}
}

// newJobID is an id as PVE's web UI makes them ("backup-" and the first
// two groups of a random UUID): PVE's own fallback, a UUID given when the
// create has no id, is not returned by the create, so the provider could
// not find its job.
func newJobID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	h := hex.EncodeToString(b[:])
	return "backup-" + h[:8] + "-" + h[8:]
}

func (r *backupJobResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan backupJobModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if plan.ID.IsUnknown() || plan.ID.IsNull() {
		plan.ID = types.StringValue(newJobID())
	}
	id := plan.ID.ValueString()
	opts := plan.toOptions(ctx, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := r.client.CreateBackupJob(ctx, id, opts); err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Create Backup Job", err)
		return
	}
	if r.readBack(ctx, id, &plan, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	}
}

func (r *backupJobResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state backupJobModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	job, found, err := r.client.GetBackupJob(ctx, state.ID.ValueString())
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read Backup Job", err)
		return
	}
	if !found {
		resp.State.RemoveResource(ctx)
		return
	}
	state.fromOptions(job.Options)
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

func (r *backupJobResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state backupJobModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := state.ID.ValueString()
	plan.ID = state.ID
	to := plan.toOptions(ctx, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	job, found, err := r.client.GetBackupJob(ctx, id)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read Backup Job", err)
		return
	}
	if found {
		// The delta starts from what PVE holds now, not from the state: a
		// guest destroyed with its purge in this apply has already left
		// the job's lists. PVE has no digest for jobs, so a change made
		// outside Terraform since the refresh is looked for here.
		var current backupJobModel
		current.fromOptions(job.Options)
		from := current.toOptions(ctx, &resp.Diagnostics)
		if changed := changedOutside(state.toOptions(ctx, &resp.Diagnostics), from); len(changed) > 0 {
			resp.Diagnostics.AddError("Changed Outside Terraform", fmt.Sprintf(
				"Backup job %s changed outside Terraform since it was last read (%s). Nothing was changed: "+
					"run terraform plan again to see PVE's current settings and plan against them.", id, strings.Join(changed, ", ")))
			return
		}
		err = r.client.UpdateBackupJob(ctx, id, wire.BackupJobDelta(from, to))
		if err != nil && pveapi.IsBackupJobNotFound(err) {
			// A purge running beside this apply emptied and deleted it.
			err = r.client.CreateBackupJob(ctx, id, to)
		}
	} else {
		// PVE deletes a job whose guest list a purge emptied; the
		// configuration still wants it.
		err = r.client.CreateBackupJob(ctx, id, to)
	}
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Update Backup Job", err)
		return
	}
	if r.readBack(ctx, id, &plan, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	}
}

// readBack reads the job after a write, so state holds what PVE keeps.
func (r *backupJobResource) readBack(ctx context.Context, id string, m *backupJobModel, diags *diag.Diagnostics) bool {
	job, found, err := r.client.GetBackupJob(ctx, id)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read Backup Job After Writing It", err)
		return false
	}
	if !found {
		fwutil.AddVanishedAfterWrite(diags, "Backup Job", "Backup job "+id)
		return false
	}
	m.fromOptions(job.Options)
	return true
}

func (r *backupJobResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state backupJobModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := r.client.DeleteBackupJob(ctx, state.ID.ValueString()); err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Delete Backup Job", err)
	}
}

func (r *backupJobResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if !wire.IsBackupJobRef(req.ID) {
		resp.Diagnostics.AddError("Invalid Import ID",
			"Import pve_backup_job by its job id (for example \"backup-1a2b3c4d-5e6f\"), got "+req.ID+".")
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
	// Options without an attribute are named rather than dropped silently.
	// A failed read is left to the refresh.
	if job, found, err := r.client.GetBackupJob(ctx, req.ID); err == nil && found {
		if keys := unmanagedOptions(job.Options); len(keys) > 0 {
			resp.Diagnostics.AddWarning(fwutil.UnmanagedSummary, fmt.Sprintf(
				"Backup job %s has settings pve_backup_job has no attribute for: %s. Terraform neither shows nor changes them; they stay as they are.",
				req.ID, strings.Join(keys, ", ")))
		}
	}
}
