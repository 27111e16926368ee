// Package storagecfg holds the pve_storage_<type> resources: the storage
// definitions of the datacenter's storage.cfg (/storage), one resource per
// storage type, all built from the type table in wire/storage_config.go.
package storagecfg

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// Attribute names besides the options.
const (
	attrID           = "id"
	attrStorage      = "storage"
	attrAllowDestroy = "allow_destroy_with_guest_volumes"
	woSuffix         = "_wo"
	woVersionSuffix  = "_wo_version"
)

// woName and woVersionName are the write-only attribute of a sensitive
// option and its version trigger.
func woName(o wire.StorageTypeOption) string { return wire.StorageAttributeName(o.Key) + woSuffix }
func woVersionName(o wire.StorageTypeOption) string {
	return wire.StorageAttributeName(o.Key) + woVersionSuffix
}

// fingerprintPattern is the schema's pattern of fingerprint (POST /storage).
var fingerprintPattern = regexp.MustCompile(`^([A-Fa-f0-9]{2}:){31}[A-Fa-f0-9]{2}$`)

func storageSchema(st wire.StorageType) schema.Schema {
	attrs := map[string]schema.Attribute{
		attrID: schema.StringAttribute{
			MarkdownDescription: "The storage ID (same as `storage`).",
			Computed:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		},
		attrStorage: schema.StringAttribute{
			MarkdownDescription: "The storage ID: a letter, then letters, digits, `-`, `_` or `.`, ending with a letter or digit. " +
				"Changing it replaces the storage definition (the volumes stay where they are).",
			Required:      true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators: []validator.String{fwutil.Problem(func(s string) string {
				if wire.IsStorageID(s) {
					return ""
				}
				return fmt.Sprintf("%q is not a storage ID: a letter, then letters, digits, '-', '_' or '.', ending with a letter or digit", s)
			}, "must be a storage ID")},
		},
		attrAllowDestroy: schema.BoolAttribute{
			MarkdownDescription: "Allow destroying (or replacing) this storage definition while the provider sees guest disks " +
				"(content `images` or `rootdir` owned by a VM or container) on it. Without it such a plan is refused: PVE itself " +
				"only removes the definition, leaving those guests with disks on a storage that no longer exists. " +
				"It must be applied (be in state) before the plan that destroys the storage.",
			Optional: true,
		},
	}
	for _, o := range st.Options {
		if o.Sensitive {
			attrs[woName(o)] = schema.StringAttribute{
				MarkdownDescription: o.Description + " Write-only: it never reaches state or plan output, and PVE never returns it. " +
					"It is sent when the storage is created, and again whenever `" + woVersionName(o) + "` changes " +
					"(removing it then removes it from the storage); changing it alone does nothing.",
				Optional:  true,
				Sensitive: true,
				WriteOnly: true,
			}
			attrs[woVersionName(o)] = schema.Int64Attribute{
				MarkdownDescription: "A number to change whenever `" + woName(o) + "` should be sent again. " +
					"After an import, setting it sends the value at the next apply.",
				Optional: true,
			}
			continue
		}
		attrs[wire.StorageAttributeName(o.Key)] = optionAttribute(st, o)
	}
	return schema.Schema{
		MarkdownDescription: fmt.Sprintf("A storage definition of type `%s` (%s) in the datacenter's storage configuration "+
			"(Datacenter → Storage). It defines how PVE reaches the storage; it does not create or delete the data on it. "+
			"Needs `Datastore.Allocate` on `/storage`. Options PVE fixes at creation replace the definition when changed "+
			"(the plan warns; volumes stay). Secrets are write-only attributes (`*_wo` with a `*_wo_version` trigger).",
			st.Name, st.Title),
		Attributes: attrs,
	}
}

func optionAttribute(st wire.StorageType, o wire.StorageTypeOption) schema.Attribute {
	desc := o.Description
	if o.Fixed {
		desc += " Set at creation only: changing it replaces the storage definition (the volumes stay where they are)."
	}
	required := o.Required
	optional := !o.Required
	switch o.Kind {
	case wire.StorageBool:
		a := schema.BoolAttribute{MarkdownDescription: desc, Required: required, Optional: optional}
		if o.Fixed {
			a.PlanModifiers = []planmodifier.Bool{boolplanmodifier.RequiresReplace()}
		}
		return a
	case wire.StorageInt:
		a := schema.Int64Attribute{MarkdownDescription: desc, Required: required, Optional: optional}
		if o.HasMin {
			a.Validators = append(a.Validators, int64validator.AtLeast(o.Min))
		}
		if o.HasMax {
			a.Validators = append(a.Validators, int64validator.AtMost(o.Max))
		}
		if len(o.Enum) > 0 {
			var vals []int64
			for _, e := range o.Enum {
				n, _ := strconv.ParseInt(e, 10, 64)
				vals = append(vals, n)
			}
			a.Validators = append(a.Validators, int64validator.OneOf(vals...))
		}
		if o.Fixed {
			a.PlanModifiers = []planmodifier.Int64{int64planmodifier.RequiresReplace()}
		}
		return a
	case wire.StorageList:
		a := schema.SetAttribute{MarkdownDescription: desc, Required: required, Optional: optional, ElementType: types.StringType,
			Validators: []validator.Set{setvalidator.SizeAtLeast(1)}}
		if o.Key == wire.StorageKeyContent {
			a.MarkdownDescription = fmt.Sprintf("The content types the storage holds, of: %s. When not set, PVE uses its default "+
				"for the type (%s) and state shows it; removing it later keeps the current content types.",
				codeList(st.Content), codeList(defaultContent(st)))
			a.Computed = true
			a.PlanModifiers = []planmodifier.Set{setplanmodifier.UseStateForUnknown()}
			a.Validators = append(a.Validators, setvalidator.ValueStringsAre(stringvalidator.OneOf(st.Content...)))
		} else {
			a.Validators = append(a.Validators, setvalidator.ValueStringsAre(stringvalidator.RegexMatches(
				regexp.MustCompile(`^[a-zA-Z0-9]([a-zA-Z0-9\-]*[a-zA-Z0-9])?$`), "must be a node name")))
		}
		if o.Fixed {
			a.PlanModifiers = append(a.PlanModifiers, setplanmodifier.RequiresReplace())
		}
		return a
	case wire.StoragePrune:
		a := fwutil.RetentionAttribute(desc)
		if o.Fixed {
			a.PlanModifiers = []planmodifier.Object{objectplanmodifier.RequiresReplace()}
		}
		return a
	}
	a := schema.StringAttribute{MarkdownDescription: desc, Required: required, Optional: optional,
		Validators: []validator.String{stringvalidator.LengthAtLeast(1)}}
	if o.FilledByPVE {
		a.Computed = true
		a.PlanModifiers = []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	}
	switch {
	case o.Key == "format" && len(st.Formats) > 0:
		a.Validators = append(a.Validators, stringvalidator.OneOf(st.Formats...))
		a.MarkdownDescription += " For this type: " + codeList(st.Formats) + "."
	case len(o.Enum) > 0:
		a.Validators = append(a.Validators, stringvalidator.OneOf(o.Enum...))
	}
	if o.Key == "fingerprint" {
		a.Validators = append(a.Validators, stringvalidator.RegexMatches(fingerprintPattern, "must be 32 hex byte pairs separated by ':'"))
	}
	if o.Fixed {
		a.PlanModifiers = append(a.PlanModifiers, stringplanmodifier.RequiresReplace())
	}
	return a
}

// defaultContent is what PVE reports for a storage without content: the
// type's default (pve-storage src/PVE/Storage/Plugin.pm parse_config,
// plugindata content->[1]).
func defaultContent(st wire.StorageType) []string {
	if len(st.DefaultContent) > 0 {
		return st.DefaultContent
	}
	return st.Content
}

func codeList(items []string) string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = "`" + s + "`"
	}
	return strings.Join(out, ", ")
}

// resourceTypeName is the resource's type name for a storage type.
func resourceTypeName(providerTypeName, storageType string) string {
	return providerTypeName + "_storage_" + storageType
}
