# A cloud image kept as content "import" (see pve_disk_image).
resource "pve_disk_image" "debian_cloud" {
  node      = "pve1"
  storage   = "local"
  file_name = "debian-13-genericcloud-amd64.qcow2"
  url       = "https://cloud.debian.org/images/cloud/trixie/latest/debian-13-genericcloud-amd64.qcow2"
}

# A VM template built from the image: created like a pve_vm, never started,
# then marked a template. Its disk becomes a read-only base volume that
# clones (full or linked) are made from.
resource "pve_vm_template" "debian" {
  node          = "pve1"
  vmid          = 9000
  name          = "debian-13-cloud"
  description   = "Debian 13 cloud image, managed by Terraform"
  tags          = ["template", "debian"]
  os_type       = "l26"
  scsi_hardware = "virtio-scsi-single"

  cpu    = { cores = 2, type = "x86-64-v2-AES" }
  memory = { size = 2048 }
  agent  = { enabled = true }

  disks = {
    # Sized here, before it becomes a base volume: a template's disks do
    # not grow afterwards (grow them on the clones).
    scsi0 = {
      storage     = "local-lvm"
      import_from = pve_disk_image.debian_cloud.volume
      size        = 8
      discard     = true
    }
  }

  network = {
    net0 = { bridge = "vmbr0" }
  }

  # The clones inherit a cloud-init drive; give each clone its own identity.
  cloud_init = {
    storage = "local-lvm"
    user    = "debian"
  }
}
