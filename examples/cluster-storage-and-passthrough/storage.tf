# An NFS share for ISO images, container templates and backups, mounted by
# every node.
resource "pve_storage_nfs" "isos" {
  storage = "isos"
  server  = "10.0.0.20"
  export  = "/export/pve"
  path    = "/mnt/pve/isos"
  content = ["iso", "vztmpl", "backup"]
  options = "vers=4.2"

  retention = {
    keep_daily  = 7
    keep_weekly = 4
  }
}

# The ZFS pool "tank" of pve1 and pve2 (pve3 has none), for VM disks and
# container volumes.
resource "pve_storage_zfspool" "fast" {
  storage = "fast"
  pool    = "tank/guests"
  content = ["images", "rootdir"]
  nodes   = ["pve1", "pve2"]
  sparse  = true
}

# A Proxmox Backup Server datastore. The password is write-only: it never
# reaches the state or a plan; raise password_wo_version to send a new one.
variable "pbs_password" {
  type      = string
  sensitive = true
  ephemeral = true
}

resource "pve_storage_pbs" "backup" {
  storage             = "pbs"
  server              = "pbs.example.com"
  datastore           = "cluster1"
  username            = "pve@pbs"
  password_wo         = var.pbs_password
  password_wo_version = 1
  fingerprint         = "2a:0c:2f:53:6b:32:1d:4a:68:a1:2c:34:aa:bb:cc:dd:ee:ff:00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd"

  retention = {
    keep_daily   = 14
    keep_monthly = 6
  }
}
