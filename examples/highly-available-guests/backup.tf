# Every night at 01:30, a snapshot backup of the three VMs to the storage
# "local", keeping a week of daily and a month of weekly backups.
resource "pve_backup_job" "nightly" {
  id       = "nightly"
  schedule = "01:30"
  vmids    = [for vm in pve_vm.app : vm.vmid]
  storage  = "local"
  mode     = "snapshot"
  compress = "zstd"

  retention = {
    keep_daily  = 7
    keep_weekly = 4
  }

  comment = "HA guests, nightly"
}

# Guests that no backup job covers: an empty list once every guest is in
# a job.
data "pve_guests_not_backed_up" "missing" {}

output "guests_not_backed_up" {
  value = [for g in data.pve_guests_not_backed_up.missing.guests : g.vmid]
}
