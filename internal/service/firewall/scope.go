// Package firewall holds the resources and data sources of PVE's firewall:
// the options and rules of the cluster's, a node's and a guest's firewall,
// security groups, aliases and IP sets.
package firewall

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
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
)

// Which firewall an object belongs to is chosen by two attributes: vmid for
// a guest's firewall (wherever the guest runs: PVE keeps a guest's firewall
// in one cluster-wide file, so it follows migrations), node for a node's
// own firewall, neither for the cluster's.

// scopeKind names the three kinds of firewall.
type scopeKind int

const (
	clusterScope scopeKind = iota
	nodeScope
	guestScope
)

// scopeRef is the scope as configured: at most one of Node and VMID.
type scopeRef struct {
	Node string
	VMID int
}

func (s scopeRef) kind() scopeKind {
	switch {
	case s.VMID != 0:
		return guestScope
	case s.Node != "":
		return nodeScope
	default:
		return clusterScope
	}
}

// scopeFromModel reads the scope attributes; null means not set.
func scopeFromModel(node types.String, vmid types.Int64) scopeRef {
	return scopeRef{Node: node.ValueString(), VMID: int(vmid.ValueInt64())}
}

// String is the scope in ids and messages: "cluster", "node/NAME" or
// "guest/VMID".
func (s scopeRef) String() string {
	switch s.kind() {
	case guestScope:
		return "guest/" + strconv.Itoa(s.VMID)
	case nodeScope:
		return "node/" + s.Node
	default:
		return "cluster"
	}
}

// describe names the firewall for a user: "the cluster's firewall", "node
// pve1's firewall", "guest 100's firewall".
func (s scopeRef) describe() string {
	switch s.kind() {
	case guestScope:
		return fmt.Sprintf("guest %d's firewall", s.VMID)
	case nodeScope:
		return fmt.Sprintf("node %s's firewall", s.Node)
	default:
		return "the cluster's firewall"
	}
}

// parseScope reads a scope written as String writes it; rest is what
// follows it after a "/" (an alias's or IP set's name in import ids).
func parseScope(id string) (scope scopeRef, rest string, err error) {
	head, tail, _ := strings.Cut(id, "/")
	switch head {
	case "cluster":
		return scopeRef{}, tail, nil
	case "node":
		node, more, _ := strings.Cut(tail, "/")
		if node == "" {
			return scopeRef{}, "", fmt.Errorf("%q names no node: write node/NAME", id)
		}
		return scopeRef{Node: node}, more, nil
	case "guest":
		vmidText, more, _ := strings.Cut(tail, "/")
		vmid, convErr := strconv.Atoi(vmidText)
		if convErr != nil || vmid < 100 || vmid > 999999999 {
			return scopeRef{}, "", fmt.Errorf("%q names no guest: write guest/VMID with a VMID of 100 to 999999999", id)
		}
		return scopeRef{VMID: vmid}, more, nil
	}
	return scopeRef{}, "", fmt.Errorf("%q starts with neither cluster, node/NAME nor guest/VMID", id)
}

// resolve finds where PVE serves the scope's firewall. A guest's firewall is
// addressed through the guest's node and type, looked up in a cluster
// listing that every firewall object of the command shares; found is false
// when no guest has the VMID.
func (s scopeRef) resolve(ctx context.Context, client *pveapi.Client) (scope pveapi.FirewallScope, found bool, err error) {
	switch s.kind() {
	case guestScope:
		guest, ok, err := client.LocateGuest(ctx, s.VMID)
		if err != nil || !ok {
			return pveapi.FirewallScope{}, false, err
		}
		return pveapi.FirewallScope{Node: guest.Node, GuestType: guest.Type, VMID: s.VMID}, true, nil
	case nodeScope:
		return pveapi.FirewallScope{Node: s.Node}, true, nil
	default:
		return pveapi.FirewallScope{}, true, nil
	}
}

// resolveForWrite finds the firewall a write goes to; a guest that does
// not exist is an error pointing at vmid.
func resolveForWrite(ctx context.Context, client *pveapi.Client, scope scopeRef, summary string, diags *diag.Diagnostics) (pveapi.FirewallScope, bool) {
	return resolveOrReport(ctx, client, scope, summary, summary, diags)
}

// resolveFirewall finds the firewall a whole-firewall object (its options,
// the references it offers) is read from or written to.
func resolveFirewall(ctx context.Context, client *pveapi.Client, scope scopeRef, diags *diag.Diagnostics) (pveapi.FirewallScope, bool) {
	return resolveOrReport(ctx, client, scope, "Unable To Find The Guest Of The Firewall", "Guest Not Found", diags)
}

// resolveOrReport finds the scope's firewall; a failed lookup is reported
// under errSummary, a guest that does not exist under missingSummary,
// pointing at vmid.
func resolveOrReport(ctx context.Context, client *pveapi.Client, scope scopeRef, errSummary, missingSummary string, diags *diag.Diagnostics) (pveapi.FirewallScope, bool) {
	fw, found, err := scope.resolve(ctx, client)
	if err != nil {
		fwutil.AddAPIError(diags, errSummary, err)
		return pveapi.FirewallScope{}, false
	}
	if !found {
		diags.AddAttributeError(path.Root("vmid"), missingSummary, scope.missingGuestDetail())
		return pveapi.FirewallScope{}, false
	}
	return fw, true
}

// resolveExisting finds the firewall of an object the state holds, for
// Read and Delete. ok is false when the lookup failed (reported under
// summary) and when the guest is gone, and its firewall with it: then gone
// runs, when given (Read forgets the object; Delete has nothing left to do).
func resolveExisting(ctx context.Context, client *pveapi.Client, scope scopeRef, summary string, diags *diag.Diagnostics, gone func()) (pveapi.FirewallScope, bool) {
	fw, found, err := scope.resolve(ctx, client)
	if err != nil {
		fwutil.AddAPIError(diags, summary, err)
		return pveapi.FirewallScope{}, false
	}
	if !found {
		if gone != nil {
			gone()
		}
		return pveapi.FirewallScope{}, false
	}
	return fw, true
}

// missingGuestDetail explains a guest scope whose guest does not exist.
func (s scopeRef) missingGuestDetail() string {
	return fmt.Sprintf("No VM or container has VMID %d. A guest's firewall exists only with its guest: "+
		"create the guest first (refer to it as pve_vm.NAME.vmid or pve_container.NAME.vmid so Terraform orders the two), "+
		"or correct vmid.", s.VMID)
}

// importScopedName imports an object named within a cluster's or guest's
// firewall (an alias, an IP set) from its id, SCOPE/NAME: parse reads the
// id, typeName names the resource in its error.
func importScopedName(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse, typeName string, parse func(string) (scopeRef, string, error)) {
	scope, name, err := parse(req.ID)
	if err != nil {
		resp.Diagnostics.AddError("Invalid Import ID", "Import "+typeName+" as cluster/NAME or guest/VMID/NAME: "+err.Error()+".")
		return
	}
	if scope.kind() == guestScope {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("vmid"), int64(scope.VMID))...)
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), scopedNameID(scope, name))...)
}

// scopedNameID is the id of an object named within a firewall: SCOPE/NAME.
func scopedNameID(scope scopeRef, name string) string { return scope.String() + "/" + name }

// scopeAttributes are the node and vmid attributes; which kinds of
// firewall a resource supports is its own check (validateScope).
// Changing either moves the object to another firewall, which PVE cannot
// do in place.
func scopeAttributes(what string, withNode bool) map[string]schema.Attribute {
	attrs := map[string]schema.Attribute{
		"vmid": schema.Int64Attribute{
			MarkdownDescription: "The VMID of the VM or container whose firewall holds " + what + ". The firewall follows the guest " +
				"when it migrates. Unset: the cluster's firewall" + map[bool]string{true: " (or the node's, with `node`)", false: ""}[withNode] + ".",
			Optional:      true,
			Validators:    []validator.Int64{int64validator.Between(100, 999999999)},
			PlanModifiers: []planmodifier.Int64{int64planmodifier.RequiresReplace()},
		},
	}
	if withNode {
		attrs["node"] = schema.StringAttribute{
			MarkdownDescription: "The node whose own firewall (host firewall) holds " + what + ". Not together with `vmid`.",
			Optional:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
		}
	}
	return attrs
}

// conflictingScope reports node and vmid set together.
func conflictingScope(node types.String, vmid types.Int64) (path.Path, string, bool) {
	if !node.IsNull() && !node.IsUnknown() && !vmid.IsNull() && !vmid.IsUnknown() {
		return path.Root("node"), "Set either node (a node's own firewall) or vmid (a guest's firewall), not both: " +
			"a guest's firewall follows the guest from node to node.", true
	}
	return path.Empty(), "", false
}

// referencePrefix is how a rule names the scope of an alias or IP set:
// "dc/" for the cluster's, "guest/" for the guest's own (pve-firewall
// src/PVE/Firewall.pm verify_rule reads both).
func (s scopeRef) referencePrefix() string {
	if s.kind() == guestScope {
		return "guest/"
	}
	return "dc/"
}

// refAttribute is the ref attribute of aliases and IP sets.
func refAttribute(what, example string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: "What a rule's `source` or `dest` writes to use " + what + ", for example `" + example + "`. " +
			"Known once it exists (and again after a rename), so a rule that refers to it is written after it and " +
			"its name is checked when the rule is planned.",
		Computed: true,
	}
}

// planRef keeps ref while what it names stays, and leaves it unknown when
// the object is new or renamed, so rules that use it wait for it.
func planRef(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() {
		return
	}
	var planName, stateName, stateRef types.String
	var planVMID, stateVMID types.Int64
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("name"), &planName)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("name"), &stateName)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("vmid"), &planVMID)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("vmid"), &stateVMID)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("ref"), &stateRef)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if planName.Equal(stateName) && planVMID.Equal(stateVMID) {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("ref"), stateRef)...)
	}
}
