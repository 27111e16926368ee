package pvesim

import (
	"encoding/binary"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Guest images on storage, as pve-storage names, parses, allocates and frees
// them. Volumes change only through these functions, so every volume a test
// sees was made, moved or freed by an API call.

// lvmExtent is LVM's default extent size: logical volumes are allocated in
// whole extents, so their size is rounded up to it.
const lvmExtent = 4 * mib

// overcommits tells storages whose volumes take no space up front, so PVE
// allocates and grows them beyond the free space: pve-storage
// src/PVE/Storage/LvmThinPlugin.pm alloc_image creates a thin volume with
// lvcreate -V and no free-space check, and src/PVE/Storage/Plugin.pm
// alloc_image and volume_resize make and grow sparse image files
// (preallocation off for raw, metadata for qcow2). The simulator's
// free-space refusal stays for the other types (ZFS reserves a zvol's size,
// thick LVM checks the volume group), with its own text.
func (s *Storage) overcommits() bool {
	return s.Type == "lvmthin" || s.fileStorage()
}

// fileStorage tells whether the storage keeps images as files under a path
// ("$path/images/VMID/NAME.FMT"), which is how pve-storage decides whether a
// volume name carries a format suffix.
// pve-storage src/PVE/Storage/Plugin.pm (plugins with a path: filesystem_path,
// parse_name_dir).
func (s *Storage) fileStorage() bool {
	switch s.Type {
	case "dir", "nfs", "cifs", "glusterfs", "cephfs", "btrfs":
		return true
	}
	return false
}

// formats is the plugin's "format" plugindata: the valid image formats and
// the default one, which storage.cfg's "format" option overrides.
// pve-storage src/PVE/Storage/*Plugin.pm plugindata formats.
func (s *Storage) formats() (def string, valid map[string]bool) {
	def = "raw"
	valid = map[string]bool{"raw": true}
	switch s.Type {
	case "dir", "btrfs":
		valid = map[string]bool{"raw": true, "qcow2": true, "vmdk": true, "subvol": true}
	case "nfs", "cifs", "glusterfs":
		valid = map[string]bool{"raw": true, "qcow2": true, "vmdk": true}
	case "zfspool":
		valid = map[string]bool{"raw": true, "subvol": true}
	}
	if f := s.Config["format"]; valid[f] {
		def = f
	}
	return def, valid
}

// resolveFormat is resolve_format_hint: the hint when the storage supports
// it, else the storage's default format.
// pve-storage src/PVE/Storage.pm resolve_format_hint
func (s *Storage) resolveFormat(hint string) string {
	def, valid := s.formats()
	if hint != "" && valid[hint] {
		return hint
	}
	return def
}

// imagesPath is where a file storage keeps a guest's images, for PVE's
// messages that name a path.
func (s *Storage) imagesPath(vmid int) string {
	return fmt.Sprintf("%s/images/%d", s.Config["path"], vmid)
}

// volInfo is what parse_volname tells about a volume name.
type volInfo struct {
	vtype  string // images, iso, vztmpl, import, backup, snippets
	owner  int    // vmid owning an image, 0 otherwise
	isBase bool   // a template's base image
	base   string // volname of the base image a linked clone is backed by
	format string // raw, qcow2, vmdk, iso, ...
}

var (
	// fileImage is an image on a file storage: "100/vm-100-disk-0.qcow2",
	// "100/base-100-disk-0.raw", "100/vm-100-cloudinit.qcow2".
	fileImage = regexp.MustCompile(`^(\d+)/((base-)?[^/\s]+\.(raw|qcow2|vmdk|subvol))$`)
	// fileLinkedImage is a linked clone on a file storage:
	// "100/base-100-disk-0.qcow2/101/vm-101-disk-0.qcow2".
	fileLinkedImage = regexp.MustCompile(`^(\d+)/(base-\d+-\S+\.(raw|qcow2|vmdk))/(\d+)/(vm-\d+-\S+\.(raw|qcow2|vmdk))$`)
	// blockImage is an LVM volume: "vm-100-disk-0", "base-100-disk-0",
	// "vm-100-cloudinit".
	blockImage = regexp.MustCompile(`^(vm|base)-(\d+)-\S+$`)
	// diskNumber finds the disk number of a guest's image name, both
	// "vm-" and "base-" counting, as get_next_vm_diskname does.
	diskNumber = regexp.MustCompile(`(?:^|/)(?:vm|base)-(\d+)-disk-(\d+)(?:\.[a-z0-9]+)?$`)
	// fileContentDir maps a file storage's content subdirectory to its type.
	fileContentDir = map[string]string{
		"iso": "iso", "vztmpl": "vztmpl", "import": "import", "backup": "backup", "snippets": "snippets",
	}
)

// parseVolume is parse_volume_id plus the storage plugin's parse_volname.
// pve-storage src/PVE/Storage.pm parse_volume_id and storage_config;
// src/PVE/Storage/Plugin.pm, LVMPlugin.pm, LvmThinPlugin.pm parse_volname.
func parseVolume(cl *Cluster, volid string) (*Storage, volInfo, error) {
	storeID, volname, ok := strings.Cut(volid, ":")
	if !ok || storeID == "" || volname == "" {
		return nil, volInfo{}, errorf("unable to parse volume ID '%s'", volid)
	}
	st := cl.Storage(storeID)
	if st == nil {
		return nil, volInfo{}, errorf("storage '%s' does not exist", storeID)
	}
	if st.fileStorage() {
		if m := fileLinkedImage.FindStringSubmatch(volname); m != nil {
			owner, _ := strconv.Atoi(m[4])
			return st, volInfo{vtype: "images", owner: owner, base: m[1] + "/" + m[2], format: m[6]}, nil
		}
		if m := fileImage.FindStringSubmatch(volname); m != nil {
			owner, _ := strconv.Atoi(m[1])
			return st, volInfo{vtype: "images", owner: owner, isBase: m[3] != "", format: m[4]}, nil
		}
		dir, rest, _ := strings.Cut(volname, "/")
		if vtype, known := fileContentDir[dir]; known && rest != "" && !strings.Contains(rest, "/") {
			info := volInfo{vtype: vtype, format: fileFormat(vtype, rest)}
			if vtype == "backup" {
				info.owner = backupOwner(rest)
			}
			return st, info, nil
		}
		return nil, volInfo{}, errorf("unable to parse directory volume name '%s'", volname)
	}
	if m := blockImage.FindStringSubmatch(volname); m != nil {
		owner, _ := strconv.Atoi(m[2])
		return st, volInfo{vtype: "images", owner: owner, isBase: m[1] == "base", format: "raw"}, nil
	}
	return nil, volInfo{}, errorf("unable to parse lvm volume name '%s'", volname)
}

// fileFormat is the format pve-storage reads from a file name's extension.
func fileFormat(vtype, name string) string {
	switch vtype {
	case "iso":
		return "iso"
	case "vztmpl":
		return "tzst"
	}
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[i+1:]
	}
	return "raw"
}

// nextDiskName is get_next_vm_diskname: the lowest disk number the guest
// does not use on this storage instance, "vm-" and "base-" images alike.
// pve-storage src/PVE/Storage/Plugin.pm get_next_vm_diskname
func nextDiskName(cl *Cluster, st *Storage, node string, vmid int, format string) string {
	used := map[int]bool{}
	for _, v := range cl.VolumesOn(st.ID, node) {
		_, volname, _ := strings.Cut(v.VolID, ":")
		if m := diskNumber.FindStringSubmatch(volname); m != nil && m[1] == itoa(vmid) {
			n, _ := strconv.Atoi(m[2])
			used[n] = true
		}
	}
	n := 0
	for used[n] {
		n++
	}
	name := fmt.Sprintf("vm-%d-disk-%d", vmid, n)
	if st.fileStorage() {
		name += "." + format
	}
	return name
}

// allocation is one vdisk_alloc request.
type allocation struct {
	storage string
	node    string
	vmid    int
	format  string // "" for the storage's default
	name    string // "" for the next free vm-VMID-disk-N
	size    int64  // bytes
	base    string // volid a linked clone is backed by
	// content is how the storage lists the volume: "images" for a VM's
	// disks (the default), "rootdir" for a container's volumes.
	content string
}

// allocVolume is vdisk_alloc: it checks the storage is usable on the node,
// names the image, refuses an existing name with the plugin's text, checks
// the space and stores the new volume.
// pve-storage src/PVE/Storage.pm vdisk_alloc and the plugins' alloc_image.
func (s *Sim) allocVolume(cl *Cluster, a allocation) (*Volume, error) {
	st, err := usableStorage(cl, a.storage, a.node)
	if err != nil {
		return nil, err
	}
	def, valid := st.formats()
	format := a.format
	if format == "" {
		format = def
	}
	if !valid[format] {
		return nil, errorf("unsupported format '%s'", format) // pve-storage src/PVE/Storage/LvmThinPlugin.pm alloc_image (die "unsupported format")
	}
	name := a.name
	if name == "" {
		name = nextDiskName(cl, st, a.node, a.vmid, format)
	}
	volname := name
	if st.fileStorage() {
		volname = fmt.Sprintf("%d/%s", a.vmid, name)
		if a.base != "" {
			// A linked clone on a file storage names its base image.
			_, baseName, _ := strings.Cut(a.base, ":")
			volname = baseName + "/" + volname
		}
	}
	volid := st.ID + ":" + volname
	if cl.Volume(a.node, volid) != nil {
		return nil, volumeExistsError(st, a.vmid, name)
	}
	size := a.size
	if st.Type == "lvm" || st.Type == "lvmthin" {
		size = (size + lvmExtent - 1) / lvmExtent * lvmExtent
	}
	if free := st.Capacity - cl.used(st, a.node); size > free && a.base == "" && !st.overcommits() {
		// inferred: the refusal and its text are the simulator's; PVE's
		// come from zfs create or lvcreate on a real node.
		return nil, errorf("storage '%s' has not enough free space on node '%s' (requested %d bytes, free %d bytes)",
			st.ID, a.node, size, free)
	}
	v := &Volume{
		VolID: volid, Storage: st.ID, Node: a.node, Content: valueOr(a.content, "images"), Format: format,
		Size: size, Owner: a.vmid, CTime: s.now().Unix(), Base: a.base,
	}
	if err := cl.AddVolume(v); err != nil {
		return nil, err
	}
	return v, nil
}

// volumeExistsError is the plugin's refusal to allocate a name that is
// taken (W21, W27).
// pve-storage src/PVE/Storage/Plugin.pm alloc_image ("disk image ... already
// exists") and LVMPlugin.pm/LvmThinPlugin.pm alloc_image (run_command errmsg
// "lvcreate '$vg/$name' error", then lvm2's own message as captured on a PVE
// 9.2 node).
func volumeExistsError(st *Storage, vmid int, name string) error {
	if st.fileStorage() {
		return errorf("disk image '%s/%s' already exists", st.imagesPath(vmid), name)
	}
	vg := st.Config["vgname"]
	return errorf("lvcreate '%s/%s' error:   Logical Volume \"%s\" already exists in volume group \"%s\"", vg, name, name, vg)
}

// volumeSize is volume_size_info: the size of an existing volume.
// qemu-server src/PVE/API2/Qemu.pm create_disks (volume_size_info of an existing
// volume: "volume $volid does not exist").
func volumeSize(cl *Cluster, node, volid string) (int64, error) {
	v := cl.Volume(node, volid)
	if v == nil {
		return 0, errorf("volume %s does not exist", volid)
	}
	return v.Size, nil
}

// freeVolume is vdisk_free. A base image still backing a linked clone is
// refused, as pve-storage refuses it.
// pve-storage src/PVE/Storage.pm vdisk_free (a missing file or LV fails in the
// plugin: src/PVE/Storage/Plugin.pm path checks).
func freeVolume(cl *Cluster, node, volid string) error {
	v := cl.Volume(node, volid)
	if v == nil {
		return errorf("volume '%s' does not exist", volid)
	}
	if clone := linkedCloneOf(cl, v); clone != "" {
		_, volname, _ := strings.Cut(volid, ":")
		return errorf("base volume '%s' is still in use by linked clones", volname)
	}
	cl.RemoveVolume(node, volid)
	return nil
}

// linkedCloneOf names a volume backed by base, or "".
func linkedCloneOf(cl *Cluster, base *Volume) string {
	for _, v := range cl.volumes {
		if v.Base == base.VolID && v.Node == base.Node {
			return v.VolID
		}
	}
	return ""
}

// createBase is vdisk_create_base: the image is renamed from "vm-" to
// "base-" and becomes read-only template data. It returns the new volid.
// pve-storage src/PVE/Storage.pm vdisk_create_base and the plugins' create_base.
func createBase(cl *Cluster, node, volid string) (string, error) {
	v := cl.Volume(node, volid)
	if v == nil {
		return "", errorf("volume '%s' does not exist", volid)
	}
	st := cl.Storage(v.Storage)
	_, volname, _ := strings.Cut(volid, ":")
	dir, name := "", volname
	if i := strings.LastIndexByte(volname, '/'); i >= 0 {
		dir, name = volname[:i+1], volname[i+1:]
	}
	if strings.HasPrefix(name, "base-") {
		return volid, nil
	}
	if !strings.HasPrefix(name, "vm-") {
		return "", errorf("unable to create base volume - found wrong name '%s'", name) // not simulated: every image the simulator makes is named vm- or base-
	}
	newVolid := st.ID + ":" + dir + "base-" + strings.TrimPrefix(name, "vm-")
	if cl.Volume(node, newVolid) != nil {
		return "", errorf("volume '%s' already exists", newVolid) // pve-storage src/PVE/Storage/Plugin.pm create_base ("file ... already exists")
	}
	cl.RemoveVolume(node, volid)
	moved := *v
	moved.VolID = newVolid
	if err := cl.AddVolume(&moved); err != nil {
		return "", err
	}
	return newVolid, nil
}

// ownedVolumes lists the images and container volumes a vmid owns on the
// storages usable on node, sorted by volid: vdisk_list with a vmid filter.
// pve-storage src/PVE/Storage.pm vdisk_list
func ownedVolumes(cl *Cluster, node string, vmid int) []*Volume {
	var out []*Volume
	for _, st := range cl.Storages {
		if st.Disabled || !st.availableOn(node) {
			continue
		}
		for _, v := range cl.VolumesOn(st.ID, node) {
			if v.Owner == vmid && (v.Content == "images" || v.Content == "rootdir") {
				out = append(out, v)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].VolID < out[j].VolID })
	return out
}

// DiskSize is the size of the disk the volume holds: its virtual size
// for an image whose header says so, else its file size.
func (v *Volume) DiskSize() int64 {
	if v.VirtualSize > 0 {
		return v.VirtualSize
	}
	return v.Size
}

// imageVirtualSize reads the virtual size from an image's header, as
// qemu-img info reports it: a qcow2 header holds it big-endian at byte 24
// (QEMU docs/interop/qcow2.txt, "size"); a sparse VMDK's holds the
// capacity in 512-byte sectors, little-endian at byte 12 (VMware Virtual
// Disk Format 1.1, SparseExtentHeader "capacity"). 0 when head is no such
// header (a qcow2 header is version 2 or 3, a VMDK one version 1 to 3),
// and the file size stands for the disk's: qemu-img would refuse such a
// file, which the simulator, holding only the file's first bytes, does not
// try to mirror.
func imageVirtualSize(head []byte, format string) int64 {
	switch {
	case format == "qcow2" && len(head) >= 32 && string(head[:4]) == "QFI\xfb":
		if v := binary.BigEndian.Uint32(head[4:8]); v == 2 || v == 3 {
			return int64(binary.BigEndian.Uint64(head[24:32]))
		}
	case format == "vmdk" && len(head) >= 20 && string(head[:4]) == "KDMV":
		if v := binary.LittleEndian.Uint32(head[4:8]); v >= 1 && v <= 3 {
			return int64(binary.LittleEndian.Uint64(head[12:20])) * 512
		}
	}
	return 0
}
