package guestops

import (
	"context"
	"fmt"
	"maps"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// CommonAttributes are the attributes every guest resource has, described
// for kind: identity (id, node, vmid), notes and tags, pool, on_boot,
// protection, power (started, status), the volume and reboot opt-ins, and
// timeouts. Each resource adds its own attributes to the returned map.
func CommonAttributes(ctx context.Context, kind Kind) map[string]schema.Attribute {
	noun := kind.Noun
	return map[string]schema.Attribute{
		"id": schema.StringAttribute{
			MarkdownDescription: "The VMID as a string.",
			Computed:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		},
		"node": schema.StringAttribute{
			MarkdownDescription: NodeDescription(kind),
			Required:            true,
			Validators:          []validator.String{fwutil.Format(wire.IsNodeName, "must be a PVE node name")},
		},
		"vmid": schema.Int64Attribute{
			MarkdownDescription: fmt.Sprintf("VMID. When left out, the provider allocates one inside the provider's `vmid_range` (or PVE's next free id). "+
				"Changing it replaces the %s (PVE cannot renumber a guest); the plan warns first, naming the volumes destroyed.", noun),
			Optional: true,
			Computed: true,
			PlanModifiers: []planmodifier.Int64{
				int64planmodifier.UseStateForUnknown(),
				int64planmodifier.RequiresReplaceIfConfigured(),
			},
			Validators: []validator.Int64{int64validator.Between(wire.MinVMID, wire.MaxVMID)},
		},
		"description": schema.StringAttribute{
			MarkdownDescription: "Free text shown in the PVE web UI (Notes). Kept verbatim, newlines included; PVE changes only the end of the text " +
				"(a VM's loses its trailing whitespace, a container's gets a newline after its last line), which plans no change. " +
				"A value of only whitespace, or `0`, is refused: PVE would store no description. " +
				"While the provider creates or clones a guest it appends a line `terraform-provider-pve: creating NAME (by HOST pid PID run ID until TIME, config DIGEST), not finished` " +
				"(`cloning from ...` for a clone), by which a later apply recognises its own half-made guest instead of making a second one, " +
				"once the apply that wrote it is gone; the line is removed when the guest is complete.",
			Optional:   true,
			Validators: []validator.String{stringvalidator.LengthBetween(1, 8192), storableDescription{}},
		},
		"tags": schema.SetAttribute{
			MarkdownDescription: "Tags. PVE stores them in lowercase; tags that differ only in case plan no change.",
			Optional:            true,
			ElementType:         types.StringType,
			CustomType:          fwutil.NewTagSetType(),
			PlanModifiers:       []planmodifier.Set{fwutil.KeepEquivalentTags()},
			Validators: []validator.Set{
				setvalidator.SizeAtLeast(1),
				setvalidator.ValueStringsAre(fwutil.ValidTag()),
			},
		},
		"pool": schema.StringAttribute{
			MarkdownDescription: fmt.Sprintf("Resource pool the %s belongs to. Changes go through the pools API; the %s stays.", noun, noun),
			Optional:            true,
			Validators:          []validator.String{fwutil.Format(wire.IsPoolID, "must be a pool id")},
		},
		"on_boot": schema.BoolAttribute{
			MarkdownDescription: fmt.Sprintf("Start the %s when the node boots.", noun),
			Optional:            true,
		},
		"protection": schema.BoolAttribute{
			MarkdownDescription: protectionDescription(kind),
			Optional:            true,
		},
		"started": schema.BoolAttribute{
			MarkdownDescription: startedDescription(kind),
			Optional:            true,
			Computed:            true,
			Default:             booldefault.StaticBool(true),
		},
		"purge_removed_disks": schema.BoolAttribute{
			MarkdownDescription: purgeDescription(kind),
			Optional:            true,
			Computed:            true,
			Default:             booldefault.StaticBool(false),
		},
		"reboot_after_update": schema.BoolAttribute{
			MarkdownDescription: fmt.Sprintf("Reboot a running %s when an update leaves changes that PVE applies only at the next start. Defaults to false: the plan's apply warns and names the pending keys.", noun),
			Optional:            true,
			Computed:            true,
			Default:             booldefault.StaticBool(false),
		},
		"status": schema.StringAttribute{
			MarkdownDescription: statusDescription(kind),
			Computed:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		},
		"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
	}
}

// NodeDescription says what changing a guest's node does. A template
// never runs, so PVE migrates it offline, copying its volumes on
// node-local storage, and refuses to move a VM template's local base
// volumes while linked clones use them (qemu-server, PVE/QemuMigrate.pm,
// scan_local_volumes: "referenced by linked clone(s)").
func NodeDescription(kind Kind) string {
	if kind.Template {
		return kind.templateNodeDescription
	}
	return kind.nodeDescription
}

func protectionDescription(kind Kind) string {
	return kind.protectionDescription
}

func purgeDescription(kind Kind) string {
	return kind.purgeDescription
}

func startedDescription(kind Kind) string {
	return kind.startedDescription
}

func statusDescription(kind Kind) string {
	return kind.statusDescription
}

// WithAttributes returns common with own added; a name in both is a bug.
func WithAttributes(common, own map[string]schema.Attribute) map[string]schema.Attribute {
	out := maps.Clone(common)
	for name, attr := range own {
		if _, dup := out[name]; dup {
			panic("guestops: attribute " + name + " defined twice")
		}
		out[name] = attr
	}
	return out
}

// UndeclaredSettings is what a guest resource's description says about the
// settings its configuration leaves out.
const UndeclaredSettings = "Settings left out of the configuration are left to PVE: the provider neither writes nor reports them, " +
	"so a value set in PVE by anyone (the web UI, another tool) plans no change and survives every apply. " +
	"Removing a declared attribute from the configuration resets it to PVE's default. " +
	"After an import, state holds every setting PVE reports: declare the ones to manage and list the others in `ignore_changes`, " +
	"or the plan resets them."

// storableDescription refuses a description PVE cannot keep: it writes
// the text into the config file as comment lines split at newlines,
// dropping trailing empty lines, and writes none for "0" (pve-container
// write_pct_config, qemu-server write_vm_config). A value of only
// whitespace or "0" would be read back as no description, or as one the
// configuration could never match.
type storableDescription struct{}

func (storableDescription) Description(context.Context) string {
	return "must hold more than whitespace and must not be \"0\""
}

func (v storableDescription) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (storableDescription) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if !Known(req.ConfigValue) {
		return
	}
	value := req.ConfigValue.ValueString()
	if value != "" && (strings.TrimSpace(value) == "" || value == "0") {
		resp.Diagnostics.AddAttributeError(req.Path, "Description PVE Cannot Store",
			fmt.Sprintf("PVE stores no description for %q: it keeps a description only if it holds more than whitespace and is not \"0\". Leave description out instead.", value))
	}
}
