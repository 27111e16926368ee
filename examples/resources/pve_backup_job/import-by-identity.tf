import {
  to = pve_backup_job.web
  identity = {
    id = "backup-web"
  }
}
