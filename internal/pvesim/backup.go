package pvesim

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
)

// Backup archives (vzdump) and GET /nodes/{node}/vzdump/extractconfig
// (pve-manager PVE/API2/VZDump.pm, pve-storage extract_vzdump_config).
// An archive is a "backup" volume whose BackupConfig holds the config file
// it was made from: qemu-server.conf with vzdump's "#qmdump#map" lines
// for a VM, pct.conf for a container.

// backupName is pve-storage's archive_info grammar for vzdump archives:
// guest type, owner vmid, then a VMA (VMs) or tar (containers) archive,
// optionally compressed.
var backupName = regexp.MustCompile(`^vzdump-(lxc|openvz|qemu)-(\d+)-.+\.(tgz|tar|vma)(?:\.(gz|lzo|zst|bz2))?$`)

// backupOwner is the vmid parse_volname reads from an archive's name, 0
// when the name is not vzdump's.
func backupOwner(name string) int {
	m := backupName.FindStringSubmatch(name)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[2])
	return n
}

// backupArchiveType is archive_info's type: "qemu" or "lxc" ("openvz"
// archives restore as containers).
func backupArchiveType(volid string) (GuestType, bool) {
	name := volid[strings.LastIndexByte(volid, '/')+1:]
	m := backupName.FindStringSubmatch(name)
	if m == nil {
		return "", false
	}
	if m[1] == "qemu" {
		return QEMU, m[3] == "vma"
	}
	return LXC, m[3] != "vma"
}

// backupFormat is the format the content listing reports: "vma.zst",
// "tar.zst", "tgz".
func backupFormat(name string) string {
	m := backupName.FindStringSubmatch(name)
	if m == nil {
		return "raw"
	}
	if m[4] == "" {
		return m[3]
	}
	return m[3] + "." + m[4]
}

// backupTime is the fixed time stamp of the seeded archives.
var backupTime = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// seedQemuBackupConfig and seedLXCBackupConfig are the configs the seeded
// archives embed: a cloud-init VM with two disks, and a container with a
// sized rootfs and a data mount point.
const seedQemuBackupConfig = `#web server, backed up nightly
agent: 1
boot: order=scsi0;net0
ciuser: debian
cores: 2
ide2: local-lvm:vm-120-cloudinit,media=cdrom
ipconfig0: ip=dhcp
memory: 2048
meta: creation-qemu=10.1.2,ctime=1761955200
name: web-120
net0: virtio=BC:24:11:5E:12:00,bridge=vmbr0,firewall=1
onboot: 1
ostype: l26
scsi0: local-lvm:vm-120-disk-0,discard=on,iothread=1,size=16G
scsi1: local-lvm:vm-120-disk-1,size=4G
scsihw: virtio-scsi-single
smbios1: uuid=6f0c1c52-4d8e-4d5c-9a0b-2f4f8b1e1200
sockets: 1
tags: prod;web
vmgenid: 2d3f7e58-0a4b-4c61-8f2e-9b7d6c5a1200
#qmdump#map:scsi0:drive-scsi0:local-lvm:raw:
#qmdump#map:scsi1:drive-scsi1:local-lvm:raw:
`

const seedLXCBackupConfig = `#cache container
arch: amd64
cores: 1
features: nesting=1
hostname: cache-130
memory: 512
mp0: local-lvm:vm-130-disk-1,mp=/var/cache/app,backup=1,size=2G
nameserver: 10.0.0.1
net0: name=eth0,bridge=vmbr0,hwaddr=BC:24:11:5E:13:00,ip=dhcp,type=veth
onboot: 1
ostype: debian
rootfs: local-lvm:vm-130-disk-0,size=4G
swap: 256
tags: cache
unprivileged: 1
`

// SeedQemuBackup and SeedLXCBackup are the archives every node's "local"
// storage starts with.
const (
	SeedQemuBackup = "local:backup/vzdump-qemu-120-2026_11_01-00_00_00.vma.zst"
	SeedLXCBackup  = "local:backup/vzdump-lxc-130-2026_11_01-00_00_00.tar.zst"
)

// Sizes of the seeded archives, and what they add to each node's "local".
const (
	seedQemuBackupBytes = 1536 * mib
	seedLXCBackupBytes  = 384 * mib
	seedBackupBytes     = seedQemuBackupBytes + seedLXCBackupBytes
	// seedLocalVolumes counts every node's seeded "local" volumes: the
	// seed files and the two archives.
	seedLocalVolumes = 5
)

// seedBackups adds the seeded archives on every node.
func seedBackups(c *Cluster) {
	for _, n := range c.Nodes {
		for _, a := range []struct {
			volid, config string
			size          int64
		}{{SeedQemuBackup, seedQemuBackupConfig, seedQemuBackupBytes}, {SeedLXCBackup, seedLXCBackupConfig, seedLXCBackupBytes}} {
			v := newBackupVolume(a.volid, n.Name, a.config, backupTime.Unix())
			v.Size = a.size
			c.volumes[volumeKey{node: n.Name, volid: a.volid}] = v
		}
	}
}

func newBackupVolume(volid, node, config string, ctime int64) *Volume {
	storage, name, _ := strings.Cut(volid, ":")
	name = strings.TrimPrefix(name, "backup/")
	return &Volume{
		VolID: volid, Storage: storage, Node: node, Content: "backup", Format: backupFormat(name),
		Size: backupSize(config), Owner: backupOwner(name), CTime: ctime, BackupConfig: config,
	}
}

// backupSize stands in for the size of an archive a test adds: a tenth of
// the volumes it holds, at least 1 MiB. A disk vzdump leaves out does not
// count: a VM drive marked backup=0 (qemu-server src/PVE/QemuConfig.pm
// get_backup_volumes) and a container mount point without backup=1
// (pve-container src/PVE/LXC/Config.pm mountpoint_backup_enabled).
func backupSize(config string) int64 {
	var sum int64
	for _, line := range strings.Split(config, "\n") {
		key, value, ok := strings.Cut(line, ": ")
		if !ok || strings.HasPrefix(key, "#") {
			continue
		}
		props := map[string]string{}
		for _, part := range strings.Split(value, ",") {
			if k, v, ok := strings.Cut(part, "="); ok {
				props[k] = v
			}
		}
		if isDriveKey(key) && perlFalse(props["backup"]) || isMountKey(key) && key != "rootfs" && !perlTrue(props["backup"]) {
			continue
		}
		if n, ok := pvegrammar.ParseSize(props["size"]); ok {
			sum += n
		}
	}
	return max(sum/10, mib)
}

// perlTrue and perlFalse are the spellings of a set schema boolean
// (pve-common src/PVE/JSONSchema.pm check_type).
func perlTrue(v string) bool {
	switch strings.ToLower(v) {
	case "1", "on", "yes", "true":
		return true
	}
	return false
}

func perlFalse(v string) bool {
	switch strings.ToLower(v) {
	case "0", "off", "no", "false":
		return true
	}
	return false
}

// AddBackup stores a backup archive with the config file it embeds
// (config file text: "#" description lines, then "key: value" lines) on a
// storage with backup content. volid must be a vzdump name on that
// storage, "STORAGE:backup/vzdump-qemu-VMID-....vma.zst" or
// "...-lxc-VMID-....tar.zst".
func (s *Sim) AddBackup(node, volid, config string) error {
	return s.Update(func(c *Cluster) error { return c.addBackup(node, volid, config) })
}

func (c *Cluster) addBackup(node, volid, config string) error {
	storage, volname, _ := strings.Cut(volid, ":")
	st := c.Storage(storage)
	if st == nil {
		return fmt.Errorf("no storage %q", storage)
	}
	if !st.hasContent("backup") {
		return fmt.Errorf("storage %q has no backup content", storage)
	}
	name, ok := strings.CutPrefix(volname, "backup/")
	if !ok || backupOwner(name) == 0 {
		return fmt.Errorf("%q is not a vzdump archive name", volid)
	}
	return c.AddVolume(newBackupVolume(volid, node, config, backupTime.Unix()))
}

// BackupGuest makes an archive of an existing guest on storage (which must
// have backup content) on the guest's node, as vzdump would, and returns
// its volid. The archive embeds the guest's config as it is now.
func (s *Sim) BackupGuest(vmid int, storage string) (string, error) {
	var volid string
	err := s.Update(func(c *Cluster) error {
		g := c.Guests[vmid]
		if g == nil {
			return fmt.Errorf("no guest %d", vmid)
		}
		ext := "vma.zst"
		if g.Type == LXC {
			ext = "tar.zst"
		}
		stamp := s.now().UTC().Format("2006_01_02-15_04_05")
		volid = fmt.Sprintf("%s:backup/vzdump-%s-%d-%s.%s", storage, g.Type, vmid, stamp, ext)
		return c.addBackup(g.Node, volid, s.cluster.conf.backupConfigText(g))
	})
	return volid, err
}

// backupConfigText is the config file vzdump puts into an archive: the
// current config without lock and pending section, and for a VM one
// "#qmdump#map" line per backed-up disk.
// The archive's config text is the guest's config file (qemu-server
// src/PVE/QemuServer.pm write_vm_config, pve-container src/PVE/LXC/Config.pm
// write_pct_config) as vzdump stores it.
func (cs *guestSchema) backupConfigText(g *Guest) string {
	cfg := copyMap(g.Config)
	delete(cfg, "lock")
	text := renderConfig(&Guest{Type: g.Type, Config: cfg})
	if g.Type != QEMU {
		return text
	}
	var b strings.Builder
	b.WriteString(text)
	for _, key := range guestDrives(cfg) {
		d, ok := cs.parseDrive(key, cfg[key])
		if !ok || d.isCDROM() || d.isCloudInit() || d["backup"] == "0" {
			continue
		}
		sid, _, _ := strings.Cut(d.file(), ":")
		fmt.Fprintf(&b, "#qmdump#map:%s:drive-%s:%s:%s:\n", key, key, sid, d["format"])
	}
	return b.String()
}

// parseConfigText is parse_vm_config / parse_pct_config for an archive's
// config: leading "#" lines are the description, vzdump's own "#qmdump#"
// and "#vzdump#" lines are skipped, and a "[section]" (snapshots,
// pending) ends the current config.
// qemu-server src/PVE/QemuServer.pm parse_vm_config (comment lines are the
// description).
func parseConfigText(text string) map[string]string {
	out := map[string]string{}
	var description []string
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "#qmdump#"), strings.HasPrefix(line, "#vzdump#"):
			continue
		case strings.HasPrefix(line, "["):
			return finishParsedConfig(out, description)
		case strings.HasPrefix(line, "#"):
			description = append(description, line[1:])
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		out[strings.TrimSpace(key)] = strings.TrimSpace(value)
	}
	return finishParsedConfig(out, description)
}

func finishParsedConfig(out map[string]string, description []string) map[string]string {
	if len(description) > 0 {
		out["description"] = strings.Join(description, "\n")
	}
	return out
}

func (s *Sim) registerBackupRoutes() {
	s.handle(http.MethodGet, "/nodes/{node}/vzdump/extractconfig", route{handle: extractConfig})
}

// extractConfig is extractconfig: the volume must be a backup the caller
// may read (VM.Backup on its owner), and present on the node; the answer
// is the embedded config file's text.
// pve-manager PVE/API2/VZDump.pm extractconfig (pve-storage src/PVE/Storage.pm
// extract_vzdump_config, archive_info; abs_filesystem_path "can't find file").
func extractConfig(c *call) (any, error) {
	volid := c.str("volume")
	if err := checkVolumeAccess(c, 0, volid, "backup"); err != nil {
		return nil, err
	}
	_, info, err := parseVolume(c.cluster, volid)
	if err != nil {
		return nil, err
	}
	if info.owner != 0 {
		if err := c.check("/vms/"+itoa(info.owner), false, "VM.Backup"); err != nil {
			return nil, err
		}
	}
	v := c.cluster.Volume(c.str("node"), volid)
	if v == nil {
		return nil, errorf("can't find file '%s'", volid)
	}
	if _, ok := backupArchiveType(volid); !ok {
		return nil, errorf("cannot determine backup guest type for backup archive '%s'", volid)
	}
	return v.BackupConfig, nil
}

// archiveConfig is what a restore reads first (recover_config,
// extract_vzdump_config): the archive's config, which must be of the
// restoring guest's type.
// pve-container src/PVE/LXC/Create.pm recover_config and pve-storage
// src/PVE/Storage.pm archive_info, abs_filesystem_path.
func archiveConfig(cl *Cluster, node, volid string, want GuestType) (map[string]string, error) {
	v := cl.Volume(node, volid)
	if v == nil || v.Content != "backup" {
		return nil, errorf("can't find file '%s'", volid)
	}
	typ, ok := backupArchiveType(volid)
	if !ok {
		return nil, errorf("ERROR: couldn't determine archive info from '%s'", volid)
	}
	if typ != want {
		if want == QEMU {
			// qemu-server src/PVE/QemuServer.pm restore_tar_archive: a
			// container's tar has no qemu-server.conf first.
			path := volid
			if st := cl.Storage(v.Storage); st != nil {
				_, volname, _ := strings.Cut(volid, ":")
				path = volumePath(st, "backup", volname)
			}
			return nil, errorf("ERROR: file '%s' does not look like a QemuServer vzdump backup", path)
		}
		// inferred: pve-container reads a VMA archive with tar
		// (pve-storage extract_vzdump_config_tar), which fails with tar's
		// own words; the simulator names the mismatch instead.
		return nil, errorf("archive '%s' is a %s backup and cannot be restored as a %s", volid, typ, want)
	}
	return parseConfigText(v.BackupConfig), nil
}
