resource "pve_vm" "web" {
  node = "pve1"
  name = "web"
}

# Back up the web server every weekday evening to the local storage,
# keeping a week of daily and a month of weekly backups.
resource "pve_backup_job" "web" {
  id       = "backup-web"
  schedule = "mon..fri 21:00"
  vmids    = [pve_vm.web.vmid]
  storage  = "local"
  mode     = "snapshot"
  compress = "zstd"

  notes_template = "{{guestname}} on {{node}}"

  retention = {
    keep_daily  = 7
    keep_weekly = 4
  }

  notification_mode = "notification-system"
  comment           = "Web server, weekday evenings"
}

# Every other guest, on Saturday night.
resource "pve_backup_job" "rest" {
  schedule = "sat 02:00"
  all      = true
  exclude  = [pve_vm.web.vmid]
  storage  = "local"

  fleecing = {
    enabled = true
    storage = "local-lvm"
  }
}
