# A backup job is imported by its job id (Datacenter → Backup, column ID).
terraform import pve_backup_job.web backup-web
