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

// ValidateConfig checks the content types and the retention as PVE does.
func (r *storageResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	validateContent(ctx, req.Config, &resp.Diagnostics)
	if _, ok := r.st.Option(wire.StorageKeyPrune); !ok {
		return
	}
	var ret *fwutil.Retention
	var obj types.Object
	at := path.Root(wire.StorageAttributeName(wire.StorageKeyPrune))
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, at, &obj)...)
	if resp.Diagnostics.HasError() || obj.IsUnknown() {
		return
	}
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, at, &ret)...)
	fwutil.ValidateRetention(ret, at, "keep every backup", &resp.Diagnostics)
}

// validateContent refuses "none" beside other content types
// (pve-storage src/PVE/Storage/Plugin.pm decode_value: "unable to combine
// 'none' with other content types").
func validateContent(ctx context.Context, config attrGetter, diags *diag.Diagnostics) {
	var set types.Set
	diags.Append(config.GetAttribute(ctx, path.Root(wire.StorageKeyContent), &set)...)
	if set.IsNull() || set.IsUnknown() {
		return
	}
	var items []types.String
	diags.Append(set.ElementsAs(ctx, &items, false)...)
	if len(items) < 2 {
		return
	}
	for _, it := range items {
		if it.ValueString() == "none" {
			diags.AddAttributeError(path.Root(wire.StorageKeyContent), "Content None With Other Types",
				"content \"none\" means the storage holds no content and cannot be combined with other content types; "+
					"PVE refuses it. Declare either [\"none\"] or the content types.")
			return
		}
	}
}

// ModifyPlan refuses the options the cluster's PVE release lacks, warns
// about replacements (the definition only: volumes stay), and on a
// destroy plan refuses to drop a storage holding guest disks.
func (r *storageResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if r.client == nil {
		return
	}
	if req.Plan.Raw.IsNull() {
		r.refuseDestroyWithVolumes(ctx, req.State, &resp.Diagnostics, "Destroying")
		return
	}
	plan := readOptions(ctx, req.Plan, r.st, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	r.refuseNewerOptions(ctx, plan, &resp.Diagnostics)
	if req.State.Raw.IsNull() {
		return
	}
	state := readOptions(ctx, req.State, r.st, &resp.Diagnostics)
	var planID, stateID types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root(attrStorage), &planID)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root(attrStorage), &stateID)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var replaced []string
	if !planID.IsUnknown() && planID.ValueString() != stateID.ValueString() {
		replaced = append(replaced, attrStorage)
	}
	for _, o := range r.st.Options {
		if !o.Fixed || plan.unknown[o.Key] {
			continue
		}
		pv, inPlan := plan.opts[o.Key]
		sv, inState := state.opts[o.Key]
		if inPlan != inState || pv != sv {
			replaced = append(replaced, wire.StorageAttributeName(o.Key))
		}
	}
	if len(replaced) == 0 {
		return
	}
	sort.Strings(replaced)
	resp.Diagnostics.AddWarning("Storage Definition Replaced", fmt.Sprintf(
		"PVE sets %s of storage %s at creation only, so this plan deletes the storage definition and creates it again. "+
			"Only the definition is replaced: the data and volumes on the storage stay, but guests and jobs referring to "+
			"the storage cannot reach it in between.", strings.Join(replaced, ", "), stateID.ValueString()))
	r.refuseDestroyWithVolumes(ctx, req.State, &resp.Diagnostics, "Replacing")
}

// refuseNewerOptions refuses options the cluster's PVE release lacks
// (those only in PVE 9's API schema of POST /storage).
func (r *storageResource) refuseNewerOptions(ctx context.Context, plan declared, diags *diag.Diagnostics) {
	var newer []wire.StorageTypeOption
	for _, o := range r.st.Options {
		if _, set := plan.opts[o.Key]; set && o.Since9 {
			newer = append(newer, o)
		}
	}
	if len(newer) == 0 {
		return
	}
	release, err := fwutil.PVERelease(ctx, r.client)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read The PVE Release", err)
		return
	}
	if release.AtLeast(wire.PVE90) {
		return
	}
	for _, o := range newer {
		name := wire.StorageAttributeName(o.Key)
		diags.AddAttributeError(path.Root(name), "Option Needs PVE 9",
			fmt.Sprintf("%s exists from PVE 9.0 on; this cluster runs PVE %s. Remove %s.", name, release, name))
	}
}

// guestContent are the content types of guest disks.
var guestContent = map[string]bool{"images": true, "rootdir": true}

// maxListed is how many volumes a refusal names.
const maxListed = 10

// refuseDestroyWithVolumes refuses a plan that drops the storage while the
// provider sees guest disks on it (GET /nodes/{node}/storage/{id}/content
// on each node the storage is available on), unless the state allows it.
// PVE's DELETE /storage/{storage} checks nothing of the kind (pve-storage
// src/PVE/API2/Storage/Config.pm delete): it only removes the definition.
// A node where the content cannot be listed (offline, storage inactive) is
// skipped: the check covers what the provider can see.
func (r *storageResource) refuseDestroyWithVolumes(ctx context.Context, state attrGetter, diags *diag.Diagnostics, doing string) {
	var allow types.Bool
	var id types.String
	var nodesSet types.Set
	diags.Append(state.GetAttribute(ctx, path.Root(attrAllowDestroy), &allow)...)
	diags.Append(state.GetAttribute(ctx, path.Root(attrStorage), &id)...)
	if _, ok := r.st.Option(wire.StorageKeyNodes); ok {
		diags.Append(state.GetAttribute(ctx, path.Root(wire.StorageKeyNodes), &nodesSet)...)
	}
	if diags.HasError() || allow.ValueBool() || id.IsNull() {
		return
	}
	var nodes []string
	if !nodesSet.IsNull() && !nodesSet.IsUnknown() {
		diags.Append(nodesSet.ElementsAs(ctx, &nodes, false)...)
	} else {
		all, err := r.client.Nodes(ctx)
		if err != nil {
			fwutil.AddAPIError(diags, "Unable To List Nodes", err)
			return
		}
		for _, n := range all {
			if n.Status == "" || n.Status == "online" {
				nodes = append(nodes, n.Node)
			}
		}
	}
	sort.Strings(nodes)
	seen := map[string]bool{}
	var volumes []string
	for _, node := range nodes {
		content, err := r.client.StorageContent(ctx, node, id.ValueString(), "")
		if err != nil {
			continue
		}
		volumes = append(volumes, guestVolumes(content, seen)...)
	}
	if len(volumes) == 0 {
		return
	}
	sort.Strings(volumes)
	listed := volumes
	more := ""
	if len(listed) > maxListed {
		more = fmt.Sprintf(" and %d more", len(listed)-maxListed)
		listed = listed[:maxListed]
	}
	diags.AddAttributeError(path.Root(attrAllowDestroy), "Storage Holds Guest Disks", fmt.Sprintf(
		"%s storage %s would leave guest disks on a storage PVE no longer knows: %s%s. Move or delete those disks first, "+
			"or set %s = true and apply it before destroying (the disks stay on the backing storage).",
		doing, id.ValueString(), strings.Join(listed, ", "), more, attrAllowDestroy))
}

// guestVolumes are the guest disks among a storage's content not yet seen.
func guestVolumes(content []pveapi.StorageVolume, seen map[string]bool) []string {
	var out []string
	for _, v := range content {
		if !guestContent[v.Content] || v.VMID.Int() == 0 || seen[v.VolID] {
			continue
		}
		seen[v.VolID] = true
		out = append(out, v.VolID)
	}
	return out
}
