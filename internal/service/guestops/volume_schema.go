package guestops

import (
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// VolumeSchema describes the attributes every volume has (a VM's disks,
// EFI store and TPM state, a container's root disk and mount points):
// storage, size and volume id, which the data-loss guard (W21-W24) reads
// the same way for all of them.
type VolumeSchema struct {
	// Storage, Size and Volume describe the three attributes. Without a
	// Size description the volume has no size attribute: PVE sizes it.
	Storage, Size, Volume string
	// StorageOptional lets storage be left out: a mount point that binds
	// a host path instead.
	StorageOptional bool
	// SizeOptional lets size be left out. With SizeComputed, PVE reports
	// it then (an imported disk's image size) and an unknown size keeps
	// the one in state.
	SizeOptional, SizeComputed bool
}

// VolumeAttributes returns the storage, size and volume attributes v
// describes; a volume's own attributes are added with WithAttributes.
func VolumeAttributes(v VolumeSchema) map[string]schema.Attribute {
	attrs := map[string]schema.Attribute{
		"storage": schema.StringAttribute{
			MarkdownDescription: v.Storage,
			Required:            !v.StorageOptional,
			Optional:            v.StorageOptional,
			Validators:          []validator.String{fwutil.Format(wire.IsStorageID, "must be a storage id")},
		},
		"volume": schema.StringAttribute{
			MarkdownDescription: v.Volume,
			Computed:            true,
			PlanModifiers:       []planmodifier.String{VolumeFollowsStorage()},
		},
	}
	if v.Size != "" {
		size := schema.StringAttribute{
			MarkdownDescription: v.Size,
			Required:            !v.SizeOptional,
			Optional:            v.SizeOptional,
			Computed:            v.SizeComputed,
			CustomType:          fwutil.SizeType{},
			PlanModifiers:       []planmodifier.String{fwutil.KeepEquivalentSize()},
		}
		if v.SizeComputed {
			size.PlanModifiers = append(size.PlanModifiers, stringplanmodifier.UseStateForUnknown())
		}
		attrs["size"] = size
	}
	return attrs
}
