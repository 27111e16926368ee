package guestops

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
)

// TurnedTemplate refuses, at refresh, a guest that became a template
// outside Terraform: PVE cannot turn it back (W17), so every update of it
// would fail at apply and a destroy would remove a template other guests
// may be cloned from. The way out is to hand it to the template resource.
func (a API) TurnedTemplate(live Live, vmid int, diags *diag.Diagnostics) bool {
	if a.Kind.Template || live.Config["template"] != "1" {
		return false
	}
	template := a.Kind.Resource + "_template"
	id := fmt.Sprintf("%s/%d", live.Node, vmid)
	diags.AddAttributeError(path.Root("vmid"), a.Kind.Title+" Was Turned Into A Template",
		fmt.Sprintf("%s %d on node %s is a template now: it was converted outside Terraform, and PVE cannot turn a template back into a %s. "+
			"%s can no longer manage it; %s can. Move it over without touching it in PVE:\n"+
			"  1. terraform state rm <this %s's address>\n"+
			"  2. declare a %s resource for it and import it: terraform import <its address> %s (or an import block with id = %q).\n"+
			"To keep a %s instead, remove this resource from state and let the configuration create a new one.",
			fwutil.Capitalize(a.Kind.Noun), vmid, live.Node, a.Kind.Noun,
			a.Kind.Resource, template, a.Kind.Resource, template, id, id, a.Kind.Noun))
	return true
}
