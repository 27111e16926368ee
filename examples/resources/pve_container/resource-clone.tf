# A container cloned from container template 9100 on pve1 onto pve2: on
# node-local storage it is cloned on pve1 and then migrated. Undeclared
# settings are inherited from the template and left alone.
resource "pve_container" "web_clone" {
  node     = "pve2"
  hostname = "web-2"
  clone    = { source_vmid = 9100, source_node = "pve1" }
  cpu      = { cores = 2 }
}
