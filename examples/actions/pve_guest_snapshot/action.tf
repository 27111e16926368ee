# A snapshot of VM 120, taken on demand:
#   terraform apply -invoke action.pve_guest_snapshot.before_upgrade
action "pve_guest_snapshot" "before_upgrade" {
  config {
    vmid        = 120
    operation   = "create"
    name        = "before_upgrade"
    description = "Before the Debian 13.2 upgrade"
    vmstate     = true # with the RAM of the running VM
  }
}

# A snapshot before every update of a container. The action cannot refer to
# the resource that triggers it, so both take the VMID from one local.
locals {
  db_vmid = 130
}

action "pve_guest_snapshot" "before_change" {
  config {
    vmid      = local.db_vmid
    operation = "create"
    name      = "before_change"
  }
}

resource "pve_container" "db" {
  node        = "pve1"
  vmid        = local.db_vmid
  hostname    = "db-1"
  os_template = "local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst"
  root_disk   = { storage = "local-lvm", size = 8 }

  lifecycle {
    action_trigger {
      events  = [before_update]
      actions = [action.pve_guest_snapshot.before_change]
    }
  }
}
