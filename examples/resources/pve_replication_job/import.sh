# A replication job is imported by its job id, <vmid>-<job number>.
terraform import pve_replication_job.web_to_pve2 100-0
