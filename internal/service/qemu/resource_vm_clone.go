package qemu

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

// origin is what a VM was made from, whose undeclared settings it keeps,
// as far as the VM inherits them.
type origin struct {
	// keepNull reports the paths the VM takes from its configuration
	// alone.
	keepNull func(*tftypes.AttributePath) bool
	// forgotten are config keys of the source's that the VM drops.
	forgotten []string
}

var (
	// A clone never inherits the cloud-init identity (W15), but keeps the
	// cloud-init drive as it is (W27).
	cloneOrigin = origin{keepNull: cloudInitIdentityPath, forgotten: []string{keyCIPassword, keyCICustom}}
	// A restore, unlike a clone, is that guest again, cloud-init identity
	// included.
	archiveOrigin = origin{keepNull: guestops.NoInheritanceLimits}
	// A VM made from its configuration alone keeps what PVE or anyone
	// else set and the configuration does not declare.
	ownOrigin = origin{keepNull: guestops.NoInheritanceLimits}
)

// originOf is what a VM made from o inherits.
func originOf(o guestops.Origin) origin {
	switch o {
	case guestops.OriginRestore:
		return archiveOrigin
	case guestops.OriginClone:
		return cloneOrigin
	}
	return ownOrigin
}

// origin tells what the VM inherits from: its known origin, else its own
// configuration.
func (m *vmModel) origin() origin {
	return originOf((guestops.Attributes{Clone: m.Clone, Restore: m.Restore, Origin: &m.Origin}).KnownOrigin())
}

// InheritedView is plan with what it does not declare taken from live,
// except what a VM never inherits from its kind of source: a clone's
// cloud-init identity (W15).
func (r *vmResource) InheritedView(ctx context.Context, vmid int, plan *vmModel, live pveapi.GuestConfig, from guestops.Origin) (*vmModel, error) {
	return r.inheritedView(ctx, vmid, nil, plan, live, originOf(from))
}

// FinishInherited turns the VM made from a source into plan: one config
// request for what is declared (view, computed against what the source
// brought), with what a clone never keeps deleted (its cloud-init
// password and custom files, W15) and its cloud-init drive left as it is
// (W27); then the cloud-init password and seed, the boot order and the
// disk tasks.
func (r *vmResource) FinishInherited(ctx context.Context, config tfsdk.Config, node string, vmid int, view, plan *vmModel, live pveapi.GuestConfig,
	from guestops.Origin, summary string, diags *diag.Diagnostics) bool {
	update, err := toUpdate(view, view, live)
	if err != nil {
		diags.AddError(summary, err.Error())
		return false
	}
	for _, key := range originOf(from).forgotten {
		if _, inherited := live[key]; inherited {
			update.delta.Delete(key)
		}
	}
	if !update.delta.IsEmpty() && !r.writeConfig(ctx, node, vmid, update, live.Digest(), diags) {
		return false
	}
	if !r.applyCloudInit(ctx, config, node, vmid, nil, plan, nil, diags) {
		return false
	}
	if live, err = r.api.Client.GuestConfig(ctx, node, pveapi.GuestTypeQemu, vmid); err != nil {
		fwutil.AddAPIError(diags, "Unable To Read VM", err)
		return false
	}
	return r.finishConfig(ctx, node, vmid, plan, live, diags)
}

// inheritedView is want with what neither want nor prior declares taken
// from live, except what the VM never inherits from its source: an update
// computed against it leaves inherited values alone.
func (r *vmResource) inheritedView(ctx context.Context, vmid int, prior, want *vmModel, live pveapi.GuestConfig, from origin) (*vmModel, error) {
	inherited := *want
	if err := inherited.fromAPI(vmid, guestops.WithoutCloneMarker(live), nil); err != nil {
		return nil, err
	}
	return guestops.CloneView(ctx, vmSchema(ctx), prior, want, &inherited, from.keepNull)
}

// cloudInitIdentityPath reports the paths a clone never inherits: every
// cloud-init value but the drive's storage and slot (W15, W27).
func cloudInitIdentityPath(p *tftypes.AttributePath) bool {
	steps := p.Steps()
	if len(steps) < 2 || steps[0] != tftypes.AttributeName("cloud_init") {
		return false
	}
	switch steps[1] {
	case tftypes.AttributeName("storage"), tftypes.AttributeName("slot"):
		return false
	}
	return true
}

// CheckCloneSource refuses a clone that cannot reach its node.
func (r *vmResource) CheckCloneSource(ctx context.Context, source guestops.CloneSource, plan *vmModel, diags *diag.Diagnostics) bool {
	return r.checkCloneCanMove(ctx, source, plan, diags)
}

// PrepareClone drops the seed ISO the clone inherited, before the clone
// moves to its node.
func (r *vmResource) PrepareClone(ctx context.Context, node string, vmid int, plan *vmModel, diags *diag.Diagnostics) bool {
	return r.dropInheritedSeed(ctx, node, vmid, plan, diags)
}
