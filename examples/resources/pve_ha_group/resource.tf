# PVE 8 only. PVE 9 replaced HA groups with HA rules (pve_ha_rule) and
# migrates existing groups to rules itself.
resource "pve_ha_group" "web" {
  group = "web"

  # node = priority: resources run on the online nodes of the highest priority.
  nodes = {
    pve1 = 2
    pve2 = 1
    pve3 = 0
  }

  restricted = true  # never run elsewhere
  nofailback = false # move back to pve1 when it returns
  comment    = "web tier"
}
