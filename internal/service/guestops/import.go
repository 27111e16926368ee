package guestops

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// ConfigKeyOwner is a guest resource that tells which keys of a guest's
// config its attributes represent, so an import can name the others.
type ConfigKeyOwner interface {
	// RepresentsConfigKey reports whether an attribute of the resource
	// reads and writes key, holding value.
	RepresentsConfigKey(key, value string) bool
}

// bookkeepingKeys are the keys PVE writes into a guest's config for itself.
// Nobody chose them, no attribute needs them, and an import does not list
// them as unmanaged:
//   - digest: the config file's checksum, for conflicting writes;
//   - lock: an operation in progress (W10);
//   - meta: the creation time and QEMU version at creation;
//   - vmgenid: the VM generation id, regenerated on clone (W14);
//   - template: the template flag, which the resource type stands for (W17);
//   - parent: the snapshot the guest runs on (snapshots are not managed);
//   - runningmachine, runningcpu: what a running VM was started with.
//
// smbios1 counts as bookkeeping only while it holds nothing but the uuid
// PVE generated; other smbios1 values are settings someone made.
var bookkeepingKeys = map[string]bool{
	"digest":         true,
	"lock":           true,
	"meta":           true,
	"vmgenid":        true,
	"template":       true,
	"parent":         true,
	"runningmachine": true,
	"runningcpu":     true,
}

const smbiosKey = "smbios1"

// IsBookkeepingKey reports whether key, holding value, is one PVE keeps
// for itself (see bookkeepingKeys).
func IsBookkeepingKey(key, value string) bool {
	if bookkeepingKeys[key] {
		return true
	}
	if key == smbiosKey {
		props, err := wire.ParsePropertyString(value, "")
		if err != nil {
			return false
		}
		_, hasUUID := props["uuid"]
		return hasUUID && len(props) == 1
	}
	return false
}

// ConfigOptionOwner is a ConfigKeyOwner whose attributes represent only
// some options of a property-string key (a drive's iops limits or a CPU's
// flags have no attribute, for instance).
type ConfigOptionOwner interface {
	ConfigKeyOwner
	// UnmanagedOptions lists the options of key's value, a key the owner
	// represents, that no attribute holds.
	UnmanagedOptions(key, value string) []string
}

// UnmanagedKeys lists, sorted, the keys of config that owner has no
// attribute for and that are not PVE's bookkeeping: the settings Terraform
// neither shows nor changes. An option of a represented key that no
// attribute holds is listed as KEY.OPTION.
func UnmanagedKeys(config pveapi.GuestConfig, owner ConfigKeyOwner) []string {
	options, _ := owner.(ConfigOptionOwner)
	var out []string
	for key, value := range config {
		switch {
		case IsBookkeepingKey(key, value):
		case !owner.RepresentsConfigKey(key, value):
			out = append(out, key)
		case options != nil:
			for _, opt := range options.UnmanagedOptions(key, value) {
				out = append(out, key+"."+opt)
			}
		}
	}
	slices.Sort(out)
	return out
}

// OptionsOutside lists, sorted, the options of a property string that
// are not in represented. defaultKey names a value given without a key.
// A value that does not parse has none: the refresh reports it.
func OptionsOutside(value, defaultKey string, represented ...string) []string {
	props, err := wire.ParsePropertyString(value, defaultKey)
	if err != nil {
		return nil
	}
	var out []string
	for opt := range props {
		if !slices.Contains(represented, opt) {
			out = append(out, opt)
		}
	}
	slices.Sort(out)
	return out
}

// UnmanagedSummary is the title of the warning an import gives when the
// guest has settings no attribute represents (fwutil.UnmanagedSummary).
const UnmanagedSummary = fwutil.UnmanagedSummary

// unmanagedDetail is the warning's text for the guest and its keys.
func (k Kind) unmanagedDetail(vmid int, node string, keys []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %d on node %s has settings that %s has no attribute for: %s. "+
		"They are not in state and not in generated configuration; Terraform neither shows nor changes them, "+
		"and they stay as they are in PVE.", fwutil.Capitalize(k.Noun), vmid, node, k.Resource, strings.Join(keys, ", "))
	if slices.ContainsFunc(keys, func(key string) bool { return strings.Contains(key, ".") }) {
		b.WriteString(" KEY.OPTION is one option of KEY: the provider keeps it as it is when it rewrites KEY.")
	}
	if slices.ContainsFunc(keys, wire.IsUnusedSlot) {
		b.WriteString(" unusedN are volumes detached from the guest: they keep their data, " +
			"and destroying the guest with Terraform destroys them too.")
	}
	return b.String()
}

// ImportWithWarning is ImportState followed by one warning naming the
// config keys owner cannot represent (nothing is dropped silently). The
// config is read once more for it; when that read fails the import goes
// on without the warning, and the refresh that follows reports the error.
func (a API) ImportWithWarning(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse, owner ConfigKeyOwner) bool {
	if !a.ImportState(ctx, req, resp) {
		return false
	}
	if owner == nil {
		return true
	}
	var node string
	var vmid int64
	resp.Diagnostics.Append(resp.State.GetAttribute(ctx, path.Root("node"), &node)...)
	resp.Diagnostics.Append(resp.State.GetAttribute(ctx, path.Root("vmid"), &vmid)...)
	if resp.Diagnostics.HasError() {
		return false
	}
	config, err := a.Config(ctx, node, int(vmid))
	if err != nil {
		return true
	}
	a.WarnUnmanaged(config, node, int(vmid), owner, &resp.Diagnostics)
	return true
}

// WarnUnmanaged adds the import warning for config's unmanaged keys, if
// it has any.
func (a API) WarnUnmanaged(config pveapi.GuestConfig, node string, vmid int, owner ConfigKeyOwner, diags *diag.Diagnostics) {
	keys := UnmanagedKeys(config, owner)
	if len(keys) == 0 {
		return
	}
	diags.AddWarning(UnmanagedSummary, a.Kind.unmanagedDetail(vmid, node, keys))
}
