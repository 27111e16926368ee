package sdn

import (
	"context"
	"fmt"
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
	_ resource.Resource                   = (*pluginResource)(nil)
	_ resource.ResourceWithConfigure      = (*pluginResource)(nil)
	_ resource.ResourceWithImportState    = (*pluginResource)(nil)
	_ resource.ResourceWithValidateConfig = (*pluginResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*pluginResource)(nil)
)

// pluginWriter stages one change of an SDN object: on PVE 9 under the SDN
// lock, fn sending lockToken as lock-token when it is not empty.
type pluginWriter interface {
	Write(ctx context.Context, sdnID string, fn func(ctx context.Context, lockToken string) error) error
}

// pluginResource is pve_sdn_controller, pve_sdn_ipam or pve_sdn_dns: one
// object of an SDN plugin family, its attributes from the family's table.
type pluginResource struct {
	fam          wire.SDNPluginFamily
	text         pluginText
	client       *pveapi.Client
	writer       pluginWriter
	providerName string
}

func (r *pluginResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	r.providerName = req.ProviderTypeName
	resp.TypeName = r.typeNameFor(req.ProviderTypeName)
}

func (r *pluginResource) typeNameFor(provider string) string {
	if provider == "" {
		provider = "pve"
	}
	return provider + "_sdn_" + r.fam.Kind
}

func (r *pluginResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = pluginSchema(r.fam, r.text)
}

func (r *pluginResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		r.client = pd.Client
		r.writer = pd.SDN
	}
}

func (r *pluginResource) sdnID(id string) string { return r.fam.Kind + "/" + id }

// secrets are the configuration's sensitive options that are set.
func (r *pluginResource) secrets(ctx context.Context, config pluginGetter, typ string, diags *diag.Diagnostics) map[string]string {
	out := map[string]string{}
	t, ok := r.fam.Type(typ)
	if !ok {
		return out
	}
	for _, o := range t.Options {
		if !o.Sensitive {
			continue
		}
		var v types.String
		diags.Append(config.GetAttribute(ctx, path.Root(pluginWOName(o.SDNPluginOption)), &v)...)
		if !v.IsNull() && !v.IsUnknown() {
			out[o.Key] = v.ValueString()
		}
	}
	return out
}

// changedSecrets are the sensitive options of typ whose version changed.
func (r *pluginResource) changedSecrets(ctx context.Context, state, plan pluginGetter, typ string, diags *diag.Diagnostics) []string {
	var out []string
	t, _ := r.fam.Type(typ)
	for _, o := range t.Options {
		if !o.Sensitive {
			continue
		}
		var before, after types.Int64
		diags.Append(state.GetAttribute(ctx, path.Root(pluginWOVersionName(o.SDNPluginOption)), &before)...)
		diags.Append(plan.GetAttribute(ctx, path.Root(pluginWOVersionName(o.SDNPluginOption)), &after)...)
		if !after.IsUnknown() && !before.Equal(after) {
			out = append(out, o.Key)
		}
	}
	return out
}

func (r *pluginResource) idAndType(ctx context.Context, g pluginGetter, diags *diag.Diagnostics) (id, typ string) {
	var idv, typv types.String
	diags.Append(g.GetAttribute(ctx, path.Root(r.fam.IDKey), &idv)...)
	diags.Append(g.GetAttribute(ctx, path.Root(pluginAttrType), &typv)...)
	return idv.ValueString(), typv.ValueString()
}

func (r *pluginResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	id, typ := r.idAndType(ctx, req.Plan, &resp.Diagnostics)
	d := readPluginOptions(ctx, req.Plan, r.fam, &resp.Diagnostics)
	secrets := r.secrets(ctx, req.Config, typ, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	opts := d.opts
	for k, v := range secrets {
		opts[k] = v
	}
	err := r.writer.Write(ctx, r.sdnID(id), func(ctx context.Context, lockToken string) error {
		return r.client.CreateSDNPlugin(ctx, r.fam, id, typ, opts, lockToken)
	})
	if err != nil {
		r.writeError(&resp.Diagnostics, "Unable To Create "+r.title(), err)
		return
	}
	resp.State.Raw = req.Plan.Raw.Copy()
	r.readBack(ctx, id, &resp.State, &resp.Diagnostics)
}

// writeError adds the diagnostic of a failed write; for a staged family
// it says what happens to the changes staged before.
func (r *pluginResource) writeError(diags *diag.Diagnostics, summary string, err error) {
	if r.fam.Staged {
		writeError(diags, summary, err)
		return
	}
	fwutil.AddAPIError(diags, summary, err)
}

// title is the noun in Title Case for diagnostics ("SDN Controller").
func (r *pluginResource) title() string {
	words := strings.Fields(r.text.noun)
	for i, w := range words {
		if w == strings.ToLower(w) {
			words[i] = strings.ToUpper(w[:1]) + w[1:]
		}
	}
	return strings.Join(words, " ")
}

// readBack reads the object after a write, so state holds what PVE keeps.
func (r *pluginResource) readBack(ctx context.Context, id string, s pluginSetter, diags *diag.Diagnostics) {
	obj, found, err := r.client.GetSDNPlugin(ctx, r.fam, id)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read "+r.title()+" After Writing It", err)
		return
	}
	if !found {
		fwutil.AddVanishedAfterWrite(diags, r.title(), r.text.noun+" "+id)
		return
	}
	r.setState(ctx, s, id, obj, diags)
}

func (r *pluginResource) setState(ctx context.Context, s pluginSetter, id string, obj pveapi.SDNPluginObject, diags *diag.Diagnostics) {
	diags.Append(s.SetAttribute(ctx, path.Root(pluginAttrID), id)...)
	diags.Append(s.SetAttribute(ctx, path.Root(r.fam.IDKey), id)...)
	diags.Append(s.SetAttribute(ctx, path.Root(pluginAttrSDNID), r.sdnID(id))...)
	diags.Append(s.SetAttribute(ctx, path.Root(pluginAttrType), obj.Type)...)
	setPluginOptions(ctx, s, r.fam, obj.Options, diags)
}

func (r *pluginResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	id, typ := r.idAndType(ctx, req.State, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	obj, found, err := r.client.GetSDNPlugin(ctx, r.fam, id)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read "+r.title(), err)
		return
	}
	if !found {
		resp.State.RemoveResource(ctx)
		return
	}
	if typ != "" && obj.Type != typ {
		resp.Diagnostics.AddError(r.title()+" Type Changed", fmt.Sprintf(
			"The %s %s is now of type %s in PVE, not %s: it was redefined outside Terraform. "+
				"Change type to %s in the configuration and run terraform plan again, or delete it in PVE to let Terraform create it again.",
			r.text.noun, id, obj.Type, typ, obj.Type))
		return
	}
	r.setState(ctx, &resp.State, id, obj, &resp.Diagnostics)
}

func (r *pluginResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	id, typ := r.idAndType(ctx, req.State, &resp.Diagnostics)
	plan := readPluginOptions(ctx, req.Plan, r.fam, &resp.Diagnostics)
	state := readPluginOptions(ctx, req.State, r.fam, &resp.Diagnostics)
	secrets := r.secrets(ctx, req.Config, typ, &resp.Diagnostics)
	changed := r.changedSecrets(ctx, req.State, req.Plan, typ, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	delta := pluginDelta(r.fam, state, plan)
	for _, key := range changed {
		if v, ok := secrets[key]; ok {
			delta.Set(key, v)
		}
		// A required secret cannot be removed (ValidateConfig keeps it
		// declared); an optional one does not exist yet.
	}
	if !delta.IsEmpty() {
		err := r.writer.Write(ctx, r.sdnID(id), func(ctx context.Context, lockToken string) error {
			digest := ""
			if !r.fam.Staged {
				// ipams.cfg and dns.cfg carry a digest; the pending view of
				// controllers does not.
				obj, found, err := r.client.GetSDNPlugin(ctx, r.fam, id)
				if err != nil {
					return err
				}
				if found {
					digest = obj.Digest
				}
			}
			return r.client.UpdateSDNPlugin(ctx, r.fam, id, typ, delta, digest, lockToken)
		})
		if err != nil {
			r.writeError(&resp.Diagnostics, "Unable To Update "+r.title(), err)
			return
		}
	}
	resp.State.Raw = req.Plan.Raw.Copy()
	r.readBack(ctx, id, &resp.State, &resp.Diagnostics)
}

func (r *pluginResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	id, _ := r.idAndType(ctx, req.State, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	err := r.writer.Write(ctx, r.sdnID(id), func(ctx context.Context, lockToken string) error {
		return r.client.DeleteSDNPlugin(ctx, r.fam, id, lockToken)
	})
	if err != nil {
		r.writeError(&resp.Diagnostics, "Unable To Delete "+r.title(), err)
	}
}

func (r *pluginResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if !wire.IsSDNPluginIDFor(r.fam, req.ID) {
		resp.Diagnostics.AddError("Invalid Import ID", fmt.Sprintf("Import %s by its id (for example %q), got %q: %s.",
			r.typeNameFor(r.providerName), r.text.example, req.ID, wire.SDNPluginIDRule(r.fam)))
		return
	}
	obj, found, err := r.client.GetSDNPlugin(ctx, r.fam, req.ID)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read "+r.title(), err)
		return
	}
	if !found {
		resp.Diagnostics.AddError(r.title()+" Not Found", fmt.Sprintf("PVE has no %s %q to import.", r.text.noun, req.ID))
		return
	}
	if _, ok := r.fam.Type(obj.Type); !ok {
		resp.Diagnostics.AddError("Unsupported "+r.title()+" Type", fmt.Sprintf(
			"The %s %s is of type %s, which %s does not manage (types: %s).",
			r.text.noun, req.ID, obj.Type, r.typeNameFor(r.providerName), strings.Join(r.fam.TypeNames(), ", ")))
		return
	}
	r.setState(ctx, &resp.State, req.ID, obj, &resp.Diagnostics)
	t, _ := r.fam.Type(obj.Type)
	var names []string
	for _, o := range t.Options {
		if o.Sensitive {
			names = append(names, pluginWOName(o.SDNPluginOption))
		}
	}
	if len(names) > 0 {
		resp.Diagnostics.AddWarning("Secrets Not Imported", fmt.Sprintf(
			"Terraform does not read the %s's secrets, so %s start unknown to Terraform; PVE keeps its current ones. "+
				"Set the matching *_wo_version to send a value at the next apply.", r.text.noun, strings.Join(names, ", ")))
	}
}
