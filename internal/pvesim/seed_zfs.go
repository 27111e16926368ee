package pvesim

import "fmt"

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

// AddZFSStorage adds the "local-zfs" storage to a running simulator, as
// Options.ZFSStorage does at its start: for tests whose harness made the
// simulator. It is an error when the storage exists.
func (s *Sim) AddZFSStorage() error {
	return s.Update(func(c *Cluster) error {
		for _, st := range c.Storages {
			if st.ID == "local-zfs" {
				return fmt.Errorf("storage local-zfs exists")
			}
		}
		c.Storages = append(c.Storages, zfsStorage())
		return nil
	})
}
