package pvesim

import (
	"fmt"
	"time"
)

const (
	kib = int64(1024)
	mib = 1024 * kib
	gib = 1024 * mib
	tib = 1024 * gib
)

// seedFiles are the artifacts every node's "local" storage starts with.
// The cloud image is a qcow2 file of 332 MiB that holds a 3 GiB disk, as
// Debian's genericcloud images do.
var seedFiles = []struct {
	volid, content, format string
	size, virtualSize      int64
}{
	{"local:iso/debian-13-netinst.iso", "iso", "iso", 754 * mib, 0},
	{"local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst", "vztmpl", "tzst", 126 * mib, 0},
	{"local:import/debian-13-genericcloud-amd64.qcow2", "import", "qcow2", 332 * mib, 3 * 1024 * mib},
}

// seedCluster builds the starting cluster: nodes pve1..pveN, the default
// storages of a PVE install plus one shared NFS storage, and the seed files.
func seedCluster(nodes int, now time.Time, conf *guestSchema) *Cluster {
	c := &Cluster{
		Name:        "pvesim",
		Guests:      map[int]*Guest{},
		Pools:       map[string]*Pool{},
		volumes:     map[volumeKey]*Volume{},
		Firewall:    newFirewallState(),
		Access:      newAccess(),
		HA:          newHAState(),
		Replication: newReplicationState(),
		BackupJobs:  newBackupJobs(),
		Mappings:    newMappingState(),
		SDN:         newSDNState(),
		conf:        conf,
	}
	for i := 1; i <= nodes; i++ {
		c.Nodes = append(c.Nodes, &Node{
			Name:     fmt.Sprintf("pve%d", i),
			ID:       i,
			IP:       fmt.Sprintf("192.0.2.%d", 10+i),
			Online:   true,
			MaxCPU:   16,
			MaxMem:   64 * gib,
			MemUsed:  int64(5+i) * gib,
			CPU:      0.01 * float64(i),
			RootSize: 94 * gib,
			RootUsed: int64(6+i) * gib,
			BootTime: now.Add(-time.Duration(72+i) * time.Hour),
		})
	}
	c.Storages = []*Storage{
		{
			ID: "local", Type: "dir", Capacity: 100 * gib,
			Content: []string{"iso", "vztmpl", "import", "backup", "snippets"},
			Config:  map[string]string{"path": "/var/lib/vz"},
		},
		{
			ID: "local-lvm", Type: "lvmthin", Capacity: 500 * gib,
			Content: []string{"images", "rootdir"},
			Config:  map[string]string{"vgname": "pve", "thinpool": "data"},
		},
		{
			ID: "shared-nfs", Type: "nfs", Shared: true, Capacity: 2 * tib,
			Content: []string{"images", "iso", "vztmpl", "import"},
			Config: map[string]string{
				"path": "/mnt/pve/shared-nfs", "server": "192.0.2.5", "export": "/srv/pve",
				"options": "vers=4.2",
			},
		},
	}
	ctime := now.Add(-48 * time.Hour).Unix()
	for _, n := range c.Nodes {
		for _, f := range seedFiles {
			c.volumes[volumeKey{node: n.Name, volid: f.volid}] = &Volume{
				VolID: f.volid, Storage: "local", Node: n.Name,
				Content: f.content, Format: f.format, Size: f.size, VirtualSize: f.virtualSize, CTime: ctime,
				Digests: seedDigests(f.volid),
			}
		}
	}
	seedBackups(c)
	return c
}
