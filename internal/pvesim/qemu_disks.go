package pvesim

import (
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
)

// Drive values in requests: the checks PVE runs before it forks
// (check_drive_param, check_storage_access) and the allocation it runs
// under the config lock (create_disks).

// newDiskPattern is NEW_DISK_RE: "[STORAGE:]SIZE_GiB".
var newDiskPattern = regexp.MustCompile(`^(([^/:\s]+):)?(\d+(\.\d+)?)$`)

// checkDriveParams is check_drive_param: the import-from syntax (W25) and
// media=cdrom for ISO images; it normalises the values in place. Its
// errors are synchronous.
// qemu-server src/PVE/API2/Qemu.pm $check_drive_param
func checkDriveParams(c *call, params map[string]string) error {
	for _, key := range sortedKeys(params) {
		if !isDriveKey(key) {
			continue
		}
		d, ok := c.cluster.conf.parseDrive(key, params[key])
		if !ok {
			return paramError(map[string]string{key: "unable to parse drive options"})
		}
		file := d.file()
		if _, ok := d["import-from"]; ok {
			m := newDiskPattern.FindStringSubmatch(file)
			if m == nil || !zeroSize(m[3]) {
				return paramError(map[string]string{key: "'import-from' requires special syntax - use <storage ID>:0,import-from=<source>"})
			}
			switch key {
			case "efidisk0":
				for _, req := range []string{"efitype", "pre-enrolled-keys"} {
					if _, ok := d[req]; !ok {
						return paramError(map[string]string{key: "need to specify '" + req + "' when using 'import-from'"})
					}
				}
			case "tpmstate0":
				if _, ok := d["version"]; !ok {
					return paramError(map[string]string{key: "need to specify 'version' when using 'import-from'"})
				}
			}
		}
		if _, volname, found := strings.Cut(file, ":"); found && volname != "cloudinit" && !newDiskPattern.MatchString(file) {
			if _, info, err := parseVolume(c.cluster, file); err == nil && info.vtype == "iso" && !d.isCDROM() {
				return paramError(map[string]string{key: "explicit 'media=cdrom' is required for iso images"})
			}
		}
		if err := checkReplicatedDrive(c, d); err != nil {
			return err
		}
		params[key] = d.print()
	}
	return nil
}

// checkStorageAccess is check_storage_access for every drive of a request.
func checkStorageAccess(c *call, params map[string]string, defaultStorage string) error {
	for _, key := range sortedKeys(params) {
		if !isDriveKey(key) {
			continue
		}
		d, ok := c.cluster.conf.parseDrive(key, params[key])
		if !ok {
			continue
		}
		if err := checkDriveStorage(c, key, d, defaultStorage); err != nil {
			return err
		}
	}
	return nil
}

func zeroSize(s string) bool {
	f, err := strconv.ParseFloat(s, 64)
	return err == nil && f == 0
}

// checkDriveStorage is check_storage_access for one drive.
// qemu-server src/PVE/API2/Qemu.pm $check_storage_access; a storage
// id that is not configured dies in pve-storage src/PVE/Storage.pm
// storage_config; a path is pve-storage src/PVE/Storage.pm
// check_volume_access.
func checkDriveStorage(c *call, key string, d drive, defaultStorage string) error {
	file := d.file()
	storeID, volname, hasStore := strings.Cut(file, ":")
	switch {
	case file == "" || file == "none" || volname == "cloudinit":
		// nothing to check
	case file == "cdrom" && d.isCDROM():
		if err := c.check("/", false, "Sys.Console"); err != nil {
			return err
		}
	case !d.isCDROM() && newDiskPattern.MatchString(file):
		if !hasStore {
			storeID = defaultStorage
		}
		if storeID == "" {
			return errorf("no storage ID specified (and no default storage)")
		}
		if err := c.check("/storage/"+storeID, false, "Datastore.AllocateSpace"); err != nil {
			return err
		}
		st := c.cluster.Storage(storeID)
		if st == nil {
			return errorf("storage '%s' does not exist", storeID)
		}
		if !st.hasContent("images") {
			return paramError(map[string]string{"storage": "storage '" + storeID + "' does not support vm images"})
		}
	case strings.HasPrefix(file, "/"):
		if err := checkPathAccess(c); err != nil {
			return err
		}
	default:
		_, info, err := parseVolume(c.cluster, file)
		if err != nil {
			return err
		}
		if info.vtype != "images" && info.vtype != "iso" {
			return paramError(map[string]string{key: "content type needs to be 'images' or 'iso'"})
		}
	}
	if src, ok := d["import-from"]; ok {
		if strings.Contains(src, ":") {
			_, info, err := parseVolume(c.cluster, src)
			if err != nil {
				return err
			}
			if info.vtype != "images" && info.vtype != "import" {
				return paramError(map[string]string{key: src + " has wrong type '" + info.vtype + "' - needs to be 'images' or 'import'"})
			}
		} else if err := checkPathAccess(c); err != nil {
			return err
		}
	}
	return nil
}

// checkPathAccess is check_volume_access for a volume that is a plain
// file system path: root@pam's alone (pve-storage src/PVE/Storage.pm
// check_volume_access). PVE dies there without a final newline, so a
// real node's message also carries Perl's " at .../PVE/Storage.pm line
// N." suffix, which differs between versions and is not reproduced.
func checkPathAccess(c *call) error {
	if isRootPam(c) {
		return nil
	}
	return errorf("Only root can pass arbitrary filesystem paths.")
}

// diskJob is one create_disks run for a guest.
type diskJob struct {
	s        *Sim
	cl       *Cluster
	g        *Guest
	node     string
	defStore string
	log      func(format string, args ...any)
	made     []*Volume
}

// hasCloudInit is has_cloudinit: the slot, other than skip, that holds a
// cloud-init drive.
func (cs *guestSchema) hasCloudInit(cfg map[string]string, skip string) string {
	for _, k := range sortedKeys(cfg) {
		if k == skip || !isDriveKey(k) {
			continue
		}
		if d, ok := cs.parseDrive(k, cfg[k]); ok && d.isCloudInit() {
			return k
		}
	}
	return ""
}

// createDisks is create_disks: it allocates the volumes the settings ask
// for and returns the values to store. On failure every volume it made is
// freed again.
// qemu-server src/PVE/API2/Qemu.pm create_disks
func (j *diskJob) createDisks(settings map[string]string) (map[string]string, error) {
	res := map[string]string{}
	for _, key := range sortedKeys(settings) {
		if !isDriveKey(key) {
			continue
		}
		d, ok := j.cl.conf.parseDrive(key, settings[key])
		if !ok {
			j.freeMade()
			return nil, errorf("unable to parse drive options for '%s'", key)
		}
		value, err := j.createDisk(key, d, res)
		if err != nil {
			j.freeMade()
			return nil, err
		}
		res[key] = value
	}
	return res, nil
}

func (j *diskJob) freeMade() {
	for _, v := range j.made {
		j.cl.RemoveVolume(v.Node, v.VolID)
	}
	j.made = nil
}

// qemu-server src/PVE/API2/Qemu.pm create_disks ($code for one drive)
func (j *diskJob) createDisk(key string, d drive, res map[string]string) (string, error) {
	file := d.file()
	storeID, volname, hasStore := strings.Cut(file, ":")
	switch {
	case file == "" || file == "none" || file == "cdrom":
		delete(d, "size")
		return d.print(), nil
	case volname == "cloudinit":
		return j.createCloudInit(key, d, storeID, res)
	case newDiskPattern.MatchString(file):
		if !hasStore {
			storeID = j.defStore
		}
		if storeID == "" {
			return "", errorf("no storage ID specified (and no default storage)")
		}
		m := newDiskPattern.FindStringSubmatch(file)
		gib, _ := strconv.ParseFloat(m[3], 64)
		size := int64(math.Ceil(gib*float64(gib2kib))) * kib
		return j.allocDisk(key, d, storeID, size)
	case strings.HasPrefix(file, "/"):
		return "", errorf("volume %s does not exist", file)
	}
	_, info, err := parseVolume(j.cl, file)
	if err != nil {
		return "", err
	}
	if info.vtype != "images" && info.vtype != "iso" {
		return "", errorf("cannot use volume %s - content type needs to be 'images' or 'iso'", file)
	}
	if f := d["format"]; f != "" && info.vtype == "images" && f != info.format {
		return "", errorf("drive '%s' - volume '%s' - 'format=%s' option different from storage format '%s'", key, file, f, info.format)
	}
	if d.isCloudInit() {
		if other := j.cloudInitSlot(key, res); other != "" {
			return "", errorf("%s - cloud-init drive is already attached at '%s'", key, other)
		}
	}
	size, err := volumeSize(j.cl, j.node, file)
	if err != nil {
		return "", err
	}
	d["size"] = strconv.FormatInt(size, 10)
	return d.print(), nil
}

// gib2kib converts create-form GiB to the KiB vdisk_alloc takes.
const gib2kib = gib / kib

func (j *diskJob) cloudInitSlot(key string, res map[string]string) string {
	for _, cfg := range []map[string]string{j.g.Config, j.g.Pending, res} {
		if other := j.cl.conf.hasCloudInit(cfg, key); other != "" {
			return other
		}
	}
	return ""
}

// qemu-server src/PVE/API2/Qemu.pm create_disks, the cloudinit branch;
// the size is qemu-server src/PVE/QemuServer/Cloudinit.pm CLOUDINIT_DISK_SIZE.
func (j *diskJob) createCloudInit(key string, d drive, storeID string, res map[string]string) (string, error) {
	if storeID == "" {
		storeID = j.defStore
	}
	if storeID == "" {
		return "", errorf("no storage ID specified (and no default storage)")
	}
	if other := j.cloudInitSlot(key, res); other != "" {
		return "", errorf("%s - cloud-init drive is already attached at '%s'", key, other)
	}
	st := j.cl.Storage(storeID)
	if st == nil {
		// pve-storage src/PVE/Storage.pm storage_config
		return "", errorf("storage '%s' does not exist", storeID)
	}
	name := "vm-" + itoa(j.g.VMID) + "-cloudinit"
	format := d["format"]
	if st.fileStorage() {
		if format == "" {
			format = "qcow2"
		}
		name += "." + format
	} else if format == "" {
		format = "raw"
	}
	v, err := j.s.allocVolume(j.cl, allocation{storage: storeID, node: j.node, vmid: j.g.VMID, format: format, name: name, size: cloudInitSize})
	if err != nil {
		return "", err
	}
	j.made = append(j.made, v)
	d["file"] = v.VolID
	d["media"] = "cdrom"
	delete(d, "format")
	value := d.print()
	j.log("%s: successfully created disk '%s'", key, value)
	return value, nil
}

// allocDisk is create_disks' NEW_DISK_RE branch: import, EFI vars, TPM
// state or an empty image.
// qemu-server src/PVE/API2/Qemu.pm create_disks; the EFI vars volume is
// qemu-server src/PVE/QemuServer/OVMF.pm create_efidisk (ms-cert marker),
// the TPM state size the fixed one of create_disks' tpmstate0 branch.
func (j *diskJob) allocDisk(key string, d drive, storeID string, size int64) (string, error) {
	st := j.cl.Storage(storeID)
	if st == nil {
		// pve-storage src/PVE/Storage.pm storage_config
		return "", errorf("storage '%s' does not exist", storeID)
	}
	format := d["format"]
	reported := size
	if src, ok := d["import-from"]; ok {
		delete(d, "import-from")
		v, err := j.importVolume(st, src, format)
		if err != nil {
			return "", errorf("cannot import from '%s' - %s", src, strings.TrimSuffix(asAPIError(err).message, "\n"))
		}
		reported = v.Size
		return j.finishDisk(key, d, v, reported)
	}
	switch key {
	case "efidisk0":
		size = efiVars2M
		if d["efitype"] == "4m" {
			size = efiVars4M
			if d["pre-enrolled-keys"] == "1" {
				d["ms-cert"] = j.s.pve.efiMSCert
			}
		}
	case "tpmstate0":
		size = tpmStateSize
	}
	if format == "" {
		format, _ = st.formats()
	}
	v, err := j.s.allocVolume(j.cl, allocation{storage: storeID, node: j.node, vmid: j.g.VMID, format: format, size: size})
	if err != nil {
		return "", err
	}
	j.made = append(j.made, v)
	switch key {
	case "efidisk0":
		reported = v.Size
	case "tpmstate0":
		reported = tpmStateSize
	}
	return j.finishDisk(key, d, v, reported)
}

// qemu-server src/PVE/API2/Qemu.pm create_disks (a template's new disk becomes a
// base volume: template_create).
func (j *diskJob) finishDisk(key string, d drive, v *Volume, size int64) (string, error) {
	if j.g.IsTemplate() {
		base, err := createBase(j.cl, j.node, v.VolID)
		if err != nil {
			return "", err
		}
		j.made[len(j.made)-1] = j.cl.Volume(j.node, base)
		v = j.made[len(j.made)-1]
	}
	d["file"] = v.VolID
	d["size"] = strconv.FormatInt(size, 10)
	delete(d, "format")
	value := d.print()
	j.log("%s: successfully created disk '%s'", key, value)
	return value, nil
}

// importVolume is import_from_volid: a full copy of an existing image or
// import file into a new volume of the guest.
// qemu-server src/PVE/API2/Qemu.pm $import_from_volid; a source that is
// not a volume id fails in create_disks ("could not get file size").
func (j *diskJob) importVolume(st *Storage, src, format string) (*Volume, error) {
	if !strings.Contains(src, ":") {
		return nil, errorf("could not get file size of %s", src)
	}
	_, info, err := parseVolume(j.cl, src)
	if err != nil {
		return nil, err
	}
	source := j.cl.Volume(j.node, src)
	if source == nil {
		return nil, errorf("could not get size of %s", src)
	}
	if cloudInitFile.MatchString(src) {
		return nil, errorf("cannot import from cloudinit disk")
	}
	if format == "" {
		format = info.format
	}
	// The new volume has the image's virtual size, which
	// volume_size_info reads through qemu-img, not its file size
	// (qemu-server src/PVE/API2/Qemu.pm $import_from_volid, pve-storage
	// src/PVE/Storage/Plugin.pm file_size_info).
	size := source.DiskSize()
	v, err := j.s.allocVolume(j.cl, allocation{
		storage: st.ID, node: j.node, vmid: j.g.VMID, format: st.resolveFormat(format), size: size,
	})
	if err != nil {
		return nil, err
	}
	j.made = append(j.made, v)
	j.log("transferred %d of %d bytes (100.00%%)", size, size)
	return v, nil
}

// registerUnused is vmconfig_register_unused_drive: a replaced or removed
// drive's volume becomes unusedN if the guest owns it; a cloud-init volume
// is freed instead.
// qemu-server src/PVE/QemuServer.pm vmconfig_register_unused_drive
func registerUnused(cl *Cluster, g *Guest, d drive) {
	switch {
	case d.isCloudInit():
		_ = freeVolume(cl, g.Node, d.file())
	case d.isCDROM():
	default:
		if ownsVolume(cl, g, d.file()) {
			if _, err := addUnused(g.Config, d.file()); err != nil {
				return
			}
		}
	}
}

// ownsVolume is vm_is_volid_owner.
// qemu-server src/PVE/QemuServer.pm vm_is_volid_owner
func ownsVolume(cl *Cluster, g *Guest, volid string) bool {
	if strings.HasPrefix(volid, "/") {
		return false
	}
	_, info, err := parseVolume(cl, volid)
	return err == nil && info.owner == g.VMID
}

// deallocate is try_deallocate_drive: an owned volume no other drive uses
// is freed; a volume of another guest is only dropped from the config.
// qemu-server src/PVE/QemuServer.pm try_deallocate_drive
func deallocate(cl *Cluster, g *Guest, key string, d drive, force bool) error {
	if !force && !strings.HasPrefix(key, "unused") || d.isCDROMNotCloudInit() {
		return nil
	}
	if !ownsVolume(cl, g, d.file()) {
		return nil
	}
	for k, v := range g.Config {
		if k == key || !isDriveKey(k) {
			continue
		}
		if other, ok := cl.conf.parseDrive(k, v); ok && other.file() == d.file() && !other.isCDROM() {
			return errorf("unable to delete '%s' - volume is still in use (snapshot?)", d.file())
		}
	}
	// is_volume_in_use (qemu-server src/PVE/QemuServer/Drive.pm) looks at
	// the snapshots too.
	if cl.conf.volumeInSnapshot(g, d.file()) {
		return errorf("unable to delete '%s' - volume is still in use (snapshot?)", d.file())
	}
	if cl.Volume(g.Node, d.file()) == nil {
		return nil
	}
	return freeVolume(cl, g.Node, d.file())
}

// guestDrives lists the guest's drive slots in PVE's order.
func guestDrives(cfg map[string]string) []string {
	var out []string
	for _, k := range sortedKeys(cfg) {
		if isDriveKey(k) {
			out = append(out, k)
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return slotOrder(out[a]) < slotOrder(out[b]) })
	return out
}

var slotRank = func() map[string]int {
	m := map[string]int{}
	for i, k := range pvegrammar.QemuDriveKeys() {
		m[k] = i
	}
	return m
}()

func slotOrder(key string) int { return slotRank[key] }
