package storagecfg

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

var (
	_ resource.Resource                   = (*storageResource)(nil)
	_ resource.ResourceWithConfigure      = (*storageResource)(nil)
	_ resource.ResourceWithImportState    = (*storageResource)(nil)
	_ resource.ResourceWithValidateConfig = (*storageResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*storageResource)(nil)
)

// storageResource is pve_storage_<type>: one storage definition of one
// type, its attributes from the type's entry in wire.StorageTypes.
type storageResource struct {
	st           wire.StorageType
	client       *pveapi.Client
	providerName string
}

func newResource(typ string) func() resource.Resource {
	st, ok := wire.StorageTypeByName(typ)
	if !ok {
		panic("storagecfg: unknown storage type " + typ)
	}
	return func() resource.Resource { return fwutil.WithIdentity(&storageResource{st: st}, storageIdentity) }
}

// storageIdentity is a storage's key, its storage ID (the import id).
var storageIdentity = fwutil.Identity{Attributes: []fwutil.IdentityAttribute{{
	Name: attrStorage, Description: "The storage ID, as `storage` (for example `backup-nfs`).",
}}}

// The resources, one per storage type.
var (
	NewDirResource         = newResource("dir")
	NewNFSResource         = newResource("nfs")
	NewCIFSResource        = newResource("cifs")
	NewLVMResource         = newResource("lvm")
	NewLVMThinResource     = newResource("lvmthin")
	NewZFSPoolResource     = newResource("zfspool")
	NewZFSResource         = newResource("zfs")
	NewISCSIResource       = newResource("iscsi")
	NewISCSIDirectResource = newResource("iscsidirect")
	NewRBDResource         = newResource("rbd")
	NewCephFSResource      = newResource("cephfs")
	NewPBSResource         = newResource("pbs")
	NewBTRFSResource       = newResource("btrfs")
	NewESXiResource        = newResource("esxi")
)

// Resources are all the pve_storage_<type> resources.
func Resources() []func() resource.Resource {
	return []func() resource.Resource{
		NewDirResource, NewNFSResource, NewCIFSResource, NewLVMResource, NewLVMThinResource, NewZFSPoolResource,
		NewZFSResource, NewISCSIResource, NewISCSIDirectResource, NewRBDResource, NewCephFSResource, NewPBSResource,
		NewBTRFSResource, NewESXiResource,
	}
}

func (r *storageResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	r.providerName = req.ProviderTypeName
	resp.TypeName = resourceTypeName(req.ProviderTypeName, r.st.Name)
}

func (r *storageResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = storageSchema(r.st)
}

func (r *storageResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		r.client = pd.Client
	}
}

func (r *storageResource) typeName() string {
	name := r.providerName
	if name == "" {
		name = "pve"
	}
	return resourceTypeName(name, r.st.Name)
}

// secrets are the sensitive options of the configuration that are set.
func (r *storageResource) secrets(ctx context.Context, config attrGetter, diags *diag.Diagnostics) map[string]types.String {
	out := map[string]types.String{}
	for _, o := range r.st.Options {
		if !o.Sensitive {
			continue
		}
		var v types.String
		diags.Append(config.GetAttribute(ctx, path.Root(woName(o)), &v)...)
		out[o.Key] = v
	}
	return out
}

func (r *storageResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var id types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root(attrStorage), &id)...)
	d := readOptions(ctx, req.Plan, r.st, &resp.Diagnostics)
	secrets := r.secrets(ctx, req.Config, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	opts := d.opts
	for k, v := range secrets {
		if !v.IsNull() && !v.IsUnknown() {
			opts[k] = v.ValueString()
		}
	}
	if err := r.client.CreateStorage(ctx, id.ValueString(), r.st.Name, opts); err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Create Storage", err)
		return
	}
	resp.State.Raw = req.Plan.Raw.Copy()
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(attrID), id)...)
	r.readBack(ctx, id.ValueString(), &resp.State, &resp.Diagnostics)
}

// readBack reads the storage after a write, so state holds what PVE keeps.
func (r *storageResource) readBack(ctx context.Context, id string, s attrSetter, diags *diag.Diagnostics) {
	cfg, found, err := r.client.GetStorageConfig(ctx, id)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read Storage After Writing It", err)
		return
	}
	if !found {
		fwutil.AddVanishedAfterWrite(diags, "Storage", "Storage "+id)
		return
	}
	setOptions(ctx, s, r.st, cfg.Options, diags)
}

func (r *storageResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var id types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root(attrStorage), &id)...)
	if resp.Diagnostics.HasError() {
		return
	}
	cfg, found, err := r.client.GetStorageConfig(ctx, id.ValueString())
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read Storage", err)
		return
	}
	if !found {
		resp.State.RemoveResource(ctx)
		return
	}
	if cfg.Type != r.st.Name {
		resp.Diagnostics.AddError("Storage Type Changed", fmt.Sprintf(
			"Storage %s is now of type %s in PVE, not %s: it was redefined outside Terraform. "+
				"Remove it from the state (terraform state rm) and import it as %s, or delete it in PVE to let Terraform create it again.",
			id.ValueString(), cfg.Type, r.st.Name, resourceTypeName("pve", cfg.Type)))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(attrID), id)...)
	setOptions(ctx, &resp.State, r.st, cfg.Options, &resp.Diagnostics)
}

func (r *storageResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var id types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root(attrStorage), &id)...)
	plan := readOptions(ctx, req.Plan, r.st, &resp.Diagnostics)
	state := readOptions(ctx, req.State, r.st, &resp.Diagnostics)
	secrets := r.secrets(ctx, req.Config, &resp.Diagnostics)
	changedSecrets := r.changedSecrets(ctx, req.State, req.Plan, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	delta := &wire.ConfigDelta{}
	for _, o := range r.st.Options {
		if o.Sensitive || o.Fixed || plan.unknown[o.Key] {
			continue
		}
		pv, inPlan := plan.opts[o.Key]
		sv, inState := state.opts[o.Key]
		switch {
		case inPlan && (!inState || pv != sv):
			delta.Set(o.Key, pv)
		case !inPlan && inState:
			delta.Delete(o.Key)
		}
	}
	for _, key := range changedSecrets {
		if v := secrets[key]; !v.IsNull() && !v.IsUnknown() {
			delta.Set(key, v.ValueString())
		} else {
			delta.Delete(key)
		}
	}
	// storage.cfg's digest covers every storage: an update of another
	// storage between the read and the PUT (Terraform applies several at
	// once) makes PVE refuse it. Read again, check again, send again.
	for try := 0; ; try++ {
		cfg, found, err := r.client.GetStorageConfig(ctx, id.ValueString())
		if err != nil {
			fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read Storage", err)
			return
		}
		if !found {
			resp.Diagnostics.AddError("Storage Vanished", "Storage "+id.ValueString()+
				" no longer exists in PVE; another client deleted it since the refresh. Run apply again to recreate it.")
			return
		}
		current := normalizeOptions(r.st, cfg.Options)
		if changed := changedOutside(r.st, state.opts, current); len(changed) > 0 {
			resp.Diagnostics.AddError("Changed Outside Terraform", fmt.Sprintf(
				"Storage %s changed outside Terraform since it was last read (%s). Nothing was changed: "+
					"run terraform plan again to see PVE's current settings and plan against them.", id.ValueString(), strings.Join(changed, ", ")))
			return
		}
		err = r.client.UpdateStorage(ctx, id.ValueString(), delta, cfg.Digest)
		if err == nil {
			break
		}
		if !pveapi.IsStorageDigestMismatch(err) || try+1 >= updateTries {
			fwutil.AddAPIError(&resp.Diagnostics, "Unable To Update Storage", err)
			return
		}
	}
	resp.State.Raw = req.Plan.Raw.Copy()
	r.readBack(ctx, id.ValueString(), &resp.State, &resp.Diagnostics)
}

// updateTries bounds the re-reads of an update whose storage.cfg digest
// went stale because other storages changed meanwhile.
const updateTries = 8

// changedSecrets are the sensitive options whose version changed.
func (r *storageResource) changedSecrets(ctx context.Context, state, plan attrGetter, diags *diag.Diagnostics) []string {
	var out []string
	for _, o := range r.st.Options {
		if !o.Sensitive {
			continue
		}
		var before, after types.Int64
		diags.Append(state.GetAttribute(ctx, path.Root(woVersionName(o)), &before)...)
		diags.Append(plan.GetAttribute(ctx, path.Root(woVersionName(o)), &after)...)
		if !after.IsUnknown() && !before.Equal(after) {
			out = append(out, o.Key)
		}
	}
	return out
}

// changedOutside names the attributes whose value in PVE differs from the
// state's.
func changedOutside(st wire.StorageType, state, current map[string]string) []string {
	var out []string
	for _, o := range st.Options {
		if o.Sensitive {
			continue
		}
		sv, inState := state[o.Key]
		cv, inCurrent := current[o.Key]
		if inState != inCurrent || sv != cv {
			out = append(out, wire.StorageAttributeName(o.Key))
		}
	}
	sort.Strings(out)
	return out
}

func (r *storageResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var id types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root(attrStorage), &id)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := r.client.DeleteStorage(ctx, id.ValueString()); err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Delete Storage", err)
	}
}

func (r *storageResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if !wire.IsStorageID(req.ID) {
		resp.Diagnostics.AddError("Invalid Import ID",
			fmt.Sprintf("Import %s by its storage ID (for example \"backup-nfs\"), got %q.", r.typeName(), req.ID))
		return
	}
	cfg, found, err := r.client.GetStorageConfig(ctx, req.ID)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read Storage", err)
		return
	}
	if !found {
		resp.Diagnostics.AddError("Storage Not Found", fmt.Sprintf("PVE has no storage %q to import.", req.ID))
		return
	}
	if cfg.Type != r.st.Name {
		resp.Diagnostics.AddError("Storage Of Another Type", fmt.Sprintf(
			"Storage %s is of type %s, not %s: import it as %s.", req.ID, cfg.Type, r.st.Name, resourceTypeName("pve", cfg.Type)))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(attrID), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(attrStorage), req.ID)...)
	if keys := r.st.SensitiveKeys(); len(keys) > 0 {
		names := make([]string, len(keys))
		for i, k := range keys {
			names[i] = wire.StorageAttributeName(k) + woSuffix
		}
		resp.Diagnostics.AddWarning("Secrets Not Imported", fmt.Sprintf(
			"PVE never returns a storage's secrets, so %s start unknown to Terraform; PVE keeps its current ones. "+
				"Set the matching *_wo_version to send a value at the next apply.", strings.Join(names, ", ")))
	}
}
