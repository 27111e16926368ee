# Replicate VM 100's ZFS volumes to node pve2 every 15 minutes (PVE's
# default schedule), so HA can start it there quickly after a failure.
resource "pve_replication_job" "web_to_pve2" {
  vmid   = 100
  target = "pve2"
}

# A second job of the same guest, to another node, at night, limited to
# 50 MB/s.
resource "pve_replication_job" "web_to_pve3" {
  vmid       = 100
  job_number = 1
  target     = "pve3"
  schedule   = "22:30"
  rate       = 50
  comment    = "Nightly copy for the disaster recovery node"
}
