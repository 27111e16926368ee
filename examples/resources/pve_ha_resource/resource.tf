# Keep a VM running under HA: PVE starts it and, when its node fails,
# recovers it on another node.
resource "pve_ha_resource" "web" {
  vmid         = 100
  state        = "started"
  max_restart  = 2
  max_relocate = 1
  comment      = "Public web server"
}

# A container, kept stopped but still recovered on node failure. On PVE 9,
# failback = false keeps it where HA recovered it when its preferred node
# (see pve_ha_rule) comes back.
resource "pve_ha_resource" "db" {
  vmid     = 101
  type     = "ct"
  state    = "stopped"
  failback = false
}
