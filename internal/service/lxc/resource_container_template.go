package lxc

import (
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

// NewContainerTemplateResource is the pve_container_template constructor
// registered with the provider. A container template is a pve_container
// that is never started and is marked a template once created (W17): it
// reuses pve_container's model and flows and differs only where PVE
// differs.
func NewContainerTemplateResource() resource.Resource {
	return fwutil.WithIdentity(&guestops.TemplateResource{
		Guest:  newContainerResource(),
		Kind:   guestops.ContainerTemplate,
		Narrow: containerTemplateSchema,
	}, guestops.ResourceIdentity)
}

// A container template's messages name it as such (guestops.Resource.UseKind).
var _ guestops.KindUser = (*containerResource)(nil)

// containerTemplateSchema is pve_container's schema minus the power state:
// a template never runs.
func containerTemplateSchema(ct schema.Schema) schema.Schema {
	return guestops.WithoutAttributes(ct,
		"An LXC container template: created like a `pve_container` from an `os_template` archive, never started, then marked a template. "+
			"Marking renames its volumes to base volumes (`base-ID-disk-N`), which `root_disk.volume` follows; clones are made from them. "+
			"Marking is one-way: a template never becomes a container again. Changes PVE accepts on a template (options, network, new mount points, "+
			"volume growth, volume moves, the node) are made in place. Destroying the template fails while linked clones still use its volumes."+
			guestops.ReplacesSection(guestops.ContainerTemplate, guestops.VMIDFixed, unprivilegedFixed),
		guestops.TemplateDropped...)
}
