package lxc

import (
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

func mountPath(slot, attr string) path.Path {
	p := path.Root("mount_points").AtMapKey(slot)
	if slot == keyRootFS {
		p = path.Root("root_disk")
	}
	if attr != "" {
		p = p.AtName(attr)
	}
	return p
}

// checkConfig finds configuration errors that need no state: a mount point
// that is both or neither a volume and a bind mount, a volume without size,
// a bind mount with one, quotas in an unprivileged container, empty nested
// objects.
func checkConfig(m *containerModel) []guestops.Issue {
	var issues []guestops.Issue
	for _, slot := range slices.Sorted(maps.Keys(m.MountPoints)) {
		mp := m.MountPoints[slot]
		hasStorage, hasHost := !mp.Storage.IsNull(), !mp.HostPath.IsNull()
		switch {
		case hasStorage && hasHost, !hasStorage && !hasHost:
			issues = append(issues, guestops.Issue{
				Path:    mountPath(slot, ""),
				Summary: "Volume Or Bind Mount",
				Detail: fmt.Sprintf("Mount point %s must set exactly one of storage (a volume PVE allocates) and host_path (a bind mount of a directory of the node). "+
					"It sets %s.", slot, bothOrNeither(hasStorage)),
			})
		case hasStorage && mp.Size.IsNull():
			issues = append(issues, guestops.Issue{
				Path:    mountPath(slot, "size"),
				Summary: "Mount Point Size Required",
				Detail:  fmt.Sprintf("Mount point %s is a volume on %s and needs a size (GiB, or with a unit: \"512M\").", slot, mp.Storage.ValueString()),
			})
		case hasHost && !mp.Size.IsNull():
			issues = append(issues, guestops.Issue{
				Path:    mountPath(slot, "size"),
				Summary: "Bind Mount Has No Size",
				Detail:  fmt.Sprintf("Mount point %s binds %s of the node, whose size PVE does not manage. Remove size.", slot, mp.HostPath.ValueString()),
			})
		}
		privileged := guestops.Known(m.Unprivileged) && !m.Unprivileged.ValueBool()
		if guestops.Known(mp.Quota) && mp.Quota.ValueBool() && !privileged {
			issues = append(issues, guestops.Issue{
				Path:    mountPath(slot, "quota"),
				Summary: "Quotas Need A Privileged Container",
				Detail: fmt.Sprintf("Mount point %s enables quota, which PVE supports only in privileged containers: an unprivileged one (PVE's default) refuses to start. "+
					"Remove quota, or set unprivileged = false.", slot),
			})
		}
	}
	if m.CPU != nil && guestops.AllNull(m.CPU.Cores, m.CPU.Limit, m.CPU.Units) {
		issues = append(issues, guestops.Issue{Path: path.Root("cpu"), Summary: "Empty CPU Settings",
			Detail: emptySettingsDetail("cpu", "cores, limit or units")})
	}
	if m.DNS != nil && guestops.AllNull(m.DNS.Domain, m.DNS.Servers) {
		issues = append(issues, guestops.Issue{Path: path.Root("dns"), Summary: "Empty DNS Settings",
			Detail: emptySettingsDetail("dns", "domain or servers")})
	}
	if m.Console != nil && guestops.AllNull(m.Console.Enabled, m.Console.Mode, m.Console.TTYs) {
		issues = append(issues, guestops.Issue{Path: path.Root("console"), Summary: "Empty Console Settings",
			Detail: emptySettingsDetail("console", "enabled, mode or ttys")})
	}
	for _, slot := range slices.Sorted(maps.Keys(m.Network)) {
		nic := m.Network[slot]
		for _, family := range []struct {
			name string
			ip   *ipModel
		}{{"ipv4", nic.IPv4}, {"ipv6", nic.IPv6}} {
			if family.ip != nil && guestops.AllNull(family.ip.Address, family.ip.Gateway) {
				issues = append(issues, guestops.Issue{Path: path.Root("network").AtMapKey(slot).AtName(family.name), Summary: "Empty Address Settings",
					Detail: emptySettingsDetail("network."+slot+"."+family.name, "address or gateway")})
			}
		}
	}
	return issues
}

func bothOrNeither(both bool) string {
	if both {
		return "both"
	}
	return "neither"
}

// emptySettingsDetail explains an "Empty ... Settings" issue.
func emptySettingsDetail(attr, what string) string {
	return fmt.Sprintf("%s sets none of its attributes. Set %s, or leave %s out to keep PVE's defaults.", attr, what, attr)
}

// checkPlan is the data-loss guard (W21-W24, W36, W37): it compares the
// planned root disk and mount points with state and refuses what would
// lose data or silently make a new volume: a shrink, a mount point moved
// to another slot, a slot switching between volume and bind mount, a live
// bind mount re-pointed. Removing a volume mount point is allowed, with a
// warning that says where its data goes; moving a volume to another storage
// is allowed, with a warning that a running container stops for it.
func checkPlan(state, plan *containerModel) []guestops.Issue {
	var issues []guestops.Issue
	moves := false
	if state.RootDisk != nil && plan.RootDisk != nil {
		if issue, shrinks := guestops.ShrinkIssue(mountPath(keyRootFS, "size"), rootDiskNoun, keyRootFS, state.RootDisk.Size, plan.RootDisk.Size); shrinks {
			issues = append(issues, issue)
		}
		moves = movesStorage(state.RootDisk.Storage.ValueString(), plan.RootDisk.volume())
	}
	added := map[string]guestops.Volume{}
	for slot, mp := range plan.MountPoints {
		if _, existed := state.MountPoints[slot]; !existed && !mp.isBind() {
			added[slot] = mp.volume()
		}
	}
	for _, slot := range slices.Sorted(maps.Keys(plan.MountPoints)) {
		want := plan.MountPoints[slot]
		had, existed := state.MountPoints[slot]
		if !existed {
			continue
		}
		switch {
		case had.isBind() != want.isBind():
			issues = append(issues, kindSwitchIssue(slot, had))
		case had.isBind():
			if guestops.Known(want.HostPath) && want.HostPath.ValueString() != had.HostPath.ValueString() {
				issues = append(issues, guestops.Issue{
					Path:    mountPath(slot, "host_path"),
					Summary: "Bind Mount Cannot Be Re-Pointed",
					Detail: fmt.Sprintf("Mount point %s binds %s of the node; the configuration asks for %s. The provider never re-points a live bind mount: "+
						"the container would see other data under %s without notice. To bind another directory, add it in a free slot and remove %s; "+
						"or remove %s in one apply and declare it again in the next.",
						slot, had.HostPath.ValueString(), want.HostPath.ValueString(), had.Path.ValueString(), slot, slot),
				})
			}
		default:
			if issue, shrinks := guestops.ShrinkIssue(mountPath(slot, "size"), guestops.MountPointNoun, slot, had.Size, want.Size); shrinks {
				issues = append(issues, issue)
			}
			moves = moves || movesStorage(had.Storage.ValueString(), want.volume())
		}
	}
	for _, slot := range slices.Sorted(maps.Keys(state.MountPoints)) {
		if _, kept := plan.MountPoints[slot]; kept {
			continue
		}
		had := state.MountPoints[slot]
		if had.isBind() {
			continue
		}
		if target, moved := guestops.Lookalike(had.volume(), added); moved {
			issues = append(issues, guestops.MovedSlotIssue(mountPath(target, ""), guestops.MountPointNoun, slot, target, had.volume()))
			continue
		}
		issues = append(issues, guestops.DetachIssue(mountPath(slot, ""), guestops.MountPointNoun, slot, had.volume(), plan.PurgeRemovedDisks))
	}
	if moves && guestops.Known(plan.Started) && plan.Started.ValueBool() {
		issues = append(issues, guestops.Issue{
			Path:    path.Root("started"),
			Summary: "Container Stops For A Volume Move",
			Detail:  "A volume moves to another storage. PVE moves a container's volumes only while it is stopped: the container is shut down for the move and started again.",
			Warning: true,
		})
	}
	return issues
}

var rootDiskNoun = guestops.VolumeNoun{Title: "Root Disk", Noun: "root disk"}

func movesStorage(from string, to guestops.Volume) bool {
	return guestops.Known(to.Storage) && from != "" && to.Storage.ValueString() != from
}

func kindSwitchIssue(slot string, had mountPointModel) guestops.Issue {
	from, to := "volume mount point", "bind mount"
	if had.isBind() {
		from, to = to, from
	}
	return guestops.Issue{
		Path:    mountPath(slot, ""),
		Summary: "Mount Point Cannot Change Kind",
		Detail: fmt.Sprintf("Mount point %s is a %s and the configuration declares a %s there. Declare the %s in a free slot, "+
			"or remove %s in one apply and declare it again in the next.", slot, from, to, to, slot),
	}
}

// Principal root-only rules need: PVE lets only root@pam, logged in with a
// password, write them; API tokens are refused even when they are root's
// (W33, W36).
const rootPrincipal = "root@pam"

// rootOnlyIssues refuses, under any login but root@pam with a password,
// the changes PVE reserves to root@pam: feature flags other than nesting
// (W33; nesting too in a privileged container) and bind mounts (W36),
// created or changed. Flags and binds that stay as they are pass: reading
// what root set is fine. state is nil at create, a replacement included:
// PVE's check_ct_modify_config_perm (pve-container, src/PVE/LXC.pm) then
// sees a new container, whose flags all count as changed.
func rootOnlyIssues(state, plan *containerModel, principal string) []guestops.Issue {
	var issues []guestops.Issue
	flagsWhy, mountWhy, bindWhy := "PVE lets only root@pam change container feature flags other than nesting, and any flag of a privileged container",
		"PVE lets only root@pam change container feature flags other than nesting", "PVE lets only root@pam create or change bind mounts"
	if state == nil {
		flagsWhy = "PVE lets only root@pam create a container with feature flags other than nesting, or a privileged container with any flag"
		mountWhy = "PVE lets only root@pam create a container with feature flags other than nesting"
	}
	var stateFeatures *featuresModel
	if state != nil {
		stateFeatures = state.Features
	}
	had, hadMount := stateFeatures.effective()
	want, wantMount := plan.Features.effective()
	privileged := guestops.Known(plan.Unprivileged) && !plan.Unprivileged.ValueBool()
	for _, key := range []string{featKeyctl, featFuse, featMknod, featNesting} {
		if had[key] == want[key] || key == featNesting && !privileged {
			continue
		}
		issues = append(issues, rootOnlyIssue(path.Root("features").AtName(key), "features."+key, principal, flagsWhy, state == nil))
	}
	if !slices.Equal(hadMount, wantMount) {
		issues = append(issues, rootOnlyIssue(path.Root("features").AtName(featMount), "features.mount", principal, mountWhy, state == nil))
	}
	for _, slot := range slices.Sorted(maps.Keys(plan.MountPoints)) {
		mp := plan.MountPoints[slot]
		if !mp.isBind() {
			continue
		}
		if state != nil {
			if old, ok := state.MountPoints[slot]; ok && sameBind(old, mp) {
				continue
			}
		}
		issues = append(issues, rootOnlyIssue(mountPath(slot, "host_path"), "mount_points."+slot+" (a bind mount)", principal, bindWhy, state == nil))
	}
	return issues
}

// rootOnlyIssue refuses option; creating tells a new container (a
// replacement included), where the way out is to leave the option out,
// from a change, where it is to leave it as it is.
func rootOnlyIssue(p path.Path, option, principal, why string, creating bool) guestops.Issue {
	fix := fmt.Sprintf("leave %s as it is in PVE", option)
	if creating {
		fix = fmt.Sprintf("remove %s from the configuration of the new container", option)
	}
	return guestops.Issue{
		Path:    p,
		Summary: "Option Needs root@pam",
		Detail: fmt.Sprintf("%s needs a password login as root@pam: %s, and the provider authenticates as %s. "+
			"API tokens are refused, even root@pam's own. Configure the provider with username = \"root@pam\" and its password for this container, "+
			"or %s.", option, why, principal, fix),
	}
}

// sameBind reports whether a bind mount stays as it is: nothing PVE would
// see as a change of the mount point.
func sameBind(a, b mountPointModel) bool {
	return a.HostPath.Equal(b.HostPath) && a.Path.Equal(b.Path) && a.ReadOnly.Equal(b.ReadOnly) &&
		a.Backup.Equal(b.Backup) && a.ACL.Equal(b.ACL) && a.Quota.Equal(b.Quota) &&
		a.Replicate.Equal(b.Replicate) && a.Shared.Equal(b.Shared)
}

// createOnlyWarnings tells that changes of what applies only at create
// (root's keys and password) reach state but not the container.
func createOnlyWarnings(state, plan *containerModel) []guestops.Issue {
	var issues []guestops.Issue
	if !plan.SSHPublicKeys.Equal(state.SSHPublicKeys) && !plan.SSHPublicKeys.IsUnknown() {
		issues = append(issues, guestops.Issue{
			Path: path.Root("ssh_public_keys"), Summary: "SSH Keys Apply Only To New Containers", Warning: true,
			Detail: "PVE writes ssh_public_keys into root's authorized_keys when it creates a container and never again. " +
				"The new keys are recorded in state, but the running container keeps the keys it has: change them inside the container, " +
				"or replace it (terraform apply -replace) to start over with the new keys.",
		})
	}
	if !plan.PasswordWOVersion.Equal(state.PasswordWOVersion) && !plan.PasswordWOVersion.IsUnknown() {
		issues = append(issues, guestops.Issue{
			Path: path.Root("password_wo_version"), Summary: "Password Applies Only To New Containers", Warning: true,
			Detail: "PVE sets root's password from password_wo when it creates a container and never again. " +
				"The new version is recorded in state, but the container keeps its password: change it inside the container, " +
				"or replace it (terraform apply -replace).",
		})
	}
	return issues
}
