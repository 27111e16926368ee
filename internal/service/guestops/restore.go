package guestops

import (
	"context"
	"fmt"
	"net/url"

	"github.com/hashicorp/terraform-plugin-framework-validators/objectvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// RestoreModel is the `restore` block both guest resources share: the
// guest is created from a vzdump backup archive.
type RestoreModel struct {
	Archive types.String `tfsdk:"archive"`
	Storage types.String `tfsdk:"storage"`
	Unique  types.Bool   `tfsdk:"unique"`
}

// RestoreAttribute is the `restore` attribute: create-only (a change is
// only recorded), exclusive with conflicting (the other ways to
// create the guest: clone, and os_template for containers).
func RestoreAttribute(kind Kind, conflicting ...string) schema.SingleNestedAttribute {
	noun := kind.Noun
	archive := kind.archiveExample
	var others []path.Expression
	for _, name := range conflicting {
		others = append(others, path.MatchRoot(name))
	}
	return schema.SingleNestedAttribute{
		MarkdownDescription: fmt.Sprintf("Create the %s by restoring a vzdump backup archive. Create-only: changing any of it or removing it is only recorded, "+
			"an update that sends nothing to PVE (the plan warns so): the %s keeps its volumes and what it inherited, and the new archive is used only by a %s created from now on. "+
			"The archive's configuration is restored; declared attributes override it, undeclared ones are inherited and left alone, "+
			"and declared disks are managed from then on. The provider never restores over an existing guest. "+
			"While the restore is being set up the description carries a marker line (`%s ...`), removed once it is fully created.",
			noun, noun, noun, createMarkerPrefix),
		Optional:      true,
		PlanModifiers: []planmodifier.Object{sourceRecorded("restore")},
		Validators:    []validator.Object{objectvalidator.ConflictsWith(others...)},
		Attributes: map[string]schema.Attribute{
			"archive": schema.StringAttribute{
				MarkdownDescription: fmt.Sprintf("Volume id of the backup archive on the %s's node, e.g. `%s`.", noun, archive),
				Required:            true,
				Validators:          []validator.String{backupArchiveValidator{kind: kind}},
			},
			"storage": schema.StringAttribute{
				MarkdownDescription: fmt.Sprintf("Storage the %s's volumes are restored to; each volume's original storage when left out.", noun),
				Optional:            true,
				Validators:          []validator.String{fwutil.Format(wire.IsStorageID, "must be a storage id")},
			},
			"unique": schema.BoolAttribute{
				MarkdownDescription: "Give the restored " + noun + " new MAC addresses (and, for a VM, a new SMBIOS UUID) instead of the archive's.",
				Optional:            true,
			},
		},
	}
}

// backupArchiveValidator checks at plan time that the archive is a vzdump
// archive of the resource's guest type, by its name as PVE reads it.
type backupArchiveValidator struct{ kind Kind }

func (v backupArchiveValidator) Description(context.Context) string {
	return "must be a vzdump backup archive of a " + v.kind.Noun
}

func (v backupArchiveValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (v backupArchiveValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if !Known(req.ConfigValue) {
		return
	}
	volid := req.ConfigValue.ValueString()
	typ, _, ok := pveapi.BackupArchive(volid)
	want := v.kind.archivePattern
	switch {
	case !ok:
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Backup Archive",
			fmt.Sprintf("%s is not a vzdump backup archive: restore.archive takes a volume id STORAGE:backup/%s.", volid, want))
	case typ != v.kind.Type:
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Backup Archive",
			fmt.Sprintf("%s is a %s backup; %s restores only %s archives (STORAGE:backup/%s).", volid, typ, v.kind.Resource, v.kind.Type, want))
	}
}

// RestoreMarker is the marker line of a restore of archive. It is a create
// marker (RemoveCloneMarker takes it out) that no plain create writes.
func RestoreMarker(kind Kind, archive string) string {
	return fmt.Sprintf("%s %s from backup %s%s", createMarkerPrefix, kind.Type, archive, markerSuffix)
}

// ArchiveConfig reads the configuration the archive embeds (W40), with
// the error on restore.archive.
func (a API) ArchiveConfig(ctx context.Context, node string, restore *RestoreModel, diags *diag.Diagnostics) (pveapi.GuestConfig, bool) {
	config, err := a.Client.ExtractConfig(ctx, node, restore.Archive.ValueString())
	if err != nil {
		fwutil.AddAttributeAPIError(diags, path.Root("restore").AtName("archive"), "Unable To Read Backup Archive", err)
		return nil, false
	}
	return config, true
}

// RestoreRequest is one restore to make.
type RestoreRequest struct {
	Node    string
	VMID    int
	Restore *RestoreModel
	// Form holds the declared settings that override the archive's, in
	// create form (no vmid; no disks for a VM, which PVE refuses with an
	// archive). The description in it is the one the guest should end up
	// with; Restore appends the marker.
	Form url.Values
	// Name is the planned name (hostname for containers), empty when the
	// archive's is kept.
	Name string
}

// Restore sends the restore request with Create's race handling (W13): a
// configured VMID that is taken is an error (force is never sent, so an
// existing guest is never overwritten), a lost answer is resolved by
// looking at the VMID, where a guest still locked for creation (W10, W11)
// or carrying this restore's marker (and the planned name) is ours.
func (a API) Restore(ctx context.Context, req RestoreRequest, diags *diag.Diagnostics) (Created, bool) {
	archive := req.Restore.Archive.ValueString()
	marker := RestoreMarker(a.Kind, archive)
	form := make(url.Values, len(req.Form)+4)
	for k, v := range req.Form {
		form[k] = append([]string(nil), v...)
	}
	form.Set(KeyDescription, WithCloneMarker(req.Form.Get(KeyDescription), marker))
	if storage := req.Restore.Storage.ValueString(); storage != "" {
		form.Set("storage", storage)
	}
	if Known(req.Restore.Unique) && req.Restore.Unique.ValueBool() {
		form.Set("unique", "1")
	}
	a.Kind.restoreForm(form, archive)
	return a.Create(ctx, CreateRequest{
		Node:     req.Node,
		VMID:     req.VMID,
		Name:     req.Name,
		AdoptOwn: true,
		Marker:   marker,
		Send: func(ctx context.Context, vmid int) (string, error) {
			return a.Client.CreateGuest(ctx, req.Node, a.Kind.Type, vmid, form)
		},
		Recognize: func(config pveapi.GuestConfig) bool {
			if req.Name != "" && config[a.Kind.NameKey] != req.Name {
				return false
			}
			return HasCloneMarker(config, marker)
		},
	}, diags)
}

// EnsurePool puts a restored guest into pool when it is not listed there:
// a restore onto an id that had a guest before drops the membership (W40,
// W48), so it is checked rather than trusted.
func (a API) EnsurePool(ctx context.Context, vmid int, pool types.String, diags *diag.Diagnostics) bool {
	if !Known(pool) {
		return true
	}
	member, err := a.PoolHas(ctx, pool.ValueString(), vmid)
	if err != nil {
		fwutil.AddAttributeAPIError(diags, path.Root("pool"), "Unable To Read "+a.Kind.Title+" Pool", err)
		return false
	}
	if member {
		return true
	}
	return a.ChangePool(ctx, vmid, types.StringNull(), pool, diags)
}

// ArchiveDescription is the description a restored guest keeps when the
// configuration declares none: the archive's.
func ArchiveDescription(declared types.String, archive pveapi.GuestConfig) string {
	if Known(declared) {
		return declared.ValueString()
	}
	description, _ := StripCloneMarker(archive[KeyDescription])
	return description
}
