package guestops

import "github.com/proxops/terraform-provider-pve/internal/fwutil"

// ResourceIdentity is a guest resource's Terraform identity: its VMID,
// which is unique in the cluster, and the node it is on. As with the
// import id, VMID or NODE/VMID, an import by identity may leave the node
// out: the import looks it up. The node follows the guest when it
// migrates (by Terraform or by HA), so the identity is mutable; the VMID
// never changes.
var ResourceIdentity = fwutil.Identity{
	Attributes: []fwutil.IdentityAttribute{
		{Name: "vmid", Int: true, Description: "The guest's VMID, as `vmid`."},
		{Name: "node", Optional: true, Description: "The node the guest is on, as `node`. Optional at import: the guest is " +
			"looked up in the cluster by its VMID; when given, the guest must be on that node. It follows the guest when it migrates."},
	},
	ImportID: func(v map[string]string) string {
		if v["node"] == "" {
			return v["vmid"]
		}
		return v["node"] + "/" + v["vmid"]
	},
	Mutable: true,
}
