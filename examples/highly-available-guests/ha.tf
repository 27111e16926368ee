# The VMs under HA: PVE keeps them running and recovers them on another
# node when theirs fails.
resource "pve_ha_resource" "app" {
  for_each = pve_vm.app

  vmid        = each.value.vmid
  state       = "started"
  max_restart = 2
  comment     = "${each.key}, managed by Terraform"

  # HA recovers from the replicas: the jobs exist before HA takes over.
  depends_on = [pve_replication_job.app]
}

# The database prefers pve1, then pve2; when pve1 comes back after a
# failure, HA moves it back there (the resource's failback, on by default).
resource "pve_ha_rule" "db_on_pve1" {
  rule      = "db-on-pve1"
  type      = "node-affinity"
  resources = [pve_ha_resource.app["db"].sid]
  nodes = {
    pve1 = 2
    pve2 = 1
  }
  comment = "the database prefers pve1"
}

# The two web servers never share a node.
resource "pve_ha_rule" "web_apart" {
  rule      = "web-apart"
  type      = "resource-affinity"
  affinity  = "negative"
  resources = [pve_ha_resource.app["web1"].sid, pve_ha_resource.app["web2"].sid]
  comment   = "one web server per node"
}

# HA resources that are not running. Terraform reads data sources when it
# plans: the output shows the cluster as it was when the last apply was
# planned. An empty list while HA is healthy.
data "pve_ha_status" "current" {}

output "ha_resources_not_started" {
  value = [
    for r in data.pve_ha_status.current.resources : "${r.sid}: ${r.state} on ${coalesce(r.node, "no node")}"
    if r.state != "started"
  ]
}
