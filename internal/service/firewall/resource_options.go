package firewall

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

var (
	_ resource.Resource                   = (*optionsResource)(nil)
	_ resource.ResourceWithConfigure      = (*optionsResource)(nil)
	_ resource.ResourceWithImportState    = (*optionsResource)(nil)
	_ resource.ResourceWithValidateConfig = (*optionsResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*optionsResource)(nil)
)

// Private state keys. The digest is PVE's digest of the scope's options as
// last read; an update sends it so PVE refuses the write when another
// client changed the options since. The adopt flag marks a state made by
// import, whose first read takes every option PVE has.
const (
	privateDigestKey = "options_digest"
	privateAdoptKey  = "adopt_options"
)

// NewOptionsResource is the pve_firewall_options constructor registered with
// the provider.
func NewOptionsResource() resource.Resource {
	return fwutil.WithIdentity(&optionsResource{}, firewallIdentity)
}

type optionsResource struct {
	client *pveapi.Client
}

func (r *optionsResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_firewall_options"
}

func (r *optionsResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs := scopeAttributes("the options", true)
	attrs["id"] = schema.StringAttribute{
		MarkdownDescription: "The firewall: `cluster`, `node/NAME` or `guest/VMID` (also the import id).",
		Computed:            true,
		PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
	}
	for _, spec := range optionSpecs {
		attrs[spec.attr] = optionAttribute(spec)
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "The options of one PVE firewall: the cluster's, a node's own (host firewall) or a guest's. " +
			"The attributes are the union of what the three firewalls offer; each says which firewall has it, and setting one the chosen " +
			"firewall lacks is an error at plan time.\n\n" +
			"Only the options set in the configuration are managed: an option left out is neither read nor changed, and removing one from " +
			"the configuration deletes it in PVE, so PVE's default applies again. Destroying the resource deletes the options it manages " +
			"and leaves the others alone. Declare each firewall's options in one resource only.\n\n" +
			"Changes are sent with PVE's digest of the options as last read, so a change another client made in between makes the apply " +
			"fail instead of being overwritten; the next plan shows it.\n\n" +
			"**Privileges:** `Sys.Modify` on `/` for the cluster's options, `Sys.Modify` on `/nodes/NODE` for a node's, " +
			"`VM.Config.Network` on `/vms/VMID` for a guest's; reading needs `Sys.Audit` on `/` or `/nodes/NODE`, or `VM.Audit` on `/vms/VMID`.\n\n" +
			"**Changes that replace the resource:** `node`, `vmid` (they choose another firewall).",
		Attributes: attrs,
	}
}

// optionAttribute is the schema attribute of one option.
func optionAttribute(spec optionSpec) schema.Attribute {
	descr := fmt.Sprintf("%s PVE option `%s`; %s only.", spec.descr, spec.key, spec.scopes.describe())
	if spec.scopes == inCluster|inNode|inGuest {
		descr = fmt.Sprintf("%s PVE option `%s`; %s.", spec.descr, spec.key, spec.scopes.describe())
	}
	switch spec.kind {
	case boolOption:
		return schema.BoolAttribute{MarkdownDescription: descr, Optional: true}
	case intOption:
		validators := []validator.Int64{int64validator.AtLeast(spec.min)}
		if spec.max > 0 {
			validators = []validator.Int64{int64validator.Between(spec.min, spec.max)}
		}
		return schema.Int64Attribute{MarkdownDescription: descr, Optional: true, Validators: validators}
	case enumOption:
		return schema.StringAttribute{MarkdownDescription: descr, Optional: true,
			Validators: []validator.String{stringvalidator.OneOf(spec.enum...)}}
	case helperListOption:
		return schema.SetAttribute{MarkdownDescription: descr, Optional: true, ElementType: types.StringType,
			Validators: []validator.Set{
				setvalidator.SizeAtLeast(1),
				setvalidator.ValueStringsAre(stringvalidator.OneOf(conntrackHelpers...)),
			}}
	case rateLimitOption:
		return schema.SingleNestedAttribute{MarkdownDescription: descr, Optional: true,
			Attributes: map[string]schema.Attribute{
				"enabled": schema.BoolAttribute{Required: true,
					MarkdownDescription: "Whether log lines are rate limited (PVE key `enable`, which PVE requires whenever the option is set)."},
				"rate": schema.StringAttribute{Optional: true,
					MarkdownDescription: "How fast the burst allowance refills: `N/second`, `N/minute`, `N/hour` or `N/day` (PVE key `rate`). Unset: PVE's default, `1/second`.",
					Validators: []validator.String{stringvalidator.RegexMatches(regexp.MustCompile(`^[1-9][0-9]*/(second|minute|hour|day)$`),
						"must be N/second, N/minute, N/hour or N/day with N at least 1")}},
				"burst": schema.Int64Attribute{Optional: true,
					MarkdownDescription: "Log lines always written before the rate applies (PVE key `burst`). Unset: PVE's default, 5.",
					Validators:          []validator.Int64{int64validator.AtLeast(0)}},
			}}
	}
	panic("option " + spec.attr + ": unknown kind")
}

func (r *optionsResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		r.client = pd.Client
	}
}

// ValidateConfig refuses options the chosen firewall does not have, and
// node and vmid together.
func (r *optionsResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var obj types.Object
	resp.Diagnostics.Append(req.Config.Get(ctx, &obj)...)
	if resp.Diagnostics.HasError() {
		return
	}
	config := optionsFromObject(obj)
	if at, detail, conflict := conflictingScope(config.Node, config.VMID); conflict {
		resp.Diagnostics.AddAttributeError(at, "Conflicting Firewall Scope", detail)
		return
	}
	for _, spec := range config.outOfScope() {
		resp.Diagnostics.AddAttributeError(path.Root(spec.attr), "Option Not Available For This Firewall",
			fmt.Sprintf("%s (PVE option %s) is an option of %s only; this resource configures %s%s. "+
				"Remove %s, or configure it in a pve_firewall_options resource for that firewall.",
				spec.attr, spec.key, spec.scopes.describe(), describeKind(config), scopeHint(config.kind()), spec.attr))
	}
}

// describeKind names the configured firewall; a vmid or node still unknown
// is named by its kind.
func describeKind(m optionsModel) string {
	switch {
	case m.kind() == guestScope && m.VMID.IsUnknown():
		return "a guest's firewall"
	case m.kind() == nodeScope && m.Node.IsUnknown():
		return "a node's firewall"
	}
	return m.scope().describe()
}

// scopeHint says how the scope was chosen, for the out-of-scope message.
func scopeHint(kind scopeKind) string {
	switch kind {
	case guestScope:
		return " (vmid is set)"
	case nodeScope:
		return " (node is set)"
	default:
		return " (neither node nor vmid is set)"
	}
}

func optionSpecByAttr(name string) optionSpec {
	for _, spec := range optionSpecs {
		if spec.attr == name {
			return spec
		}
	}
	panic("no option " + name)
}

func (r *optionsResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	plan, ok := getOptions(ctx, req.Plan.Get, &resp.Diagnostics)
	if !ok {
		return
	}
	scope := plan.scope()
	target, ok := resolveFirewall(ctx, r.client, scope, &resp.Diagnostics)
	if !ok {
		return
	}

	// Nothing is managed yet: every declared option is written, whatever
	// PVE has.
	write := toWrite(optionsModel{Node: plan.Node, VMID: plan.VMID}, plan)
	if !write.empty() {
		if err := r.client.UpdateFirewallOptions(ctx, target, write.Set, write.Delete, ""); err != nil {
			fwutil.AddAPIError(&resp.Diagnostics, "Unable To Set Firewall Options", err)
			return
		}
	}
	r.saveWritten(ctx, target, &plan, &resp.State, resp.Private, &resp.Diagnostics)
}

func (r *optionsResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	state, ok := getOptions(ctx, req.State.Get, &resp.Diagnostics)
	if !ok {
		return
	}
	scope := state.scope()
	target, ok := resolveExisting(ctx, r.client, scope, "Unable To Find The Guest Of The Firewall", &resp.Diagnostics, func() { resp.State.RemoveResource(ctx) })
	if !ok {
		return
	}
	options, digest, err := r.client.FirewallOptions(ctx, target)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read Firewall Options", err)
		return
	}
	adopt, diags := req.Private.GetKey(ctx, privateAdoptKey)
	resp.Diagnostics.Append(diags...)
	state.fromAPI(options, len(adopt) > 0)
	resp.Diagnostics.Append(resp.State.Set(ctx, state.object())...)
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateDigestKey, jsonString(digest))...)
	if len(adopt) > 0 {
		resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateAdoptKey, nil)...)
	}
}

func (r *optionsResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	plan, ok := getOptions(ctx, req.Plan.Get, &resp.Diagnostics)
	if !ok {
		return
	}
	state, ok := getOptions(ctx, req.State.Get, &resp.Diagnostics)
	if !ok {
		return
	}
	scope := plan.scope()
	target, ok := resolveFirewall(ctx, r.client, scope, &resp.Diagnostics)
	if !ok {
		return
	}
	digest := privateDigest(ctx, req.Private.GetKey, &resp.Diagnostics)

	if write := toWrite(state, plan); !write.empty() {
		if err := r.client.UpdateFirewallOptions(ctx, target, write.Set, write.Delete, digest); err != nil {
			addOptionsWriteError(&resp.Diagnostics, scope, err)
			return
		}
	}
	r.saveWritten(ctx, target, &plan, &resp.State, resp.Private, &resp.Diagnostics)
}

// saveWritten reads the options back after a write and records them, with
// the digest the next guarded write sends.
func (r *optionsResource) saveWritten(ctx context.Context, target pveapi.FirewallScope, plan *optionsModel, state *tfsdk.State, private privateSetter, diags *diag.Diagnostics) {
	digest, ok := r.readBack(ctx, target, plan, diags)
	if !ok {
		return
	}
	diags.Append(state.Set(ctx, plan.object())...)
	diags.Append(private.SetKey(ctx, privateDigestKey, jsonString(digest))...)
}

// readBack reads the options after a write, so state holds what PVE keeps
// rather than what was sent.
func (r *optionsResource) readBack(ctx context.Context, target pveapi.FirewallScope, m *optionsModel, diags *diag.Diagnostics) (string, bool) {
	options, digest, err := r.client.FirewallOptions(ctx, target)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read Firewall Options After Writing Them", err)
		return "", false
	}
	m.fromAPI(options, false)
	return digest, true
}

// Delete deletes the options the resource manages, so PVE's defaults apply
// to them again, and leaves the others alone. It sends no digest: deleting
// what the configuration declared is the intent whatever else changed.
func (r *optionsResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	state, ok := getOptions(ctx, req.State.Get, &resp.Diagnostics)
	if !ok {
		return
	}
	keys := state.managedKeys()
	if len(keys) == 0 {
		return
	}
	target, ok := resolveExisting(ctx, r.client, state.scope(), "Unable To Find The Guest Of The Firewall", &resp.Diagnostics, nil)
	if !ok {
		return
	}
	if err := r.client.UpdateFirewallOptions(ctx, target, nil, keys, ""); err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Delete Firewall Options", err)
	}
}

// ImportState takes the scope id; the first read then takes every option
// PVE has set, so the configuration generated from the import plans empty.
func (r *optionsResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	scope, rest, err := parseScope(req.ID)
	if err == nil && rest != "" {
		err = fmt.Errorf("%q has more after the firewall's id", req.ID)
	}
	if err != nil {
		resp.Diagnostics.AddError("Invalid Import ID",
			"Import pve_firewall_options by the firewall's id: cluster, node/NAME or guest/VMID. "+err.Error()+".")
		return
	}
	m := optionsModel{ID: types.StringValue(scope.String()), Node: types.StringNull(), VMID: types.Int64Null()}
	switch scope.kind() {
	case nodeScope:
		m.Node = types.StringValue(scope.Node)
	case guestScope:
		m.VMID = types.Int64Value(int64(scope.VMID))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, m.object())...)
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateAdoptKey, []byte("true"))...)
}

// getOptions reads the model from a plan, state or configuration.
func getOptions(ctx context.Context, get func(context.Context, any) diag.Diagnostics, diags *diag.Diagnostics) (optionsModel, bool) {
	var obj types.Object
	diags.Append(get(ctx, &obj)...)
	if diags.HasError() {
		return optionsModel{}, false
	}
	return optionsFromObject(obj), true
}

func privateDigest(ctx context.Context, getKey func(context.Context, string) ([]byte, diag.Diagnostics), diags *diag.Diagnostics) string {
	raw, d := getKey(ctx, privateDigestKey)
	diags.Append(d...)
	return strings.Trim(string(raw), `"`)
}

// jsonString is a digest as a private state value (JSON); PVE's digests
// are hexadecimal, nothing to escape.
func jsonString(s string) []byte {
	return []byte(`"` + s + `"`)
}

// addOptionsWriteError explains a refused update; a digest mismatch means
// another client changed the options after the refresh.
func addOptionsWriteError(diags *diag.Diagnostics, scope scopeRef, err error) {
	if pveapi.IsDigestMismatch(err) {
		diags.AddError("Firewall Options Changed Outside Terraform",
			fwutil.APIErrorDetail(err)+"\n\nThe options of "+scope.describe()+" changed after Terraform read them, "+
				"so PVE refused to overwrite them. Run plan again to see the current options, then apply.")
		return
	}
	fwutil.AddAPIError(diags, "Unable To Set Firewall Options", err)
}
