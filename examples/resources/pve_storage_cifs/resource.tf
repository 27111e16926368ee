variable "smb_password" {
  type      = string
  sensitive = true
}

# A CIFS share for backups. The password is write-only: it never reaches
# the state; bump password_wo_version to send a new one.
resource "pve_storage_cifs" "share" {
  storage             = "share"
  server              = "fileserver.example.com"
  share               = "pve"
  path                = "/mnt/pve/share"
  username            = "pve"
  domain              = "EXAMPLE"
  password_wo         = var.smb_password
  password_wo_version = 1
  content             = ["backup"]
}
