variable "debian_iso_sha256" {
  description = "SHA-256 of the installer, from the SHA256SUMS file published next to it."
  type        = string
}

# PVE downloads the installer itself and checks its checksum; a mismatch
# fails the apply and leaves no file behind.
resource "pve_iso" "debian" {
  node               = "pve1"
  storage            = "local"
  file_name          = "debian-13.1.0-amd64-netinst.iso"
  url                = "https://cdimage.debian.org/debian-cd/current/amd64/iso-cd/debian-13.1.0-amd64-netinst.iso"
  checksum           = var.debian_iso_sha256
  checksum_algorithm = "sha256"
}

# A NoCloud seed ISO built next to the configuration is uploaded from where
# Terraform runs. When the local file changes, it is uploaded again in place.
resource "pve_iso" "seed" {
  node        = "pve1"
  storage     = "local"
  file_name   = "web-01-seed.iso"
  source_file = "${path.module}/build/web-01-seed.iso"
}
