package sdn

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// The controller, IPAM and DNS resources share one shape, built from their
// family's type table (wire.SDNControllers, SDNIPAMs, SDNDNSServers): the
// id (named as PVE names it: controller, ipam, dns), the type, and every
// option any type of the family takes; ValidateConfig refuses an option
// the declared type does not take.

// Attribute names besides the id and the options.
const (
	pluginAttrID       = "id"
	pluginAttrSDNID    = "sdn_id"
	pluginAttrType     = "type"
	pluginWOSuffix     = "_wo"
	pluginWOVersionSfx = "_wo_version"
)

// pluginWOName and pluginWOVersionName are the write-only attribute of a
// sensitive option and its version trigger.
func pluginWOName(o wire.SDNPluginOption) string {
	return wire.SDNPluginAttributeName(o.Key) + pluginWOSuffix
}

func pluginWOVersionName(o wire.SDNPluginOption) string {
	return wire.SDNPluginAttributeName(o.Key) + pluginWOVersionSfx
}

// pluginText is what a family's resource says about itself.
type pluginText struct {
	// noun names one object for people ("SDN controller").
	noun string
	// about is the resource's description after its first sentence.
	about string
	// example is an id for error texts.
	example string
}

func pluginSchema(f wire.SDNPluginFamily, text pluginText) schema.Schema {
	attrs := map[string]schema.Attribute{
		pluginAttrID: schema.StringAttribute{
			MarkdownDescription: fmt.Sprintf("The %s's id (same as `%s`).", text.noun, f.IDKey),
			Computed:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		},
		pluginAttrSDNID: schema.StringAttribute{
			MarkdownDescription: fmt.Sprintf("The object's SDN id, `%s/<%s>`, known at plan time: list this resource in a "+
				"`pve_sdn_applier`'s `objects` so that one SDN apply follows its changes.", f.Kind, f.IDKey),
			Computed: true,
		},
		f.IDKey: schema.StringAttribute{
			MarkdownDescription: fmt.Sprintf("The %s's id: %s. Changing it replaces the %s.", text.noun, pluginIDRuleMarkdown(f), text.noun),
			Required:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators: []validator.String{fwutil.Problem(func(s string) string {
				if wire.IsSDNPluginIDFor(f, s) {
					return ""
				}
				return fmt.Sprintf("%q is not a valid %s id: %s", s, f.Kind, wire.SDNPluginIDRule(f))
			}, "must be a valid "+f.Kind+" id")},
		},
		pluginAttrType: schema.StringAttribute{
			MarkdownDescription: fmt.Sprintf("The %s's type, of: %s. Changing it replaces the %s.", text.noun, pluginTypeList(f), text.noun),
			Required:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators:          []validator.String{stringvalidator.OneOf(f.TypeNames()...)},
		},
	}
	for _, o := range f.Options() {
		takenBy := pluginTakenBy(f, o.Key)
		if o.Sensitive {
			attrs[pluginWOName(o)] = schema.StringAttribute{
				MarkdownDescription: o.Description + " " + takenBy + " Write-only: it never reaches state or plan output. " +
					"It is sent when the " + text.noun + " is created, and again whenever `" + pluginWOVersionName(o) + "` changes; " +
					"changing it alone does nothing.",
				Optional:   true,
				Sensitive:  true,
				WriteOnly:  true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			}
			attrs[pluginWOVersionName(o)] = schema.Int64Attribute{
				MarkdownDescription: "A number to change whenever `" + pluginWOName(o) + "` should be sent again. " +
					"After an import, setting it sends the value at the next apply.",
				Optional: true,
			}
			continue
		}
		attrs[wire.SDNPluginAttributeName(o.Key)] = pluginOptionAttribute(o, o.Description+" "+takenBy)
	}
	return schema.Schema{
		MarkdownDescription: text.about,
		Attributes:          attrs,
	}
}

// pluginTakenBy says which types take an option, and whether it is required
// there.
func pluginTakenBy(f wire.SDNPluginFamily, key string) string {
	var req, opt []string
	for _, t := range f.Types {
		o, ok := t.Option(key)
		switch {
		case !ok:
		case o.Required:
			req = append(req, "`"+t.Name+"`")
		default:
			opt = append(opt, "`"+t.Name+"`")
		}
	}
	var parts []string
	if len(req) > 0 {
		parts = append(parts, "required for "+strings.Join(req, ", "))
	}
	if len(opt) > 0 {
		parts = append(parts, "optional for "+strings.Join(opt, ", "))
	}
	if len(f.Types) == 1 {
		if len(req) > 0 {
			return "Required."
		}
		return "Optional."
	}
	s := strings.Join(parts, "; ")
	return strings.ToUpper(s[:1]) + s[1:] + "; other types do not take it."
}

func pluginOptionAttribute(o wire.SDNPluginOption, desc string) schema.Attribute {
	switch o.Kind {
	case wire.SDNPluginBool:
		return schema.BoolAttribute{MarkdownDescription: desc, Optional: true}
	case wire.SDNPluginInt:
		a := schema.Int64Attribute{MarkdownDescription: desc, Optional: true}
		if o.HasMin {
			a.Validators = append(a.Validators, int64validator.AtLeast(o.Min))
		}
		if o.HasMax {
			a.Validators = append(a.Validators, int64validator.AtMost(o.Max))
		}
		return a
	case wire.SDNPluginList:
		return schema.SetAttribute{MarkdownDescription: desc, Optional: true, ElementType: types.StringType,
			Validators: []validator.Set{setvalidator.SizeAtLeast(1), setvalidator.ValueStringsAre(
				stringvalidator.LengthAtLeast(1),
				stringvalidator.RegexMatches(pluginListItemPattern, "must not contain ',', ';' or white space"))}}
	}
	a := schema.StringAttribute{MarkdownDescription: desc, Optional: true, Validators: []validator.String{stringvalidator.LengthAtLeast(1)}}
	if re := wire.SDNPluginPattern(o); re != nil {
		a.Validators = append(a.Validators, stringvalidator.RegexMatches(re, o.PatternText))
	}
	return a
}

func pluginTypeList(f wire.SDNPluginFamily) string {
	items := make([]string, len(f.Types))
	for i, t := range f.Types {
		items[i] = "`" + t.Name + "` (" + t.Title + ")"
	}
	return strings.Join(items, ", ")
}

func pluginIDRuleMarkdown(f wire.SDNPluginFamily) string {
	if f.Kind == wire.SDNControllers.Kind {
		return "a letter, then letters, digits, `-` or `_`, ending with a letter or digit (2 to 64 characters)"
	}
	return "a letter, then letters or digits (at least 2 characters)"
}
