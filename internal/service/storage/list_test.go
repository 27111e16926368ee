package storage

import (
	"slices"
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// A local storage's files are listed through each node, a shared
// storage's once, through the first node by name that has it available
// (or the node asked for); storages without the content type, or not
// available on a node (an offline one), are left out.
func TestListedStorages(t *testing.T) {
	t.Parallel()
	entry := func(node, storage, content string, shared bool, status string) pveapi.Resource {
		return pveapi.Resource{Type: "storage", Node: node, Storage: storage, Content: content, Shared: pveapi.Bool01(shared), Status: status}
	}
	entries := []pveapi.Resource{
		entry("pve2", "nfs", "iso,images", true, "available"),
		entry("pve1", "nfs", "iso,images", true, "unknown"),
		entry("pve3", "nfs", "iso,images", true, "available"),
		entry("pve2", "local", "iso,vztmpl", false, "available"),
		entry("pve1", "local", "iso,vztmpl", false, "available"),
		entry("pve1", "local-lvm", "images,rootdir", false, "available"),
		{Type: "node", Node: "pve1"},
	}
	cases := []struct {
		content, node, storage string
		want                   []storageAt
	}{
		{"iso", "", "", []storageAt{{"pve1", "local"}, {"pve2", "local"}, {"pve2", "nfs"}}},
		{"iso", "pve3", "", []storageAt{{"pve3", "nfs"}}},
		{"iso", "", "nfs", []storageAt{{"pve2", "nfs"}}},
		{"vztmpl", "", "", []storageAt{{"pve1", "local"}, {"pve2", "local"}}},
		{"import", "", "", nil},
	}
	for _, c := range cases {
		got := listedStorages(slices.Clone(entries), c.content, c.node, c.storage)
		if !slices.Equal(got, c.want) {
			t.Errorf("listedStorages(%s, %q, %q) = %v, want %v", c.content, c.node, c.storage, got, c.want)
		}
	}
}
