variable "debian_cloud_sha512" {
  description = "SHA-512 of the cloud image, from the SHA512SUMS file published next to it."
  type        = string
}

# A cloud image kept as content "import". Debian publishes it as .qcow2; an
# image published as .img needs a .qcow2 or .raw file_name.
resource "pve_disk_image" "debian_cloud" {
  node               = "pve1"
  storage            = "local"
  file_name          = "debian-13-genericcloud-amd64.qcow2"
  url                = "https://cloud.debian.org/images/cloud/trixie/latest/debian-13-genericcloud-amd64.qcow2"
  checksum           = var.debian_cloud_sha512
  checksum_algorithm = "sha512"
}

# A VM whose first disk is created from the image and grown to 20 GiB.
resource "pve_vm" "web" {
  node          = "pve1"
  name          = "web-01"
  scsi_hardware = "virtio-scsi-single"
  disks = {
    scsi0 = {
      storage     = "local-lvm"
      import_from = pve_disk_image.debian_cloud.volume
      size        = 20
    }
  }
}
