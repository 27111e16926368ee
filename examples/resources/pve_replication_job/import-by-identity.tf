import {
  to = pve_replication_job.web_to_pve2
  identity = {
    vmid       = 100
    job_number = 0
  }
}
