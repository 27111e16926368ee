// Package snapshot holds guest snapshots as resources (pve_vm_snapshot,
// pve_container_snapshot) and the actions on guests (pve_guest_snapshot,
// pve_guest_power).
package snapshot

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// kind is what the snapshots of one guest type differ in.
type kind struct {
	// resource is the resource type name without the provider prefix.
	resource string
	// guestType is the API's guest type, qemu or lxc.
	guestType string
	// noun names the guest in messages: "VM", "container".
	noun string
	// container tells pve-container's rules from qemu-server's.
	container bool
}

var (
	vmKind        = kind{resource: "vm_snapshot", guestType: pveapi.GuestTypeQemu, noun: "VM"}
	containerKind = kind{resource: "container_snapshot", guestType: pveapi.GuestTypeLXC, noun: "container", container: true}
)

// kindOf is the kind of a guest type as /cluster/resources names it.
func kindOf(guestType string) (kind, bool) {
	switch guestType {
	case pveapi.GuestTypeQemu:
		return vmKind, true
	case pveapi.GuestTypeLXC:
		return containerKind, true
	}
	return kind{}, false
}

// snapshotID is a snapshot's id and import id, NODE/VMID/NAME.
func snapshotID(node string, vmid int, name string) string {
	return node + "/" + strconv.Itoa(vmid) + "/" + name
}

// parseImportID reads "NODE/VMID/NAME" or "VMID/NAME".
func (k kind) parseImportID(id string) (node string, vmid int, name string, err error) {
	usage := fmt.Sprintf("import pve_%s by NODE/VMID/NAME (\"pve1/120/before_upgrade\") or VMID/NAME (\"120/before_upgrade\")", k.resource)
	parts := strings.Split(id, "/")
	switch len(parts) {
	case 3:
		node = parts[0]
		parts = parts[1:]
		if !wire.IsNodeName(node) {
			return "", 0, "", fmt.Errorf("%s; %q has no valid node name", usage, id)
		}
	case 2:
	default:
		return "", 0, "", fmt.Errorf("%s, got %q", usage, id)
	}
	vmid, convErr := strconv.Atoi(parts[0])
	if convErr != nil || !wire.IsVMID(int64(vmid)) || strconv.Itoa(vmid) != parts[0] {
		return "", 0, "", fmt.Errorf("%s; %q has no valid VMID", usage, id)
	}
	name = parts[1]
	if !wire.IsSnapshotName(name, k.container) {
		return "", 0, "", fmt.Errorf("%s; %q is no valid snapshot name", usage, name)
	}
	return node, vmid, name, nil
}

// locateGuest finds vmid's node in the cluster and checks it is a guest
// of k's type; wantNode, when set, must be that node.
func (k kind) locateGuest(ctx context.Context, client *pveapi.Client, wantNode string, vmid int, diags *diag.Diagnostics, at path.Path) (string, bool) {
	guest, found, err := client.LocateGuest(ctx, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Find Guest", err)
		return "", false
	}
	if !found {
		diags.AddAttributeError(at, "Guest Not Found", fmt.Sprintf("No guest with VMID %d exists in the cluster.", vmid))
		return "", false
	}
	if guest.Type != k.guestType {
		other, _ := kindOf(guest.Type)
		diags.AddAttributeError(at, "Wrong Guest Type", fmt.Sprintf(
			"Guest %d is a %s, not a %s: use pve_%s for its snapshots.", vmid, other.noun, k.noun, other.resource))
		return "", false
	}
	if wantNode != "" && guest.Node != wantNode {
		diags.AddAttributeError(at, "Guest On Another Node", fmt.Sprintf(
			"%s %d is on node %s, not %s.", k.title(), vmid, guest.Node, wantNode))
		return "", false
	}
	return guest.Node, true
}

// validName reports whether PVE takes s as a snapshot name of k's kind.
func (k kind) validName(s string) bool { return wire.IsSnapshotName(s, k.container) }

// title is the noun at the start of a sentence.
func (k kind) title() string {
	return strings.ToUpper(k.noun[:1]) + k.noun[1:]
}
