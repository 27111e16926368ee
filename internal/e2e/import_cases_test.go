package e2e_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/url"
	"strings"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// The objects below are made the way an operator makes them in the web UI
// or with pvesh: every value is PVE's own spelling, some settings have no
// attribute in the provider, and PVE adds its bookkeeping keys (meta,
// vmgenid, smbios1, digest) by itself.

const (
	adoptPool   = "adopt"
	operatorKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8g operator@example.org"
)

func (o *outside) createPool(id, comment string) {
	o.t.Helper()
	o.must(o.client.CreatePool(context.Background(), id, comment))
}

func (o *outside) createVM(node string, vmid int, form url.Values) {
	o.t.Helper()
	o.settle(o.client.CreateGuest(context.Background(), node, pveapi.GuestTypeQemu, vmid, form))
}

func (o *outside) createContainer(node string, vmid int, form url.Values) {
	o.t.Helper()
	o.settle(o.client.CreateGuest(context.Background(), node, pveapi.GuestTypeLXC, vmid, form))
}

// adoptedVMForm is a VM with disks on two buses, an EFI store, two NICs,
// PVE's cloud-init drive with user, password, keys and addresses, mixed
// case tags, a pool, and settings the provider has no attribute for
// (serial0, vga, startup).
func adoptedVMForm() url.Values {
	return url.Values{
		"name":         {"adopted-web"},
		"description":  {"Web server, set up by hand\nowner: ops"},
		"tags":         {"Web;Prod-EU"},
		"pool":         {adoptPool},
		"onboot":       {"1"},
		"bios":         {"ovmf"},
		"machine":      {"q35"},
		"ostype":       {"l26"},
		"scsihw":       {"virtio-scsi-single"},
		"cores":        {"2"},
		"sockets":      {"1"},
		"cpu":          {"x86-64-v2-AES"},
		"memory":       {"2048"},
		"balloon":      {"1024"},
		"agent":        {"enabled=1,fstrim_cloned_disks=1"},
		"efidisk0":     {"local-lvm:1,efitype=4m,pre-enrolled-keys=1"},
		"scsi0":        {"local-lvm:8,discard=on,iothread=1,ssd=1"},
		"scsi1":        {"local-lvm:4,backup=0,serial=DATA1"},
		"virtio0":      {"local-lvm:2,cache=writeback"},
		"sata0":        {"local-lvm:1"},
		"ide0":         {"local:iso/debian-13-netinst.iso,media=cdrom"},
		"ide2":         {"local-lvm:cloudinit"},
		"net0":         {"virtio,bridge=vmbr0,firewall=1"},
		"net1":         {"e1000,bridge=vmbr0,tag=20"},
		"ciuser":       {"debian"},
		"cipassword":   {"hunter2-by-hand"},
		"sshkeys":      {wire.EncodeSSHKeys([]string{operatorKey})},
		"ipconfig0":    {"ip=10.0.0.5/24,gw=10.0.0.1"},
		"ipconfig1":    {"ip=dhcp"},
		"nameserver":   {"10.0.0.1"},
		"searchdomain": {"example.org"},
		"boot":         {"order=scsi0;net0"},
		"serial0":      {"socket"},
		"vga":          {"serial0"},
		"startup":      {"order=2"},
	}
}

func vmImportCase() importCase {
	return importCase{
		resourceType: "pve_vm",
		create: func(pve *outside) string {
			pve.createVM("pve2", 4100, adoptedVMForm())
			// A TPM added later, as the web UI does it.
			pve.settle(pve.client.UpdateQemuConfigAsync(context.Background(), "pve2", 4100, url.Values{"tpmstate0": {"local-lvm:1,version=v2.0"}}))
			// A disk detached by hand stays as unused0 (W24).
			pve.must(pve.client.UpdateGuestConfig(context.Background(), "pve2", pveapi.GuestTypeQemu, 4100, url.Values{"delete": {"sata0"}}))
			pve.settle(pve.client.GuestStatusAction(context.Background(), "pve2", pveapi.GuestTypeQemu, 4100, pveapi.QemuStart, nil))
			return "4100"
		},
		handWritten: `
  node        = "pve2"
  vmid        = 4100
  name        = "adopted-web"
  description = "Web server, set up by hand\nowner: ops"
  tags        = ["Web", "prod-eu"]
  pool        = "adopt"
  on_boot     = true
  bios        = "ovmf"
  machine     = "q35"
  os_type     = "l26"
  scsi_hardware = "virtio-scsi-single"
  boot_order  = ["scsi0", "net0"]
  cpu    = { cores = 2, sockets = 1, type = "x86-64-v2-AES" }
  memory = { size = 2048, balloon = 1024 }
  agent  = { enabled = true, trim = true }
  efi_disk = { storage = "local-lvm", type = "4m", pre_enrolled_keys = true }
  tpm_state = { storage = "local-lvm" }
  disks = {
    scsi0   = { storage = "local-lvm", size = 8, discard = true, iothread = true, ssd = true }
    scsi1   = { storage = "local-lvm", size = 4, backup = false }
    virtio0 = { storage = "local-lvm", size = 2, cache = "writeback" }
  }
  cdroms = {
    ide0 = { file = "local:iso/debian-13-netinst.iso" }
  }
  network = {
    net0 = { bridge = "vmbr0", firewall = true }
    net1 = { model = "e1000", bridge = "vmbr0", vlan_tag = 20 }
  }
  cloud_init = {
    storage  = "local-lvm"
    user     = "debian"
    ssh_keys = ["` + operatorKey + `"]
    dns      = { domain = "example.org", servers = ["10.0.0.1"] }
    ip_config = {
      ipconfig0 = { ipv4 = { address = "10.0.0.5/24", gateway = "10.0.0.1" } }
      ipconfig1 = { ipv4 = { address = "dhcp" } }
    }
  }
`,
		unrepresented: []string{"serial0", "vga", "startup", "unused0", "scsi1.serial"},
		// W31: a password set after the import is written (its version is
		// new); the clone source is recorded.
		record: func(body string) string {
			return replaceOnce(body, `    user     = "debian"`, `    user     = "debian"
    password_wo         = "rotated-by-terraform"
    password_wo_version = 1`) + "  clone = { source_vmid = 4101 }\n"
		},
	}
}

func vmTemplateImportCase() importCase {
	return importCase{
		resourceType: "pve_vm_template",
		create: func(pve *outside) string {
			pve.createVM("pve1", 4101, url.Values{
				"name":       {"golden-debian"},
				"tags":       {"Golden"},
				"scsihw":     {"virtio-scsi-single"},
				"memory":     {"1024"},
				"scsi0":      {"local-lvm:0,import-from=local:import/debian-13-genericcloud-amd64.qcow2"},
				"scsi1":      {"local-lvm:cloudinit"}, // W27: on another bus
				"net0":       {"virtio,bridge=vmbr0"},
				"ciuser":     {"debian"},
				"cipassword": {"template-secret"},
				"ipconfig0":  {"ip=dhcp"},
				"serial0":    {"socket"},
			})
			pve.settle(pve.client.TemplateQemu(context.Background(), "pve1", 4101, ""))
			return "pve1/4101"
		},
		handWritten: `
  node          = "pve1"
  vmid          = 4101
  name          = "golden-debian"
  tags          = ["golden"]
  scsi_hardware = "virtio-scsi-single"
  memory        = { size = 1024 }
  disks = {
    scsi0 = { storage = "local-lvm", size = "3G" }
  }
  network = {
    net0 = { bridge = "vmbr0" }
  }
  cloud_init = {
    storage   = "local-lvm"
    slot      = "scsi1"
    user      = "debian"
    ip_config = { ipconfig0 = { ipv4 = { address = "dhcp" } } }
  }
`,
		unrepresented: []string{"serial0"},
		// W25: the image the disk came from is recorded.
		record: func(body string) string {
			return replaceOnce(body, `size = "3G" }`, `size = "3G", import_from = "local:import/debian-13-genericcloud-amd64.qcow2" }`)
		},
	}
}

// adoptedContainerForm is a container with a root disk and a mount point,
// two NICs with addresses, features, DNS, mixed case tags, a pool, and a
// setting the provider has no attribute for (startup).
func adoptedContainerForm() url.Values {
	return url.Values{
		"ostemplate":      {"local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst"},
		"hostname":        {"adopted-db"},
		"description":     {"Database, set up by hand"},
		"tags":            {"DB;Prod-EU"},
		"pool":            {adoptPool},
		"onboot":          {"1"},
		"unprivileged":    {"1"},
		"cores":           {"2"},
		"memory":          {"1024"},
		"swap":            {"256"},
		"rootfs":          {"local-lvm:8,mountoptions=noatime"},
		"mp0":             {"local-lvm:4,mp=/var/lib/db,backup=1"},
		"mp1":             {"local-lvm:1,mp=/scratch"},
		"net0":            {"name=eth0,bridge=vmbr0,ip=dhcp,firewall=1"},
		"net1":            {"name=eth1,bridge=vmbr0,ip=10.0.1.6/24,gw=10.0.1.1,tag=30"},
		"features":        {"nesting=1"},
		"nameserver":      {"10.0.0.1"},
		"searchdomain":    {"example.org"},
		"password":        {"root-by-hand"},
		"ssh-public-keys": {operatorKey},
		"startup":         {"order=3"},
	}
}

func containerImportCase() importCase {
	return importCase{
		resourceType: "pve_container",
		create: func(pve *outside) string {
			pve.createContainer("pve3", 4200, adoptedContainerForm())
			pve.must(pve.client.UpdateGuestConfig(context.Background(), "pve3", pveapi.GuestTypeLXC, 4200, url.Values{"delete": {"mp1"}}))
			pve.settle(pve.client.GuestStatusAction(context.Background(), "pve3", pveapi.GuestTypeLXC, 4200, pveapi.LXCStart, nil))
			return "4200"
		},
		handWritten: `
  node         = "pve3"
  vmid         = 4200
  hostname     = "adopted-db"
  description  = "Database, set up by hand"
  tags         = ["db", "Prod-EU"]
  pool         = "adopt"
  on_boot      = true
  unprivileged = true
  cpu          = { cores = 2 }
  memory       = { size = 1024, swap = 256 }
  root_disk    = { storage = "local-lvm", size = 8 }
  mount_points = {
    mp0 = { storage = "local-lvm", size = 4, path = "/var/lib/db", backup = true }
  }
  network = {
    net0 = { name = "eth0", bridge = "vmbr0", firewall = true, ipv4 = { address = "dhcp" } }
    net1 = { name = "eth1", bridge = "vmbr0", vlan_tag = 30, ipv4 = { address = "10.0.1.6/24", gateway = "10.0.1.1" } }
  }
  features = { nesting = true }
  dns      = { domain = "example.org", servers = ["10.0.0.1"] }
`,
		unrepresented: []string{"startup", "unused0", "rootfs.mountoptions"},
		// W35: the template is recorded; root's keys and password, which PVE
		// applies only at create and never reports, are recorded too.
		record: withLines(
			`  os_template = "local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst"`,
			`  ssh_public_keys = ["`+operatorKey+`"]`,
			`  password_wo = "root-by-terraform"`,
			`  password_wo_version = 1`,
		),
	}
}

func containerTemplateImportCase() importCase {
	return importCase{
		resourceType: "pve_container_template",
		create: func(pve *outside) string {
			pve.createContainer("pve1", 4201, url.Values{
				"ostemplate": {"local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst"},
				"hostname":   {"golden-ct"},
				"tags":       {"Golden"},
				"rootfs":     {"local-lvm:4"},
				"mp0":        {"local-lvm:2,mp=/srv"},
				"net0":       {"name=eth0,bridge=vmbr0,ip=dhcp"},
			})
			pve.must(pve.client.TemplateLXC(context.Background(), "pve1", 4201))
			return "pve1/4201"
		},
		handWritten: `
  node      = "pve1"
  vmid      = 4201
  hostname  = "golden-ct"
  tags      = ["golden"]
  root_disk = { storage = "local-lvm", size = 4 }
  mount_points = {
    mp0 = { storage = "local-lvm", size = 2, path = "/srv" }
  }
  network = {
    net0 = { name = "eth0", bridge = "vmbr0", ipv4 = { address = "dhcp" } }
  }
`,
		record: withLines(`  os_template = "local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst"`),
	}
}

// artifactImportCase uploads a file of content kind, as an operator does in
// the web UI, and declares it with the url it "came from" (W47).
func artifactImportCase(resourceType, content, fileName string) importCase {
	data := []byte("adopted " + content + " file\n")
	if content == pveapi.ContentImport {
		data = append([]byte("QFI\xfb"), make([]byte, 508)...)
	}
	sum := sha256.Sum256(data)
	return importCase{
		resourceType: resourceType,
		create: func(pve *outside) string {
			pve.settle(pve.client.Upload(context.Background(), pveapi.UploadRequest{
				Node: "pve2", Storage: "local", Content: content, FileName: fileName,
				Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil },
				Size: int64(len(data)),
			}))
			return "pve2/local/" + fileName
		},
		handWritten: `
  node      = "pve2"
  storage   = "local"
  file_name = "` + fileName + `"
`,
		record: withLines(
			`  url = "https://downloads.example.org/`+fileName+`"`,
			`  checksum_algorithm = "sha256"`,
			`  checksum = "`+hex.EncodeToString(sum[:])+`"`,
		),
	}
}

func poolImportCase() importCase {
	return importCase{
		resourceType: "pve_pool",
		create: func(pve *outside) string {
			pve.createPool("adopt-web", "Web tier, set up by hand")
			pve.createVM("pve1", 4300, url.Values{"name": {"pool-member"}, "pool": {"adopt-web"}})
			pve.must(pve.client.UpdatePool(context.Background(), pveapi.PoolUpdate{PoolID: "adopt-web", Storage: []string{"local-lvm"}}))
			return "adopt-web"
		},
		handWritten: `
  poolid  = "adopt-web"
  comment = "Web tier, set up by hand"
`,
		// The guest member is managed by its own pool attribute; the
		// storage member has no attribute anywhere.
		unrepresented: []string{"local-lvm"},
	}
}

// withLines adds attribute lines to a resource body.
func withLines(lines ...string) func(string) string {
	return func(body string) string { return body + strings.Join(lines, "\n") + "\n" }
}

// replaceOnce replaces old in body, which must hold it.
func replaceOnce(body, old, replacement string) string {
	if !strings.Contains(body, old) {
		panic("test configuration lacks " + old)
	}
	return strings.Replace(body, old, replacement, 1)
}
