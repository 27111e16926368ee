package storage

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

var (
	_ resource.Resource                   = (*artifactResource)(nil)
	_ resource.ResourceWithConfigure      = (*artifactResource)(nil)
	_ resource.ResourceWithImportState    = (*artifactResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*artifactResource)(nil)
	_ resource.ResourceWithValidateConfig = (*artifactResource)(nil)
)

// Default timeouts: a download or upload of a large image takes a while.
const (
	defaultCreateTimeout = 30 * time.Minute
	defaultUpdateTimeout = 30 * time.Minute
	defaultDeleteTimeout = 5 * time.Minute
)

// NewISOResource is the pve_iso constructor.
func NewISOResource() resource.Resource {
	return fwutil.WithIdentity(&artifactResource{kind: isoKind}, artifactIdentity)
}

// NewOSTemplateResource is the pve_os_template constructor.
func NewOSTemplateResource() resource.Resource {
	return fwutil.WithIdentity(&artifactResource{kind: osTemplateKind}, artifactIdentity)
}

// NewDiskImageResource is the pve_disk_image constructor.
func NewDiskImageResource() resource.Resource {
	return fwutil.WithIdentity(&artifactResource{kind: diskImageKind}, artifactIdentity)
}

// artifactIdentity is an uploaded file's key: where it is and its name,
// the parts of its import id NODE/STORAGE/FILE.
var artifactIdentity = fwutil.Identity{
	Attributes: []fwutil.IdentityAttribute{
		{Name: "node", Description: "The node the file was uploaded through, as `node`."},
		{Name: "storage", Description: "The storage that holds the file, as `storage`."},
		{Name: "file_name", Description: "The file's name, as `file_name`."},
	},
	ImportID: func(v map[string]string) string { return importID(v["node"], v["storage"], v["file_name"]) },
}

// artifactResource is a file on a PVE storage that PVE downloads (W44) or
// Terraform uploads (W45), for one content type.
type artifactResource struct {
	kind   artifactKind
	client *pveapi.Client
}

func (r *artifactResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + r.kind.typeSuffix
}

func (r *artifactResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	k := r.kind
	resp.Schema = schema.Schema{
		MarkdownDescription: k.purpose + " PVE either downloads it from `url` or Terraform uploads `source_file`. " +
			"Import with `NODE/STORAGE/FILE`; an imported file has no `url` or `source_file` (PVE does not record where a file came from), " +
			"and setting one afterwards does not replace it." +
			"\n\n**Changes that replace the file:** `node`, `storage` and `file_name` (PVE cannot move or rename a stored file), and for a download " +
			"`url`, `checksum` and `checksum_algorithm` (a new source is a new file). " +
			"The plan warns first, naming the file deleted. A changed `source_file` is uploaded again in place.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "`NODE/STORAGE/FILE`, the import id.",
				Computed:            true,
			},
			"node": schema.StringAttribute{
				MarkdownDescription: "Node that downloads or receives the file. A file on shared storage is seen by every node. Changing it replaces the file.",
				Required:            true,
				Validators:          []validator.String{fwutil.Format(wire.IsNodeName, "must be a PVE node name")},
			},
			"storage": schema.StringAttribute{
				MarkdownDescription: fmt.Sprintf("Storage to keep the file on. It must be a file-based storage with content `%s`. Changing it replaces the file.", k.content),
				Required:            true,
				Validators:          []validator.String{fwutil.Format(wire.IsStorageID, "must be a storage id")},
			},
			"file_name": schema.StringAttribute{
				MarkdownDescription: fmt.Sprintf("File name on the storage, e.g. `%s`: letters, digits, `_`, `.` and `-`, ending in %s. Changing it replaces the file.",
					k.example, strings.Join(quoted(k.extensions), ", ")),
				Required:   true,
				Validators: []validator.String{fileNameValidator{kind: k}},
			},
			"url": schema.StringAttribute{
				MarkdownDescription: "HTTP(S) URL that PVE downloads the file from. Conflicts with `source_file`. Changing it downloads the file anew (a replacement).",
				Optional:            true,
				Validators: []validator.String{
					stringvalidator.RegexMatches(urlPattern, "must be an http:// or https:// URL"),
					stringvalidator.ConflictsWith(path.MatchRoot("source_file")),
				},
			},
			"checksum": schema.StringAttribute{
				MarkdownDescription: "Expected checksum of the file, in hex; PVE verifies it and keeps no file when it does not match. " +
					"Changing it for a downloaded file downloads it anew.",
				Optional:   true,
				Validators: []validator.String{stringvalidator.AlsoRequires(path.MatchRoot("checksum_algorithm"))},
			},
			"checksum_algorithm": schema.StringAttribute{
				MarkdownDescription: "Algorithm of `checksum`: `md5`, `sha1`, `sha224`, `sha256`, `sha384` or `sha512`.",
				Optional:            true,
				Validators: []validator.String{
					stringvalidator.OneOf("md5", "sha1", "sha224", "sha256", "sha384", "sha512"),
					stringvalidator.AlsoRequires(path.MatchRoot("checksum")),
				},
			},
			"verify_certificates": schema.BoolAttribute{
				MarkdownDescription: "Whether PVE verifies the TLS certificate of an https `url` (PVE's default: yes). Only with `url`.",
				Optional:            true,
			},
			"source_file": schema.StringAttribute{
				MarkdownDescription: "Local file to upload from where Terraform runs. Conflicts with `url`. " +
					"When its content changes (see `source_file_hash`), it is uploaded again in place.",
				Optional:   true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"source_file_hash": schema.StringAttribute{
				MarkdownDescription: "SHA-256 of `source_file`, computed when planning.",
				Computed:            true,
			},
			"volume": schema.StringAttribute{
				MarkdownDescription: fmt.Sprintf("Volume id, e.g. `local:%s/%s`.", k.content, k.example),
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"size": schema.Int64Attribute{
				MarkdownDescription: "Size of the file in bytes.",
				Computed:            true,
			},
			"ctime": schema.Int64Attribute{
				MarkdownDescription: "When the file was written, in seconds since the Unix epoch.",
				Computed:            true,
			},
			"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
		},
	}
}

func quoted(items []string) []string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = "`" + s + "`"
	}
	return out
}

func (r *artifactResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		r.client = pd.Client
	}
}

// ValidateConfig checks what single attribute validators cannot: the
// checksum's length for its algorithm, and verify_certificates only with a
// url.
func (r *artifactResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m artifactModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if known(m.Checksum) && known(m.ChecksumAlgorithm) {
		if err := checkChecksum(m.ChecksumAlgorithm.ValueString(), m.Checksum.ValueString()); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("checksum"), "Invalid Checksum", err.Error())
		}
	}
	if !m.VerifyCertificates.IsNull() && m.URL.IsNull() {
		resp.Diagnostics.AddAttributeError(path.Root("verify_certificates"), "Setting Without Effect",
			"verify_certificates applies to a download from url; remove it or set url.")
	}
}

func known(v types.String) bool { return !v.IsNull() && !v.IsUnknown() }

// ModifyPlan hashes source_file (so a changed local file plans an upload
// in place, W45), decides replacements (planChanges, W47) and plans the
// computed values.
func (r *artifactResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan artifactModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	switch {
	case plan.SourceFile.IsUnknown():
		plan.SourceFileHash = types.StringUnknown()
	case plan.SourceFile.IsNull():
		plan.SourceFileHash = types.StringNull()
	default:
		sum, err := fileSHA256(plan.SourceFile.ValueString())
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("source_file"), "Unable To Read Source File",
				fmt.Sprintf("The file to upload cannot be read: %v", err))
			return
		}
		plan.SourceFileHash = types.StringValue(sum)
	}

	if req.State.Raw.IsNull() {
		if plan.URL.IsNull() && plan.SourceFile.IsNull() {
			resp.Diagnostics.AddError("Missing File Source",
				fmt.Sprintf("A new %s needs url (PVE downloads it) or source_file (Terraform uploads it). "+
					"To manage a file that is already on the storage, import it as NODE/STORAGE/FILE.", r.kind.noun))
			return
		}
		r.planNewFile(&plan)
		resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
		return
	}

	var state artifactModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	change := planChanges(&state, &plan)
	if len(change.replace) > 0 {
		resp.RequiresReplace = append(resp.RequiresReplace, change.replace...)
		r.kind.warnReplacement(&state, change.replace, &resp.Diagnostics)
		r.planNewFile(&plan)
	} else {
		plan.ID, plan.Volume = state.ID, state.Volume
		plan.Size, plan.CTime = state.Size, state.CTime
		if change.reupload {
			plan.Size, plan.CTime = types.Int64Unknown(), types.Int64Unknown()
		}
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
}

// planNewFile plans the computed values of a file about to be written.
func (r *artifactResource) planNewFile(plan *artifactModel) {
	if known(plan.Node) && known(plan.Storage) && known(plan.FileName) {
		plan.setIdentity(r.kind)
	} else {
		plan.ID, plan.Volume = types.StringUnknown(), types.StringUnknown()
	}
	plan.Size, plan.CTime = types.Int64Unknown(), types.Int64Unknown()
}

func (r *artifactResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan artifactModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Create(ctx, defaultCreateTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	upid, ok := r.write(ctx, &plan, &resp.Diagnostics)
	if !ok {
		return
	}
	// Saved before waiting: a task that outlives the timeout may still
	// leave the file, and the next refresh finds it.
	plan.setIdentity(r.kind)
	plan.Size, plan.CTime = types.Int64Null(), types.Int64Null()
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	if !r.settle(ctx, upid, &plan, &resp.Diagnostics) {
		if ctx.Err() == nil {
			// The task failed: PVE kept no file (W44, W45).
			resp.State.RemoveResource(ctx)
		}
		return
	}
	if r.readBack(ctx, &plan, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	}
}

// write starts the download or the upload of the model's file.
func (r *artifactResource) write(ctx context.Context, m *artifactModel, diags *diag.Diagnostics) (string, bool) {
	var upid string
	var err error
	if !m.URL.IsNull() {
		upid, err = r.client.DownloadURL(ctx, m.toDownload(r.kind))
	} else {
		name := m.SourceFile.ValueString()
		open, size, openErr := pveapi.FileSource(name)
		if openErr != nil {
			diags.AddAttributeError(path.Root("source_file"), "Unable To Read Source File",
				fmt.Sprintf("The file to upload cannot be read: %v", openErr))
			return "", false
		}
		upid, err = r.client.Upload(ctx, m.toUpload(r.kind, open, size))
	}
	if err != nil {
		summary := fmt.Sprintf("Unable To Write %s", r.kind.title)
		if pveapi.IsFileNameRefused(err) {
			fwutil.AddAttributeAPIError(diags, path.Root("file_name"), summary, err)
		} else {
			fwutil.AddAPIError(diags, summary, err)
		}
		return "", false
	}
	return upid, true
}

// settle waits for the download or upload task.
func (r *artifactResource) settle(ctx context.Context, upid string, m *artifactModel, diags *diag.Diagnostics) bool {
	what := "the upload of " + m.volumeID(r.kind)
	if !m.URL.IsNull() {
		what = "the download of " + m.volumeID(r.kind) + " from " + m.URL.ValueString()
	}
	return fwutil.SettleTask(ctx, r.client, upid, what, fmt.Sprintf("Unable To Write %s", r.kind.title), diags)
}

// readBack reads the file after writing it, so state holds what PVE
// reports.
func (r *artifactResource) readBack(ctx context.Context, m *artifactModel, diags *diag.Diagnostics) bool {
	v, err := r.client.FindVolume(ctx, m.Node.ValueString(), m.Storage.ValueString(), r.kind.content, m.volumeID(r.kind))
	if err != nil {
		fwutil.AddAPIError(diags, fmt.Sprintf("Unable To Read %s After Writing It", r.kind.title), err)
		return false
	}
	if v == nil {
		diags.AddError(fmt.Sprintf("%s Vanished", r.kind.title),
			fmt.Sprintf("PVE finished writing %s but does not list it on node %s; another client may have deleted it. Run apply again.",
				m.volumeID(r.kind), m.Node.ValueString()))
		return false
	}
	m.fromAPI(r.kind, v)
	return true
}

// Read looks for the file in the storage's content as its node sees it:
// one request. A file (or storage) that is gone leaves state, so the next
// plan creates it again.
func (r *artifactResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state artifactModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	v, err := r.client.FindVolume(ctx, state.Node.ValueString(), state.Storage.ValueString(), r.kind.content, state.volumeID(r.kind))
	if err != nil {
		if pveapi.IsStorageMissing(err) {
			resp.State.RemoveResource(ctx)
			return
		}
		fwutil.AddAPIError(&resp.Diagnostics, fmt.Sprintf("Unable To Read %s", r.kind.title), err)
		return
	}
	if v == nil {
		resp.State.RemoveResource(ctx)
		return
	}
	state.fromAPI(r.kind, v)
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

// Update uploads a changed local file again, in place (W45); every other
// in-place change (url or source_file set after an import, W47;
// verify_certificates; timeouts) is only recorded.
func (r *artifactResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state artifactModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !planChanges(&state, &plan).reupload {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
		return
	}
	timeout, diags := plan.Timeouts.Update(ctx, defaultUpdateTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	upload := plan
	upload.URL = types.StringNull()
	upid, ok := r.write(ctx, &upload, &resp.Diagnostics)
	if !ok || !r.settle(ctx, upid, &upload, &resp.Diagnostics) {
		return
	}
	if r.readBack(ctx, &plan, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	}
}

// Delete runs PVE's delete task (W46). A file or storage already gone is
// what Delete wants. PVE does not refuse to delete a file a guest still
// uses; whatever PVE answers is reported as it is.
func (r *artifactResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state artifactModel
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

	volid := state.volumeID(r.kind)
	summary := fmt.Sprintf("Unable To Delete %s", r.kind.title)
	upid, err := r.client.DeleteVolume(ctx, state.Node.ValueString(), state.Storage.ValueString(), volid)
	if err != nil {
		if !pveapi.IsStorageMissing(err) {
			fwutil.AddAPIError(&resp.Diagnostics, summary, err)
		}
		return
	}
	result, err := r.client.WaitTask(ctx, upid)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, summary, err)
		return
	}
	var other []string
	for _, w := range result.Warnings {
		// W46: a file that is already gone is a warning of the task only.
		if !strings.Contains(w, "does not exist") {
			other = append(other, w)
		}
	}
	if len(other) > 0 {
		resp.Diagnostics.AddWarning("PVE Task Finished With Warnings",
			fmt.Sprintf("PVE deleted %s with warnings:\n\n%s", volid, strings.Join(other, "\n")))
	}
}

// ImportState takes NODE/STORAGE/FILE. The source (url, source_file) stays
// null: PVE has no record of it (W47).
func (r *artifactResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	node, storage, fileName, err := parseImportID(req.ID)
	if err == nil {
		err = r.kind.checkFileName(fileName)
	}
	if err != nil {
		resp.Diagnostics.AddError("Invalid Import ID", fmt.Sprintf("Import pve_%s: %v", r.kind.typeSuffix, err))
		return
	}
	for attr, value := range map[string]string{
		"id":        importID(node, storage, fileName),
		"node":      node,
		"storage":   storage,
		"file_name": fileName,
		"volume":    pveapi.VolumeID(storage, r.kind.content, fileName),
	} {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(attr), value)...)
	}
}
