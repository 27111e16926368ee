package qemu

import (
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

// NewVMTemplateResource is the pve_vm_template constructor registered with
// the provider. A VM template is a pve_vm that is never started and is
// marked a template once created (W17): it reuses pve_vm's model and flows
// and differs only where PVE differs.
func NewVMTemplateResource() resource.Resource {
	return fwutil.WithIdentity(&guestops.TemplateResource{
		Guest:  newVMResource(),
		Kind:   guestops.VMTemplate,
		Narrow: vmTemplateSchema,
	}, guestops.ResourceIdentity)
}

// A VM template's messages name it as such (guestops.Resource.UseKind).
var _ guestops.KindUser = (*vmResource)(nil)

// vmTemplateSchema is pve_vm's schema minus the power state and what the
// guest agent reports: a template never runs.
func vmTemplateSchema(vm schema.Schema) schema.Schema {
	dropped := append(slices.Clone(guestops.TemplateDropped), "ipv4_addresses", "ipv6_addresses")
	s := guestops.WithoutAttributes(vm,
		"A QEMU VM template: created like a `pve_vm` (from scratch or from `import_from` disk images), never started, then marked a template. "+
			"Its disks become base volumes that clones are made from. Marking is one-way: a template never becomes a VM again. "+
			"Changes PVE accepts on a template (hardware, options, new disks, disk growth, disk moves, the node) are made in place. Destroying the template fails while linked clones still use its disks."+
			guestops.ReplacesSection(guestops.VMTemplate, guestops.VMIDFixed),
		dropped...)
	if agent, ok := s.Attributes["agent"].(schema.SingleNestedAttribute); ok {
		agent.Attributes = maps.Clone(agent.Attributes)
		for name := range agentWaitAttributes() {
			delete(agent.Attributes, name)
		}
		s.Attributes["agent"] = agent
	}
	return s
}
