package pvesim

// zfsStorage is the "local-zfs" storage a PVE installed on ZFS has on
// every node: a zfspool on rpool/data for VM disks and container volumes,
// sparse (pve-installer's default storage.cfg for a ZFS root). It is the
// storage type replication needs (replication_model.go).
func zfsStorage() *Storage {
	return &Storage{
		ID: "local-zfs", Type: "zfspool", Capacity: 500 * gib,
		Content: []string{"images", "rootdir"},
		Config:  map[string]string{"pool": "rpool/data", "sparse": "1"},
	}
}
