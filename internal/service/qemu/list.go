package qemu

import (
	"github.com/hashicorp/terraform-plugin-framework/list"

	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

// NewVMListResource is the pve_vm list resource registered with the
// provider: the cluster's VMs, as pve_vm imports them.
func NewVMListResource() list.ListResource {
	return guestops.NewListResource(guestops.VM, NewVMResource)
}

// NewVMTemplateListResource is the pve_vm_template list resource: the
// cluster's VM templates, as pve_vm_template imports them.
func NewVMTemplateListResource() list.ListResource {
	return guestops.NewListResource(guestops.VMTemplate, NewVMTemplateResource)
}
