package pool

import (
	"slices"
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// PVE lists a pool's storage once per node; the import warning names each
// storage once, and never a guest member (W48: guests join through their
// own pool attribute).
func TestStorageMembersOncePerStorage(t *testing.T) {
	t.Parallel()
	pool := &pveapi.Pool{PoolID: "web", Members: []pveapi.PoolMember{
		{Type: "storage", Storage: "local-lvm", Node: "pve2"},
		{Type: "qemu", VMID: 100, Node: "pve1"},
		{Type: "storage", Storage: "local-lvm", Node: "pve1"},
		{Type: "storage", Storage: "shared-nfs", Node: "pve1"},
		{Type: "lxc", VMID: 200, Node: "pve2"},
	}}
	if got, want := storageMembers(pool), []string{"local-lvm", "shared-nfs"}; !slices.Equal(got, want) {
		t.Errorf("storageMembers = %v, want %v", got, want)
	}
}
