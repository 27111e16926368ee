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

// Kind is what tells a VM from a container in the shared flows: the API
// path segment, and the words messages use.
type Kind struct {
	// Type is pveapi.GuestTypeQemu or pveapi.GuestTypeLXC.
	Type string
	// Noun names the guest inside a sentence: "VM", "container".
	Noun string
	// Title names it in a Title Case summary: "VM", "Container".
	Title string
	// Resource is the resource type name, for import guidance.
	Resource string
	// Template tells a template resource from its guest resource (W17).
	Template bool
}

// The two guest kinds.
var (
	VM        = Kind{Type: pveapi.GuestTypeQemu, Noun: "VM", Title: "VM", Resource: "pve_vm"}
	Container = Kind{Type: pveapi.GuestTypeLXC, Noun: "container", Title: "Container", Resource: "pve_container"}
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

func (a API) isLXC() bool { return a.Kind.Type == pveapi.GuestTypeLXC }

// Config reads the guest's configuration, with pending changes applied.
func (a API) Config(ctx context.Context, node string, vmid int) (pveapi.GuestConfig, error) {
	if a.isLXC() {
		return a.Client.LXCConfig(ctx, node, vmid)
	}
	return a.Client.QemuConfig(ctx, node, vmid)
}

// Status reads status/current.
func (a API) Status(ctx context.Context, node string, vmid int) (*pveapi.GuestStatus, error) {
	if a.isLXC() {
		return a.Client.LXCStatus(ctx, node, vmid)
	}
	return a.Client.QemuStatus(ctx, node, vmid)
}

// Pending lists the config keys with changes that wait for a restart.
func (a API) Pending(ctx context.Context, node string, vmid int) ([]pveapi.PendingEntry, error) {
	if a.isLXC() {
		return a.Client.LXCPendingConfig(ctx, node, vmid)
	}
	return a.Client.QemuPendingConfig(ctx, node, vmid)
}

// UpdateConfig sends a synchronous config update (W9).
func (a API) UpdateConfig(ctx context.Context, node string, vmid int, params url.Values) error {
	if a.isLXC() {
		return a.Client.UpdateLXCConfig(ctx, node, vmid, params)
	}
	return a.Client.UpdateQemuConfig(ctx, node, vmid, params)
}

// Resize grows a disk or mount point to size, a task (W22).
func (a API) Resize(ctx context.Context, node string, vmid int, slot, size string) (string, error) {
	if a.isLXC() {
		return a.Client.ResizeLXCDisk(ctx, node, vmid, slot, size)
	}
	return a.Client.ResizeQemuDisk(ctx, node, vmid, slot, size)
}

// MoveVolume moves a disk or mount point to storage with its data and
// removes the source volume, a task (W23).
func (a API) MoveVolume(ctx context.Context, node string, vmid int, slot, storage string) (string, error) {
	if a.isLXC() {
		return a.Client.MoveLXCVolume(ctx, node, vmid, slot, storage, true)
	}
	return a.Client.MoveQemuDisk(ctx, node, vmid, slot, storage, true, "")
}

func (a API) create(ctx context.Context, node string, vmid int, form url.Values) (string, error) {
	if a.isLXC() {
		return a.Client.CreateLXC(ctx, node, vmid, form)
	}
	return a.Client.CreateQemu(ctx, node, vmid, form)
}

func (a API) statusAction(ctx context.Context, node string, vmid int, action string, params url.Values) (string, error) {
	if a.isLXC() {
		return a.Client.LXCStatusAction(ctx, node, vmid, action, params)
	}
	return a.Client.QemuStatusAction(ctx, node, vmid, action, params)
}

// destroy removes the guest with its volumes, from backup jobs,
// replication and HA too (purge).
func (a API) destroy(ctx context.Context, node string, vmid int) (string, error) {
	if a.isLXC() {
		return a.Client.DeleteLXC(ctx, node, vmid, true, true)
	}
	return a.Client.DeleteQemu(ctx, node, vmid, true, true)
}
