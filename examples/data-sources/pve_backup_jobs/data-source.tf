data "pve_backup_jobs" "all" {}

# When each backup job runs next.
output "next_backups" {
  value = { for j in data.pve_backup_jobs.all.jobs : j.id => j.next_run }
}
