// Package guestops holds what pve_vm and pve_container share: the sequence
// of their create, read, update and delete (Driver), the create flow
// with VMID allocation and its race handling (W13), power transitions, pool
// membership (W48), migration, the delete flow, import ids, the data-loss
// guard for volumes (W21-W24) and the helpers that map config keys to
// attributes. Each resource keeps only what its guest type does
// differently.
package guestops

import (
	"context"
	"net/url"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// API speaks to one kind of guest. Its methods pick the client call for the
// kind; the flows built on them (create, power, migrate, delete) are the
// same for both.
type API struct {
	Client *pveapi.Client
	Kind   Kind
	// VMIDRange bounds the VMIDs Create allocates; zero lets PVE propose.
	VMIDRange fwutil.VMIDRange
	// Locks and Claims are the provider configuration's, shared with the
	// other guest resources on the same client.
	Locks  *fwutil.GuestLocks
	Claims *fwutil.GuestClaims
}

// Configure builds the API a resource's Configure receives. It returns
// false while the provider is not configured yet.
func Configure(raw any, kind Kind, diags *diag.Diagnostics) (API, bool) {
	pd := fwutil.ProviderDataFrom(raw, diags)
	if pd == nil {
		return API{}, false
	}
	a := API{Client: pd.Client, Kind: kind, Locks: pd.GuestLocks, Claims: pd.GuestClaims}
	if pd.VMIDRange != nil {
		a.VMIDRange = *pd.VMIDRange
	}
	return a, true
}

// Config reads the guest's configuration, with pending changes applied.
func (a API) Config(ctx context.Context, node string, vmid int) (pveapi.GuestConfig, error) {
	return a.Client.GuestConfig(ctx, node, a.Kind.Type, vmid)
}

// Status reads status/current.
func (a API) Status(ctx context.Context, node string, vmid int) (*pveapi.GuestStatus, error) {
	return a.Client.GuestStatus(ctx, node, a.Kind.Type, vmid)
}

// Pending lists the config keys with changes that wait for a restart.
func (a API) Pending(ctx context.Context, node string, vmid int) ([]pveapi.PendingEntry, error) {
	return a.Client.GuestPending(ctx, node, a.Kind.Type, vmid)
}

// UpdateConfig sends a synchronous config update (W9).
func (a API) UpdateConfig(ctx context.Context, node string, vmid int, params url.Values) error {
	return a.Client.UpdateGuestConfig(ctx, node, a.Kind.Type, vmid, params)
}

func (a API) create(ctx context.Context, node string, vmid int, form url.Values) (string, error) {
	return a.Client.CreateGuest(ctx, node, a.Kind.Type, vmid, form)
}

func (a API) statusAction(ctx context.Context, node string, vmid int, action string, params url.Values) (string, error) {
	return a.Client.GuestStatusAction(ctx, node, a.Kind.Type, vmid, action, params)
}

// destroy removes the guest with its volumes, from backup jobs,
// replication and HA too (purge).
func (a API) destroy(ctx context.Context, node string, vmid int) (string, error) {
	return a.Client.DeleteGuest(ctx, node, a.Kind.Type, vmid, true, true)
}
