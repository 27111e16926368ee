package guestops

import (
	"context"
	"fmt"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// A clone takes several steps after PVE accepted it: the clone task, a
// migration when PVE could not clone straight onto the target node, the
// configuration, the start. A failure in any of them, or an apply killed
// in between, leaves a half-made guest that still carries the clone
// marker. Terraform destroys a guest whose create failed (it taints it),
// which throws away a finished copy and migration; so a recognisable
// half-made clone is left out of the state instead, and the next apply
// finds it by name and marker and carries on from where it is.

// Cloned is a clone PVE accepted, or a half-made one found again.
type Cloned struct {
	Created
	// Node is where the guest is now: where the clone task runs, or
	// where an interrupted apply left it.
	Node string
	// VMIDTaken is set when the clone task failed because another guest
	// holds the vmid (pveapi.IsCloneVMIDTaken): nothing was made.
	VMIDTaken bool
}

// recognisable reports whether a half-made clone of req can be told apart
// from every other guest on a later apply: by its VMID when one is
// configured, else by its planned name.
func (req CloneRequest) recognisable() bool {
	return req.VMID != 0 || req.Name != ""
}

// findHalfMadeClone looks for a clone of req an interrupted apply left
// half-made: a guest of this kind on the source or the target node,
// carrying this clone's marker and the planned name (listed, as the
// listing lags, under no name or the made-up one until pvestatd reports
// it: W11). PVE writes a container clone's
// config, marker included, before its task starts, but a qemu clone's
// only once the disks are copied: a qemu guest locked for cloning without
// the marker is waited for before it is judged (W13). It costs one cluster
// listing and a config read per candidate.
func (a API) findHalfMadeClone(ctx context.Context, req CloneRequest) (Cloned, bool, error) {
	if !req.recognisable() {
		return Cloned{}, false, nil
	}
	guests, err := a.Client.ClusterResources(ctx, "vm")
	if err != nil {
		return Cloned{}, false, err
	}
	nodes := map[string]bool{req.Source.Node: true, req.Node: true}
	var candidates []pveapi.Resource
	for _, g := range guests {
		vmid := g.VMID.Int()
		switch {
		case !g.IsGuest() || g.Type != a.Kind.Type || bool(g.Template) || !nodes[g.Node]:
			continue
		case vmid == req.Source.VMID || req.VMID != 0 && vmid != req.VMID:
			continue
		case req.Name != "" && string(g.Name) != req.Name && g.Name != "" && string(g.Name) != a.Kind.listedNameOf(vmid):
			// The listed name lags by up to a pvestatd cycle: a clone not
			// yet reported has none, one reported while its placeholder
			// config had no name is listed under the made-up one; the
			// config read below decides.
			continue
		}
		candidates = append(candidates, g)
	}
	slices.SortFunc(candidates, func(x, y pveapi.Resource) int { return x.VMID.Int() - y.VMID.Int() })
	marker := CloneMarker(a.Kind, req.Source.VMID)
	for _, g := range candidates {
		vmid := g.VMID.Int()
		config, err := a.Config(ctx, g.Node, vmid)
		if pveapi.IsNotFound(err) {
			continue
		}
		if err != nil {
			return Cloned{}, false, err
		}
		if a.Kind.cloneConfigLate && config.Lock() == a.Kind.cloneLock && !HasCloneMarker(config, marker) {
			if _, err := a.Client.WaitUnlocked(ctx, g.Node, a.Kind.Type, vmid); err != nil && !pveapi.IsNotFound(err) {
				return Cloned{}, false, err
			}
			if config, err = a.Config(ctx, g.Node, vmid); pveapi.IsNotFound(err) {
				continue // the clone task failed and PVE removed it
			} else if err != nil {
				return Cloned{}, false, err
			}
		}
		if !HasCloneMarker(config, marker) {
			continue
		}
		if name, named := config[a.Kind.NameKey]; req.Name != "" && named && name != req.Name {
			continue
		}
		if a.claim(vmid) {
			return Cloned{Created: Created{VMID: vmid, Adopted: true}, Node: g.Node}, true, nil
		}
	}
	return Cloned{}, false, nil
}

// AwaitClone waits for the clone task or, for a half-made clone found
// again, for its lock to go; a guest that migrates away meanwhile is
// followed to its new node.
func (a API) AwaitClone(ctx context.Context, cloned *Cloned, diags *diag.Diagnostics) bool {
	summary := "Unable To Clone " + a.Kind.Title
	if cloned.UPID != "" {
		result, err := a.Client.WaitTask(ctx, cloned.UPID)
		if pveapi.IsCloneVMIDTaken(err) {
			// W13: PVE accepted the clone, its check before the task
			// looking at its own node only; the task then found the vmid
			// held elsewhere in the cluster.
			cloned.VMIDTaken = true
			fwutil.AddAttributeAPIError(diags, path.Root("vmid"), "VMID Already In Use", fmt.Errorf(
				"%w\n\nVMID %d is held by another guest in the cluster (on another node, or a container), so PVE could not clone onto it; "+
					"nothing was made. Choose another vmid, or leave vmid out to have one allocated", err, cloned.VMID))
			return false
		}
		return fwutil.ReportTask(result, err, fmt.Sprintf("creating %s %d", a.Kind.Noun, cloned.VMID), "Unable To Create "+a.Kind.Title, diags)
	}
	for moves := 0; moves < 2; moves++ {
		_, err := a.Client.WaitUnlocked(ctx, cloned.Node, a.Kind.Type, cloned.VMID)
		if err == nil {
			return true
		}
		if !pveapi.IsNotFound(err) {
			fwutil.AddAPIError(diags, summary, err)
			return false
		}
		guest, found, err := a.Client.FindGuest(ctx, cloned.VMID)
		if err != nil {
			fwutil.AddAPIError(diags, summary, err)
			return false
		}
		if !found || guest.Type != a.Kind.Type {
			diags.AddError(summary, fmt.Sprintf(
				"%s %d, a clone an earlier apply left unfinished, was removed while this apply waited for it: its clone task failed. "+
					"See the PVE task log on node %s, then run apply again.", fwutil.Capitalize(a.Kind.Noun), cloned.VMID, cloned.Node))
			return false
		}
		cloned.Node = guest.Node
	}
	diags.AddError(summary, fmt.Sprintf("%s %d keeps moving between nodes; run apply again once it rests.", fwutil.Capitalize(a.Kind.Noun), cloned.VMID))
	return false
}

// LeaveUnfinished is called when setting up a clone failed after PVE
// accepted it. A clone that a later apply can recognise is taken out of
// the state, so Terraform does not destroy it, and a warning tells how
// the next apply finishes it; any other keeps its state and is replaced.
func (a API) LeaveUnfinished(ctx context.Context, state *tfsdk.State, req CloneRequest, cloned Cloned, diags *diag.Diagnostics) {
	if cloned.VMIDTaken {
		// Nothing was made: the guest at that vmid is another one, which
		// a tainted state would have the next apply destroy.
		state.RemoveResource(ctx)
		return
	}
	if !req.recognisable() {
		return
	}
	state.RemoveResource(ctx)
	guest, found, err := a.Client.FindGuest(ctx, cloned.VMID)
	if err == nil && (!found || guest.Type != a.Kind.Type) {
		return // the clone task failed and PVE removed the guest
	}
	if found {
		cloned.Node = guest.Node
	}
	steps := "configures it"
	if cloned.Node != req.Node {
		steps = fmt.Sprintf("migrates it to node %s, configures it", req.Node)
	}
	diags.AddWarning("Clone Left Unfinished", fmt.Sprintf(
		"%s %d on node %s was cloned from %d but not finished (see the error). It is not recorded in the Terraform state, "+
			"so the next apply does not destroy it: that apply finds it by its marker line in the description (%q), "+
			"%s and removes the marker. If you no longer want it, delete %s %d in PVE.",
		fwutil.Capitalize(a.Kind.Noun), cloned.VMID, cloned.Node, req.Source.VMID, CloneMarker(a.Kind, req.Source.VMID),
		steps, a.Kind.Noun, cloned.VMID))
}
