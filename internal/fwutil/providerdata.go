// Package fwutil holds the framework glue every resource shares: reaching the
// configured client, turning PVE errors into diagnostics, and common schema
// pieces.
package fwutil

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// VMIDRange bounds the VMIDs the provider allocates for new guests.
type VMIDRange struct {
	Min int
	Max int
}

// ProviderData is what the provider's Configure hands to every resource and
// data source: one client shared by all of them, so ticket renewal and
// connection reuse happen once per provider instance, and what those
// resources share to stay out of each other's way on one cluster.
type ProviderData struct {
	Client    *pveapi.Client
	VMIDRange *VMIDRange
	// GuestLocks serialises the resources' work on one guest.
	GuestLocks *GuestLocks
	// GuestClaims holds the guests the resources created or adopted.
	GuestClaims *GuestClaims
	// SDN stages the SDN writes of a run and applies them once.
	SDN *pveapi.SDNSession
}

// NewProviderData is the data of one provider configuration: client, the
// VMID range (nil: none), and fresh guest locks and claims and SDN session, which belong to
// that configuration alone (it speaks to one cluster, whose VMIDs key them).
func NewProviderData(client *pveapi.Client, vmidRange *VMIDRange) *ProviderData {
	return &ProviderData{Client: client, VMIDRange: vmidRange, GuestLocks: &GuestLocks{}, GuestClaims: &GuestClaims{}, SDN: pveapi.NewSDNSession(client)}
}

// ProviderDataFrom unpacks the value given to a resource's or data source's
// Configure. It returns nil without a diagnostic while the provider is not
// configured yet (Terraform validates configuration before configuring).
func ProviderDataFrom(raw any, diags *diag.Diagnostics) *ProviderData {
	if raw == nil {
		return nil
	}
	pd, ok := raw.(*ProviderData)
	if !ok {
		diags.AddError(
			"Unexpected Provider Data",
			fmt.Sprintf("Expected *fwutil.ProviderData, got %T. This is a bug in the provider; please report it.", raw),
		)
		return nil
	}
	return pd
}
