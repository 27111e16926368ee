variable "pbs_password" {
  type      = string
  sensitive = true
}

# A Proxmox Backup Server datastore. The password is write-only: it never
# reaches the state; bump password_wo_version to send a new one.
resource "pve_storage_pbs" "pbs" {
  storage             = "pbs"
  server              = "pbs.example.com"
  datastore           = "main"
  username            = "pve@pbs"
  password_wo         = var.pbs_password
  password_wo_version = 1
  fingerprint         = "2a:0c:2f:53:6b:32:1d:4a:68:a1:2c:34:aa:bb:cc:dd:ee:ff:00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd"
  namespace           = "cluster1"

  retention = {
    keep_daily   = 14
    keep_monthly = 6
  }
}
