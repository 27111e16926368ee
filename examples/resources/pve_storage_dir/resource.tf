# A directory on every node for ISO images, templates and backups.
resource "pve_storage_dir" "backup" {
  storage = "backup"
  path    = "/srv/backup"
  content = ["backup", "iso", "vztmpl"]

  retention = {
    keep_daily  = 7
    keep_weekly = 4
  }
}
