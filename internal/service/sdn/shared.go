package sdn

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// Attribute names every SDN object resource has.
const (
	attrID    = "id"
	attrSDNID = "sdn_id"
)

// base is what every SDN object resource holds: the client and the
// provider configuration's SDN session, through which all writes go.
type base struct {
	client  *pveapi.Client
	session *pveapi.SDNSession
}

func (b *base) configure(raw any, diags *diag.Diagnostics) {
	if pd := fwutil.ProviderDataFrom(raw, diags); pd != nil {
		b.client, b.session = pd.Client, pd.SDN
	}
}

// staged returns the staged values of the object id among entries; found
// is false when PVE has no such object or stages its deletion.
func staged(entries []pveapi.SDNEntry, id string) (values map[string]any, found bool) {
	e, ok := pveapi.FindSDNEntry(entries, id)
	if !ok {
		return nil, false
	}
	return e.Effective()
}

// setSDNIDInPlan sets sdn_id in a create or update plan from the
// configuration's identity (unknown while that is unknown).
func setSDNIDInPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, id types.String) {
	if req.Plan.Raw.IsNull() {
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(attrSDNID), id)...)
}

// writeError adds the diagnostic of a failed staged write, saying that the
// changes already staged stay pending.
func writeError(diags *diag.Diagnostics, summary string, err error) {
	detail := fwutil.APIErrorDetail(err)
	detail += "\n\nThe SDN changes this run staged before stay pending in PVE; the next apply of pve_sdn_applier applies them, " +
		"or roll them back in PVE (Datacenter → SDN, or POST /cluster/sdn/rollback)."
	diags.AddError(summary, detail)
}

// vanished is the error of an object missing right after its write.
func vanished(diags *diag.Diagnostics, title, object string) {
	fwutil.AddVanishedAfterWrite(diags, title, object)
}

func quoted(s string) string { return fmt.Sprintf("%q", s) }
