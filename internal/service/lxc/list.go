package lxc

import (
	"github.com/hashicorp/terraform-plugin-framework/list"

	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

// NewContainerListResource is the pve_container list resource registered
// with the provider: the cluster's containers, as pve_container imports
// them.
func NewContainerListResource() list.ListResource {
	return guestops.NewListResource(guestops.Container, NewContainerResource)
}

// NewContainerTemplateListResource is the pve_container_template list
// resource: the cluster's container templates, as pve_container_template
// imports them.
func NewContainerTemplateListResource() list.ListResource {
	return guestops.NewListResource(guestops.ContainerTemplate, NewContainerTemplateResource)
}
