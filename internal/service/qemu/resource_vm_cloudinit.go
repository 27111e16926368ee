package qemu

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/seediso"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

func cloudInitPath(attr string) path.Path {
	return path.Root("cloud_init").AtName(attr)
}

func cloudInitSchema() schema.SingleNestedAttribute {
	slotCheck := fwutil.Format(wire.IsCDROMSlot, "must be a drive slot: ide0-ide3, sata0-sata5 or scsi0-scsi30")
	return schema.SingleNestedAttribute{
		MarkdownDescription: "Cloud-init, through the API only. Either PVE's own cloud-init drive (`storage`) with its keys " +
			"(`user`, `password_wo`, `ssh_keys`, `dns`, `ip_config`, `upgrade`), or full `user_data` in a NoCloud seed ISO that the provider " +
			"builds, uploads to `seed_storage` and attaches in `seed_slot`. The two are not combined: both drives would carry the `cidata` " +
			"label and the guest would pick one of them. Changes of cloud-init data are applied in place; they reach the guest on its next boot.",
		Optional: true,
		Attributes: map[string]schema.Attribute{
			"storage": schema.StringAttribute{
				MarkdownDescription: "Storage for PVE's cloud-init drive; it must carry `images` content. Left out, the VM has no cloud-init drive.",
				Optional:            true,
				Validators:          []validator.String{fwutil.Format(wire.IsStorageID, "must be a storage id")},
			},
			"slot": schema.StringAttribute{
				MarkdownDescription: "Slot of PVE's cloud-init drive. Defaults to `ide2`. The drive is created only into an empty slot. " +
					"Moving it to another slot needs the VM stopped (PVE removes the old drive only then): on a running VM the plan refuses the move " +
					"unless `reboot_after_update = true` (the VM is stopped, the drive moved, the VM started again) or `started = false`.",
				Optional:   true,
				Computed:   true,
				Default:    stringdefault.StaticString(defaultCloudInitSlot),
				Validators: []validator.String{slotCheck},
			},
			"user": schema.StringAttribute{MarkdownDescription: "User to create (`ciuser`).", Optional: true},
			"password_wo": schema.StringAttribute{
				MarkdownDescription: "Password of `user` (`cipassword`), write-only: never stored in state. It is written when PVE has none, " +
					"and again whenever `password_wo_version` changes. A password PVE has and the configuration does not set is left alone. " +
					"Needs Terraform 1.11 or later.",
				Optional:  true,
				Sensitive: true,
				WriteOnly: true,
			},
			"password_wo_version": schema.Int64Attribute{
				MarkdownDescription: "Change this number to write `password_wo` again (password rotation).",
				Optional:            true,
			},
			"ssh_keys": schema.ListAttribute{
				MarkdownDescription: "Public SSH keys for `user`. Compared as a set of keys.",
				Optional:            true,
				ElementType:         types.StringType,
				Validators:          []validator.List{listvalidator.SizeAtLeast(1), listvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1))},
			},
			"dns": schema.SingleNestedAttribute{
				MarkdownDescription: "DNS settings (`searchdomain`, `nameserver`). Left out, the guest uses the node's.",
				Optional:            true,
				Attributes: map[string]schema.Attribute{
					"domain": schema.StringAttribute{MarkdownDescription: "Search domain.", Optional: true},
					"servers": schema.ListAttribute{
						MarkdownDescription: "Name servers, in order.",
						Optional:            true,
						ElementType:         types.StringType,
						Validators:          []validator.List{listvalidator.SizeAtLeast(1)},
					},
				},
			},
			"ip_config": schema.MapNestedAttribute{
				MarkdownDescription: "Addresses keyed by `ipconfig0`-`ipconfig31`, one per network device `net0`-`net31`.",
				Optional:            true,
				Validators: []validator.Map{
					mapvalidator.SizeAtLeast(1),
					mapvalidator.KeysAre(fwutil.Format(wire.IsIPConfigSlot, "must be ipconfig0-ipconfig31")),
				},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"ipv4": ipFamilySchema("IPv4: `address` is `dhcp`, `manual` or an address with prefix length 8-32 (`10.0.0.5/24`).", wire.IPv4),
					"ipv6": ipFamilySchema("IPv6: `address` is `auto` (SLAAC), `dhcp`, `manual` or an address with prefix length 8-128.", wire.IPv6),
				}},
			},
			"upgrade": schema.BoolAttribute{MarkdownDescription: "Upgrade packages on first boot (`ciupgrade`); PVE's default is true.", Optional: true},
			"user_data": schema.StringAttribute{
				MarkdownDescription: "Full cloud-init user-data (`#cloud-config ...`). Setting it builds a NoCloud seed ISO (label `cidata`) " +
					"with meta-data (instance-id derived from the content, local-hostname from `name`), uploads it to `seed_storage` and attaches it " +
					"as a CD-ROM in `seed_slot`. Any change re-uploads it in place. The seed is deleted with the VM or when `user_data` is removed.",
				Optional:   true,
				Sensitive:  true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"vendor_data": schema.StringAttribute{
				MarkdownDescription: "Vendor-data for the seed ISO; needs `user_data`.",
				Optional:            true,
				Sensitive:           true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"network_config": schema.StringAttribute{
				MarkdownDescription: "Network configuration (version 1 or 2) for the seed ISO; needs `user_data`.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"seed_storage": schema.StringAttribute{
				MarkdownDescription: "Storage with `iso` content for the seed ISO; needed with `user_data`.",
				Optional:            true,
				Validators:          []validator.String{fwutil.Format(wire.IsStorageID, "must be a storage id")},
			},
			"seed_slot": schema.StringAttribute{
				MarkdownDescription: "Slot of the seed ISO's CD-ROM. Defaults to `ide3`.",
				Optional:            true,
				Computed:            true,
				Default:             stringdefault.StaticString(defaultSeedSlot),
				Validators:          []validator.String{slotCheck},
			},
			"seed_sha256": schema.StringAttribute{
				MarkdownDescription: "SHA-256 of the seed ISO; it changes with any of its inputs.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{seedDigest{}},
			},
		},
	}
}

func ipFamilySchema(description string, family wire.IPFamily) schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		MarkdownDescription: description,
		Optional:            true,
		Attributes: map[string]schema.Attribute{
			"address": schema.StringAttribute{
				MarkdownDescription: "Address with prefix length, or a method.",
				Optional:            true,
				Validators:          []validator.String{fwutil.IPConfig(family)},
			},
			"gateway": schema.StringAttribute{
				MarkdownDescription: "Default gateway; PVE takes it only with an address.",
				Optional:            true,
				Validators:          []validator.String{fwutil.IPAddress(family)},
			},
		},
	}
}

// seedDigest plans seed_sha256 from the seed's inputs, so a change of
// user_data, vendor_data, network_config or the VM name is an in-place
// update and an unchanged seed plans nothing.
type seedDigest struct{}

func (seedDigest) Description(context.Context) string {
	return "The digest of the seed ISO the configuration describes."
}

func (d seedDigest) MarkdownDescription(ctx context.Context) string { return d.Description(ctx) }

func (seedDigest) PlanModifyString(ctx context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	var ci *cloudInitModel
	var name types.String
	if req.Plan.GetAttribute(ctx, path.Root("cloud_init"), &ci).HasError() || req.Plan.GetAttribute(ctx, path.Root("name"), &name).HasError() {
		resp.PlanValue = types.StringUnknown()
		return
	}
	if ci == nil || ci.UserData.IsNull() {
		resp.PlanValue = types.StringNull()
		return
	}
	if ci.UserData.IsUnknown() || ci.VendorData.IsUnknown() || ci.NetworkConfig.IsUnknown() || name.IsUnknown() {
		resp.PlanValue = types.StringUnknown()
		return
	}
	if sum := ci.seed(name).SHA256(); sum != "" {
		resp.PlanValue = types.StringValue(sum)
		return
	}
	resp.PlanValue = types.StringUnknown()
}

// checkCloudInit finds configuration errors of cloud_init.
func checkCloudInit(m *vmModel) []guestops.Issue {
	ci := m.CloudInit
	if ci == nil {
		return nil
	}
	var issues []guestops.Issue
	if guestops.Known(ci.UserData) || guestops.Known(ci.VendorData) || guestops.Known(ci.NetworkConfig) {
		if !ci.Storage.IsNull() {
			issues = append(issues, guestops.Issue{
				Path:    cloudInitPath("storage"),
				Summary: "Seed ISO And Cloud-Init Drive Cannot Be Combined",
				Detail: "cloud_init sets user_data (a NoCloud seed ISO) and storage (PVE's cloud-init drive). Both drives carry the cidata label " +
					"and the guest would read only one of them. Put the user, keys and network settings into user_data and network_config " +
					"and remove storage, or remove user_data and use PVE's cloud-init keys.",
			})
		}
		for _, name := range ci.driveKeys() {
			issues = append(issues, guestops.Issue{
				Path:    cloudInitPath(name),
				Summary: "Cloud-Init Key Has No Effect With user_data",
				Detail: fmt.Sprintf("cloud_init.%s is written into PVE's cloud-init drive, which a VM with user_data does not have: "+
					"the guest reads the seed ISO only. Express it in user_data (or network_config) instead.", name),
			})
		}
		if ci.UserData.IsNull() {
			issues = append(issues, guestops.Issue{Path: cloudInitPath("user_data"), Summary: "User-Data Required",
				Detail: "vendor_data and network_config go into the seed ISO, which needs user_data as well."})
		}
		if ci.SeedStorage.IsNull() {
			issues = append(issues, guestops.Issue{Path: cloudInitPath("seed_storage"), Summary: "Seed Storage Required",
				Detail: "user_data is uploaded as a seed ISO: set seed_storage to a storage with iso content, e.g. \"local\"."})
		}
	}
	if ci.PasswordWO.IsNull() && !ci.PasswordWOVersion.IsNull() {
		issues = append(issues, guestops.Issue{Path: cloudInitPath("password_wo_version"), Summary: "Password Version Without Password",
			Detail: "password_wo_version only triggers writing password_wo again; set password_wo too, or remove password_wo_version."})
	}
	issues = append(issues, slotClash(m, ci.Storage, ci.driveSlot(), "slot", "the cloud-init drive")...)
	if guestops.Known(ci.UserData) {
		issues = append(issues, slotClash(m, ci.UserData, ci.seedSlot(), "seed_slot", "the seed ISO")...)
		if ci.wantsDrive() && ci.driveSlot() == ci.seedSlot() {
			issues = append(issues, guestops.Issue{Path: cloudInitPath("seed_slot"), Summary: "Slot Used Twice",
				Detail: "slot and seed_slot name the same slot: pick another seed_slot."})
		}
	}
	return issues
}

// slotClash reports a declared disk or CD-ROM in the slot a cloud-init
// drive wants.
func slotClash(m *vmModel, wanted interface{ IsNull() bool }, slot, attr, what string) []guestops.Issue {
	if wanted.IsNull() {
		return nil
	}
	_, disk := m.Disks[slot]
	_, cdrom := m.CDROMs[slot]
	if !disk && !cdrom {
		return nil
	}
	return []guestops.Issue{{
		Path:    cloudInitPath(attr),
		Summary: "Slot Used Twice",
		Detail:  fmt.Sprintf("Slot %s is declared in disks or cdroms and holds %s too. Each drive slot holds one device: set cloud_init.%s to a free slot.", slot, what, attr),
	}}
}

// checkCloudInitStorage refuses at plan time a storage PVE would take but
// the guest could not use: the cloud-init drive needs images content (a VM
// whose cloud-init drive sits elsewhere fails to start, W27), the seed
// needs iso content. It asks PVE only when a storage is new to the plan.
func (r *vmResource) checkCloudInitStorage(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.api.Client == nil {
		return
	}
	var plan, state *cloudInitModel
	var node types.String
	if req.Plan.GetAttribute(ctx, path.Root("cloud_init"), &plan).HasError() || plan == nil ||
		req.Plan.GetAttribute(ctx, path.Root("node"), &node).HasError() || !guestops.Known(node) {
		return
	}
	if !req.State.Raw.IsNull() {
		_ = req.State.GetAttribute(ctx, path.Root("cloud_init"), &state)
	}
	if state == nil {
		state = &cloudInitModel{}
	}
	checks := []struct {
		attr          string
		want, had     types.String
		content, what string
	}{
		{"storage", plan.Storage, state.Storage, "images", "PVE's cloud-init drive is a disk image"},
		{"seed_storage", plan.SeedStorage, state.SeedStorage, pveapi.ContentISO, "the seed is uploaded as an ISO image"},
	}
	for _, c := range checks {
		if !guestops.Known(c.want) || c.want.Equal(c.had) {
			continue
		}
		st, err := r.api.Client.StorageStatus(ctx, node.ValueString(), c.want.ValueString())
		if err != nil || st == nil {
			continue // PVE's own error comes at apply
		}
		if !st.HasContent(c.content) {
			resp.Diagnostics.AddAttributeError(cloudInitPath(c.attr), "Storage Cannot Hold Cloud-Init Data",
				fmt.Sprintf("Storage %s on node %s does not carry %s content (it has: %s), and %s. Choose a storage with %s content.",
					c.want.ValueString(), node.ValueString(), c.content, strings.Join(st.ContentTypes(), ", "), c.what, c.content))
		}
	}
}

// passwordFromConfig reads the write-only password, which only the
// configuration carries.
func passwordFromConfig(ctx context.Context, config tfsdk.Config) (*string, diag.Diagnostics) {
	var password types.String
	diags := config.GetAttribute(ctx, cloudInitPath("password_wo"), &password)
	if diags.HasError() || !guestops.Known(password) {
		return nil, diags
	}
	value := password.ValueString()
	return &value, diags
}

// passwordDue decides whether the configured password is written now
// (W31): never without a password in configuration; at once when PVE has
// none; otherwise only when password_wo_version changed from a version
// state knows. A version first seen (after import) adopts the live
// password rather than overwriting it.
func passwordDue(state, plan *cloudInitModel, live pveapi.GuestConfig) bool {
	if _, has := live[keyCIPassword]; !has {
		return true
	}
	if state == nil || plan == nil || state.PasswordWOVersion.IsNull() {
		return false
	}
	return !plan.PasswordWOVersion.Equal(state.PasswordWOVersion)
}

// applyCloudInit finishes cloud-init after the config request of a create
// or an update: the password (write-only, so never part of a compared
// request), a cloud-init drive that moved, and the seed ISO. state is nil
// at create. It reports success, and sets *configWritten when it wrote the
// config (configWritten may be nil).
func (r *vmResource) applyCloudInit(ctx context.Context, config tfsdk.Config, node string, vmid int, state, plan *vmModel, configWritten *bool, diags *diag.Diagnostics) bool {
	wrote, ok := r.syncCloudInit(ctx, config, node, vmid, state, plan, diags)
	if wrote && configWritten != nil {
		*configWritten = true
	}
	return ok
}

func (r *vmResource) syncCloudInit(ctx context.Context, config tfsdk.Config, node string, vmid int, state, plan *vmModel, diags *diag.Diagnostics) (bool, bool) {
	var stateCI *cloudInitModel
	if state != nil {
		stateCI = state.CloudInit
	}
	ci := plan.CloudInit
	if ci == nil && (stateCI == nil || stateCI.SeedStorage.IsNull()) {
		return false, true
	}
	live, err := r.api.Client.GuestConfig(ctx, node, pveapi.GuestTypeQemu, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read VM", err)
		return false, false
	}
	wrote := false
	params := url.Values{}
	password, pwDiags := passwordFromConfig(ctx, config)
	diags.Append(pwDiags...)
	if password != nil && passwordDue(stateCI, ci, live) {
		params.Set(keyCIPassword, *password)
	}
	if ci.wantsDrive() {
		if slot, _ := findCloudInitDrive(live); slot == "" {
			if value, occupied := live[ci.driveSlot()]; occupied {
				diags.AddAttributeError(cloudInitPath("slot"), "Cloud-Init Slot Occupied",
					fmt.Sprintf("Slot %s holds %q in PVE. The cloud-init drive is created only into an empty slot: choose a free slot.", ci.driveSlot(), value))
				return false, false
			}
			params.Set(ci.driveSlot(), ci.Storage.ValueString()+":cloudinit")
		}
	}
	if len(params) > 0 {
		if !r.writeCloudInit(ctx, node, vmid, params, diags) {
			return false, false
		}
		wrote = true
	}
	seedWrote, ok := r.syncSeed(ctx, node, vmid, stateCI, plan, live, diags)
	return wrote || seedWrote, ok
}

// writeCloudInit sends cloud-init settings; a request that allocates the
// drive runs as a task (W9). Errors name no value: the password may be
// among them.
func (r *vmResource) writeCloudInit(ctx context.Context, node string, vmid int, params url.Values, diags *diag.Diagnostics) bool {
	const summary = "Unable To Write Cloud-Init Settings"
	allocates := false
	for key := range params {
		if wire.IsDataDiskSlot(key) {
			allocates = true
		}
	}
	if !allocates {
		if err := r.api.Client.UpdateGuestConfig(ctx, node, pveapi.GuestTypeQemu, vmid, params); err != nil {
			fwutil.AddAttributeAPIError(diags, path.Root("cloud_init"), summary, err)
			return false
		}
		return true
	}
	upid, err := r.api.Client.UpdateQemuConfigAsync(ctx, node, vmid, params)
	if err != nil {
		fwutil.AddAttributeAPIError(diags, path.Root("cloud_init"), summary, err)
		return false
	}
	return fwutil.SettleTask(ctx, r.api.Client, upid, fmt.Sprintf("writing cloud-init settings of VM %d", vmid), summary, diags)
}

// syncSeed uploads, attaches, replaces or removes the seed ISO (W32) so
// that PVE matches plan.
func (r *vmResource) syncSeed(ctx context.Context, node string, vmid int, stateCI *cloudInitModel, plan *vmModel, live pveapi.GuestConfig, diags *diag.Diagnostics) (bool, bool) {
	ci := plan.CloudInit
	liveSlot, liveStorage := findSeed(live, vmid, "")
	if !ci.wantsSeed() {
		if liveSlot == "" {
			return false, true
		}
		if !r.detachSeed(ctx, node, vmid, liveSlot, diags) {
			return false, false
		}
		return true, r.deleteSeedVolume(ctx, node, liveStorage, vmid, diags)
	}

	storage, slot := ci.SeedStorage.ValueString(), ci.seedSlot()
	img, err := seediso.Build(ci.seed(plan.Name))
	if err != nil {
		diags.AddAttributeError(cloudInitPath("user_data"), "Unable To Build Seed ISO", err.Error())
		return false, false
	}
	sum := sha256.Sum256(img)
	digest := hex.EncodeToString(sum[:])
	uploaded := stateCI != nil && stateCI.SeedSHA256.ValueString() == digest && liveStorage == storage
	if !uploaded && liveStorage == storage {
		r.warnSeedRewrite(ctx, node, storage, vmid, diags)
	}
	if !uploaded && !r.uploadSeed(ctx, node, storage, vmid, img, digest, diags) {
		return false, false
	}
	wrote := false
	if liveSlot != "" && (liveSlot != slot || liveStorage != storage) {
		if !r.detachSeed(ctx, node, vmid, liveSlot, diags) {
			return false, false
		}
		wrote = true
		if liveStorage != storage && !r.deleteSeedVolume(ctx, node, liveStorage, vmid, diags) {
			return false, false
		}
		liveSlot = ""
	}
	if liveSlot == "" {
		if value, occupied := live[slot]; occupied && slot != findSeedSlotOnly(live, vmid) {
			diags.AddAttributeError(cloudInitPath("seed_slot"), "Seed Slot Occupied",
				fmt.Sprintf("Slot %s holds %q in PVE. Choose a free seed_slot.", slot, value))
			return wrote, false
		}
		if !r.attachSeed(ctx, node, vmid, slot, storage, diags) {
			return wrote, false
		}
		wrote = true
	}
	return wrote, true
}

func findSeedSlotOnly(live pveapi.GuestConfig, vmid int) string {
	slot, _ := findSeed(live, vmid, "")
	return slot
}

func (r *vmResource) uploadSeed(ctx context.Context, node, storage string, vmid int, img []byte, digest string, diags *diag.Diagnostics) bool {
	upid, err := r.api.Client.Upload(ctx, pveapi.UploadRequest{
		Node:              node,
		Storage:           storage,
		Content:           pveapi.ContentISO,
		FileName:          seediso.Seed{}.FileName(vmid),
		Checksum:          digest,
		ChecksumAlgorithm: "sha256",
		Open:              func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(img)), nil },
		Size:              int64(len(img)),
	})
	if err != nil {
		fwutil.AddAttributeAPIError(diags, cloudInitPath("seed_storage"), "Unable To Upload Seed ISO", err)
		return false
	}
	return fwutil.SettleTask(ctx, r.api.Client, upid, fmt.Sprintf("uploading the seed ISO of VM %d", vmid), "Unable To Upload Seed ISO", diags)
}

// attachSeed puts the seed into its slot. PVE adds a new CD-ROM to an
// explicit boot order (W28); the seed is no boot device, so it is taken out
// again and boot_order stays what it was.
func (r *vmResource) attachSeed(ctx context.Context, node string, vmid int, slot, storage string, diags *diag.Diagnostics) bool {
	if err := r.api.Client.UpdateGuestConfig(ctx, node, pveapi.GuestTypeQemu, vmid, url.Values{slot: {seedDriveValue(storage, vmid)}}); err != nil {
		fwutil.AddAttributeAPIError(diags, cloudInitPath("seed_slot"), "Unable To Attach Seed ISO", err)
		return false
	}
	live, err := r.api.Client.GuestConfig(ctx, node, pveapi.GuestTypeQemu, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read VM", err)
		return false
	}
	order, err := bootOrderFromAPI(live)
	if err != nil || order.IsNull() {
		return true
	}
	devices := listStrings(order)
	if !slices.Contains(devices, slot) {
		return true
	}
	devices = slices.DeleteFunc(devices, func(d string) bool { return d == slot })
	if len(devices) == 0 {
		return true
	}
	if err := r.api.Client.UpdateGuestConfig(ctx, node, pveapi.GuestTypeQemu, vmid, url.Values{keyBoot: {bootValue(devices)}}); err != nil {
		fwutil.AddAttributeAPIError(diags, path.Root("boot_order"), "Unable To Set Boot Order", err)
		return false
	}
	return true
}

func (r *vmResource) detachSeed(ctx context.Context, node string, vmid int, slot string, diags *diag.Diagnostics) bool {
	if err := r.api.Client.UpdateGuestConfig(ctx, node, pveapi.GuestTypeQemu, vmid, url.Values{"delete": {slot}}); err != nil {
		fwutil.AddAttributeAPIError(diags, cloudInitPath("seed_slot"), "Unable To Detach Seed ISO", err)
		return false
	}
	return true
}

// deleteSeedVolume removes the seed's iso volume unless other VMs (clones)
// still have it attached; one already gone is success (W46).
func (r *vmResource) deleteSeedVolume(ctx context.Context, node, storage string, vmid int, diags *diag.Diagnostics) bool {
	if r.seedStillUsed(ctx, node, storage, vmid, diags) {
		return true
	}
	upid, err := r.api.Client.DeleteVolume(ctx, node, storage, seedVolumeID(storage, vmid))
	if pveapi.IsNotFound(err) {
		return true
	}
	if err != nil {
		fwutil.AddAttributeAPIError(diags, cloudInitPath("seed_storage"), "Unable To Delete Seed ISO", err)
		return false
	}
	return fwutil.SettleTask(ctx, r.api.Client, upid, fmt.Sprintf("deleting the seed ISO of VM %d", vmid), "Unable To Delete Seed ISO", diags)
}

// deleteSeedAfterDestroy removes the seed of a destroyed VM: PVE's purge
// removes the VM's own volumes, not an iso volume it merely had attached.
func (r *vmResource) deleteSeedAfterDestroy(ctx context.Context, state *vmModel, diags *diag.Diagnostics) {
	if diags.HasError() || state.CloudInit == nil || !guestops.Known(state.CloudInit.SeedStorage) {
		return
	}
	r.deleteSeedVolume(ctx, state.Node.ValueString(), state.CloudInit.SeedStorage.ValueString(), state.vmid(), diags)
}
