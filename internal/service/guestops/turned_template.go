package guestops

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
)

// turnedTemplateKey is the private state key marking a guest that became
// a template outside Terraform, with where it is.
const turnedTemplateKey = "turned_template"

type turnedTemplate struct {
	Node string `json:"node"`
	VMID int    `json:"vmid"`
}

// MarkTurnedTemplate notes, at refresh, whether the guest became a
// template outside Terraform: PVE cannot turn it back (W17), so every
// update of it would fail at apply and a destroy would remove a template
// other guests may be cloned from. The refresh keeps the prior state and
// leaves the refusal to the plan (RefuseTurnedTemplate): a `removed` block
// that forgets the resource plans nothing, and OpenTofu reads the
// resource before forgetting it, so a refusal at refresh would block the
// very way out the refusal names. It reports whether the guest is one.
func (a API) MarkTurnedTemplate(ctx context.Context, private PrivateSetter, live Live, vmid int, diags *diag.Diagnostics) bool {
	if a.Kind.Template || live.Config["template"] != "1" {
		diags.Append(private.SetKey(ctx, turnedTemplateKey, nil)...)
		return false
	}
	raw, err := json.Marshal(turnedTemplate{Node: live.Node, VMID: vmid})
	if err != nil {
		diags.AddError("Internal Error", err.Error())
		return true
	}
	diags.Append(private.SetKey(ctx, turnedTemplateKey, raw)...)
	return true
}

// RefuseTurnedTemplate refuses every plan (destroy plans included) of a
// guest that MarkTurnedTemplate found turned into a template, naming the
// way out: hand it to the template resource. It reports whether it did.
func (a API) RefuseTurnedTemplate(ctx context.Context, private PrivateGetter, diags *diag.Diagnostics) bool {
	raw, d := private.GetKey(ctx, turnedTemplateKey)
	diags.Append(d...)
	if len(raw) == 0 {
		return false
	}
	var t turnedTemplate
	if err := json.Unmarshal(raw, &t); err != nil {
		return false
	}
	template := a.Kind.Resource + "_template"
	id := fmt.Sprintf("%s/%d", t.Node, t.VMID)
	diags.AddAttributeError(path.Root("vmid"), a.Kind.Title+" Was Turned Into A Template",
		fmt.Sprintf("%s %d on node %s is a template now: it was converted outside Terraform, and PVE cannot turn a template back into a %s. "+
			"%s can no longer manage it; %s can. Move it over without touching it in PVE:\n"+
			"  1. terraform state rm <this %s's address> (or a removed block with lifecycle { destroy = false })\n"+
			"  2. declare a %s resource for it and import it: terraform import <its address> %s (or an import block with id = %q).\n"+
			"To keep a %s instead, remove this resource from state and let the configuration create a new one.",
			fwutil.Capitalize(a.Kind.Noun), t.VMID, t.Node, a.Kind.Noun,
			a.Kind.Resource, template, a.Kind.Resource, template, id, id, a.Kind.Noun))
	return true
}
