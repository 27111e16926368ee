package guestops

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// CloneModel is the `clone` block both guest resources share.
type CloneModel struct {
	SourceVMID types.Int64  `tfsdk:"source_vmid"`
	SourceNode types.String `tfsdk:"source_node"`
	Full       types.Bool   `tfsdk:"full"`
	Storage    types.String `tfsdk:"storage"`
}

// CloneAttribute is the `clone` attribute: create-only, a change is only
// recorded.
func CloneAttribute(kind Kind) schema.SingleNestedAttribute {
	noun := kind.Noun
	return schema.SingleNestedAttribute{
		MarkdownDescription: fmt.Sprintf("Create the %s as a clone of another guest or template. Create-only: changing any of it (another template, `full`, `storage`) "+
			"or removing it is only recorded, an update that sends nothing to PVE (the plan warns so): the %s keeps its disks and what it inherited, "+
			"and the new source is used only by a %s created from now on. Rotating a golden template never replaces existing guests. "+
			"Declared attributes override the source's; undeclared ones are inherited and left alone, also after the attribute is removed. "+
			"While the clone is being set up its description carries a marker line (`%s ...`), removed once it is fully created.", noun, noun, noun, cloneMarkerPrefix),
		Optional:      true,
		PlanModifiers: []planmodifier.Object{sourceRecorded("clone")},
		Attributes: map[string]schema.Attribute{
			"source_vmid": schema.Int64Attribute{
				MarkdownDescription: "VMID of the guest or template to clone.",
				Required:            true,
				Validators:          []validator.Int64{int64validator.Between(wire.MinVMID, wire.MaxVMID)},
			},
			"source_node": schema.StringAttribute{
				MarkdownDescription: "Node of the source. Looked up in the cluster when left out.",
				Optional:            true,
				Validators:          []validator.String{fwutil.Format(wire.IsNodeName, "must be a PVE node name")},
			},
			"full": schema.BoolAttribute{
				MarkdownDescription: "Full copy (default) rather than a linked clone; a linked clone needs a template on storage that supports it.",
				Optional:            true,
				Computed:            true,
				Default:             booldefault.StaticBool(true),
			},
			"storage": schema.StringAttribute{
				MarkdownDescription: "Target storage of a full clone; the source's storages when left out.",
				Optional:            true,
				Validators:          []validator.String{fwutil.Format(wire.IsStorageID, "must be a storage id")},
			},
		},
	}
}

// cloneMarkerPrefix starts the description line that marks a guest this
// provider is still setting up as a clone. It is written by the clone
// request itself, so a retry after a lost answer or a crash recognises its
// own half-made guest (W13), and is removed when the guest is complete.
const cloneMarkerPrefix = "terraform-provider-pve: cloning from"

// CloneMarker is the marker line for a clone of source.
func CloneMarker(kind Kind, source int) string {
	return fmt.Sprintf("%s %s %d, not finished", cloneMarkerPrefix, kind.Type, source)
}

// WithCloneMarker appends marker as the last line of description.
func WithCloneMarker(description, marker string) string {
	description = strings.TrimRight(description, "\n")
	if description == "" {
		return marker
	}
	return description + "\n" + marker
}

// StripCloneMarker removes every marker line, a clone's or a plain
// create's, from description.
func StripCloneMarker(description string) (string, bool) {
	lines := strings.Split(description, "\n")
	kept := lines[:0]
	found := false
	for _, line := range lines {
		if isMarkerLine(line) {
			found = true
			continue
		}
		kept = append(kept, line)
	}
	return strings.TrimRight(strings.Join(kept, "\n"), " \t\r\n"), found
}

// HasCloneMarker reports whether config carries marker.
func HasCloneMarker(config pveapi.GuestConfig, marker string) bool {
	for _, line := range strings.Split(config[KeyDescription], "\n") {
		if line == marker {
			return true
		}
	}
	return false
}

// CloneSource is a resolved clone source: where it is and what it holds.
type CloneSource struct {
	VMID   int
	Node   string
	Config pveapi.GuestConfig
	// Shared is set when every volume of the source is on shared storage
	// (and so is the target storage): PVE can then clone straight onto
	// another node.
	Shared bool
}

// ResolveClone finds the clone source: its node (one FindGuest when not
// declared), its config and whether its volumes are all shared.
func (a API) ResolveClone(ctx context.Context, c *CloneModel, diags *diag.Diagnostics) (CloneSource, bool) {
	summary := "Unable To Clone " + a.Kind.Title
	attr := path.Root("clone").AtName("source_vmid")
	src := CloneSource{VMID: int(c.SourceVMID.ValueInt64()), Node: c.SourceNode.ValueString()}
	if src.Node == "" {
		guest, found, err := a.Client.FindGuest(ctx, src.VMID)
		if err != nil {
			fwutil.AddAPIError(diags, summary, err)
			return src, false
		}
		if !found {
			diags.AddAttributeError(attr, summary, fmt.Sprintf("No guest with VMID %d exists in the cluster.", src.VMID))
			return src, false
		}
		if guest.Type != a.Kind.Type {
			diags.AddAttributeError(attr, summary, fmt.Sprintf("VMID %d is a %s, not a %s: %s clones only %s sources.", src.VMID, guest.Type, a.Kind.Type, a.Kind.Resource, a.Kind.Type))
			return src, false
		}
		src.Node = guest.Node
	}
	config, err := a.Config(ctx, src.Node, src.VMID)
	if err != nil {
		fwutil.AddAttributeAPIError(diags, attr, summary, err)
		return src, false
	}
	src.Config = config
	storages, err := a.Client.Storages(ctx, src.Node, pveapi.StorageFilter{})
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To List Storages", err)
		return src, false
	}
	shared := map[string]bool{}
	for _, s := range storages {
		shared[s.Storage] = bool(s.Shared)
	}
	src.Shared = !a.localVolumes(config, shared)
	if target := c.Storage.ValueString(); target != "" && !shared[target] {
		src.Shared = false
	}
	return src, true
}

// localVolumes reports whether any volume of config, ISO images included
// (PVE's clone counts them), is on storage that is not shared.
func (a API) localVolumes(config pveapi.GuestConfig, shared map[string]bool) bool {
	for key, value := range config {
		if !a.Kind.isVolumeKey(key) {
			continue
		}
		storage, path := a.Kind.volumeStorage(value)
		if path {
			return true
		}
		if storage != "" && !shared[storage] {
			return true
		}
	}
	return false
}

// CloneRequest is one clone to make.
type CloneRequest struct {
	// Node is where the guest must end up.
	Node   string
	VMID   int
	Source CloneSource
	Clone  *CloneModel
	// Name is the planned name (hostname for containers); empty lets PVE
	// pick one.
	Name string
	Pool string
}

// CloneNode is the node the clone task creates the guest on: the target
// node when PVE can clone straight there, else the source's node (a
// migration follows).
func (req CloneRequest) CloneNode() string {
	if req.Source.Shared {
		return req.Node
	}
	return req.Source.Node
}

// Clone sends the clone request with the race handling of Create (W13):
// a lost answer is resolved by looking at the new VMID, where a guest
// locked for cloning (W11) or carrying the planned name and this clone's
// marker is ours. Before that, a clone an interrupted apply left
// half-made is looked for and, when found, taken up instead of cloning
// again. Start is never sent (W14). Clones of one source that PVE would
// refuse side by side (W10) wait for each other: the source stays held
// until the clone's task has ended.
func (a API) Clone(ctx context.Context, req CloneRequest, diags *diag.Diagnostics) (cloned Cloned, ok bool) {
	unlock, err := a.lockCloneSource(ctx, req.Source)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Clone "+a.Kind.Title, err)
		return Cloned{}, false
	}
	defer unlock()
	defer func() {
		if ok {
			a.awaitSourceFree(ctx, cloned)
		}
	}()
	halfMade, found, err := a.findHalfMadeClone(ctx, req)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Look For A Half-Made Clone", err)
		return Cloned{}, false
	}
	if found {
		return halfMade, true
	}
	marker := CloneMarker(a.Kind, req.Source.VMID)
	form := url.Values{}
	form.Set(KeyDescription, WithCloneMarker(req.Source.Config[KeyDescription], marker))
	if req.Name != "" {
		form.Set(a.Kind.NameKey, req.Name)
	}
	if req.Pool != "" {
		form.Set("pool", req.Pool)
	}
	full := req.Clone.Full.IsNull() || req.Clone.Full.IsUnknown() || req.Clone.Full.ValueBool()
	form.Set("full", pveapi.FormBool(full))
	// Sent for a linked clone too: PVE's refusal says why it cannot be.
	if storage := req.Clone.Storage.ValueString(); storage != "" {
		form.Set("storage", storage)
	}
	if req.Source.Shared && req.Node != req.Source.Node {
		form.Set("target", req.Node)
	}
	nameKey := a.Kind.NameKey
	created, ok := a.Create(ctx, CreateRequest{
		Node:     req.CloneNode(),
		VMID:     req.VMID,
		Lock:     a.Kind.cloneLock,
		AdoptOwn: true,
		Send: func(ctx context.Context, vmid int) (string, error) {
			params := make(url.Values, len(form)+1)
			for k, v := range form {
				params[k] = v
			}
			params.Set("newid", strconv.Itoa(vmid))
			return a.Client.CloneGuest(ctx, req.Source.Node, a.Kind.Type, req.Source.VMID, params)
		},
		Recognize: func(config pveapi.GuestConfig) bool {
			if req.Name != "" && config[nameKey] != req.Name {
				return false
			}
			return HasCloneMarker(config, marker)
		},
	}, diags)
	return Cloned{Created: created, Node: req.CloneNode()}, ok
}

// FinishClone moves a clone that is not on req.Node (made on its
// source's node) there: an offline migration with its local disks. A
// failure leaves the clone half-made (LeaveUnfinished).
func (a API) FinishClone(ctx context.Context, req CloneRequest, cloned *Cloned, diags *diag.Diagnostics) bool {
	if cloned.Node == req.Node {
		return true
	}
	if !a.Migrate(ctx, cloned.Node, cloned.VMID, req.Node, diags) {
		return false
	}
	cloned.Node = req.Node
	return true
}

// RemoveCloneMarker writes the description without the marker line: the
// clone is complete.
func (a API) RemoveCloneMarker(ctx context.Context, node string, vmid int, diags *diag.Diagnostics) bool {
	config, err := a.Config(ctx, node, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read "+a.Kind.Title, err)
		return false
	}
	description, found := StripCloneMarker(config[KeyDescription])
	if !found {
		return true
	}
	params := url.Values{}
	if description == "" {
		params.Set("delete", KeyDescription)
	} else {
		params.Set(KeyDescription, description)
	}
	if err := a.UpdateConfig(ctx, node, vmid, params); err != nil {
		fwutil.AddAPIError(diags, "Unable To Remove The Creation Marker From "+a.Kind.Title, err)
		return false
	}
	return true
}

// MaskCloneState keeps in a clone's state only what declared holds (see
// fwutil.MaskUndeclared).
func MaskCloneState(state *tfsdk.State, declared tftypes.Value, diags *diag.Diagnostics) {
	masked, err := fwutil.MaskUndeclared(state.Raw, declared)
	if err != nil {
		diags.AddError("Unable To Record Clone State", err.Error())
		return
	}
	state.Raw = masked
}

// CloneView converts want, prior (nil: nothing declared before) and
// inherited (the guest as PVE reports it) to Terraform values of sch,
// fills want with fwutil.FillInherited and converts the result back.
func CloneView[M any](ctx context.Context, sch schema.Schema, prior, want, inherited *M, keepNull func(*tftypes.AttributePath) bool) (*M, error) {
	raw := func(m *M) (tftypes.Value, error) {
		if m == nil {
			return tftypes.NewValue(sch.Type().TerraformType(ctx), nil), nil
		}
		state := tfsdk.State{Schema: sch}
		if d := state.Set(ctx, m); d.HasError() {
			return tftypes.Value{}, diagsError(d)
		}
		return state.Raw, nil
	}
	wantRaw, err := raw(want)
	if err != nil {
		return nil, err
	}
	priorRaw, err := raw(prior)
	if err != nil {
		return nil, err
	}
	liveRaw, err := raw(inherited)
	if err != nil {
		return nil, err
	}
	filled, err := fwutil.FillInherited(wantRaw, priorRaw, liveRaw, keepNull)
	if err != nil {
		return nil, err
	}
	var view M
	if d := (tfsdk.Plan{Schema: sch, Raw: filled}).Get(ctx, &view); d.HasError() {
		return nil, diagsError(d)
	}
	return &view, nil
}

// WithoutCloneMarker is config with the marker lines taken out of the
// description, as the finished clone will have it.
func WithoutCloneMarker(config pveapi.GuestConfig) pveapi.GuestConfig {
	out := make(pveapi.GuestConfig, len(config))
	for k, v := range config {
		out[k] = v
	}
	if description, found := StripCloneMarker(config[KeyDescription]); found {
		out[KeyDescription] = description
		if description == "" {
			delete(out, KeyDescription)
		}
	}
	return out
}

func diagsError(d diag.Diagnostics) error {
	for _, e := range d.Errors() {
		return fmt.Errorf("%s: %s", e.Summary(), e.Detail())
	}
	return nil
}

// NoInheritanceLimits is the keepNull of a guest that inherits every
// undeclared value.
func NoInheritanceLimits(*tftypes.AttributePath) bool { return false }
