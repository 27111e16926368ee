resource "pve_vm" "web" {
  node        = "pve1"
  name        = "web-1"
  description = "Web front end, managed by Terraform"
  tags        = ["web", "prod"]
  on_boot     = true

  bios          = "ovmf"
  machine       = "q35"
  os_type       = "l26"
  scsi_hardware = "virtio-scsi-single"

  cpu    = { cores = 2, sockets = 1, type = "x86-64-v2-AES" }
  memory = { size = 2048, balloon = 1024 }
  agent  = { enabled = true }

  disks = {
    # The system disk is seeded from a cloud image and grown to 32 GiB.
    scsi0 = {
      storage     = "local-lvm"
      import_from = "local:import/debian-13-genericcloud-amd64.qcow2"
      size        = 32
      discard     = true
      ssd         = true
      iothread    = true
    }
    scsi1 = { storage = "local-lvm", size = 100, backup = false }
  }

  cdroms = {
    ide2 = { file = "local:iso/debian-13-netinst.iso" }
  }

  network = {
    net0 = { bridge = "vmbr0", model = "virtio", vlan_tag = 20, firewall = true }
  }

  timeouts = {
    create = "20m"
  }
}

# USB devices and shared directories through resource mappings (Datacenter >
# Resource Mappings): an API token needs Mapping.Use on each mapping. A raw
# host device (usb1 = { host = "046d:c52b" }) needs root@pam with a password.
resource "pve_vm" "media" {
  node    = "pve1"
  name    = "media-1"
  machine = "q35"
  os_type = "l26"

  disks   = { scsi0 = { storage = "local-lvm", size = 32 } }
  network = { net0 = { bridge = "vmbr0" } }

  usb_devices = {
    usb0 = { mapping = "zigbee-stick", usb3 = true }
  }

  # Mounted in the guest by the mapping's name: mount -t virtiofs media /mnt/media
  virtiofs = {
    virtiofs0 = { mapping = "media", cache = "auto", expose_acl = true }
  }
}
