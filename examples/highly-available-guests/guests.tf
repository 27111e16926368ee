# Three VMs with their disks on each node's local ZFS pool: a database that
# prefers pve1, and two web servers that must not run on the same node.
# Each VM's disks are replicated to the nodes in `replicas`.

locals {
  vms = {
    db   = { node = "pve1", replicas = ["pve2", "pve3"] }
    web1 = { node = "pve2", replicas = ["pve1", "pve3"] }
    web2 = { node = "pve3", replicas = ["pve1", "pve2"] }
  }
}

resource "pve_vm" "app" {
  for_each = local.vms

  node          = each.value.node
  name          = each.key
  scsi_hardware = "virtio-scsi-single"
  memory        = { size = 2048 }
  disks = {
    scsi0 = { storage = "local-zfs", size = 16 }
  }
  network = {
    net0 = { bridge = "vmbr0" }
  }
}

# A copy of each VM's disks on each of its replica nodes, refreshed every
# 15 minutes, so HA can start the VM there when its node fails.
resource "pve_replication_job" "app" {
  for_each = {
    for pair in flatten([
      for name, vm in local.vms : [for target in vm.replicas : { vm = name, target = target }]
    ]) : "${pair.vm}-${pair.target}" => pair
  }

  vmid     = pve_vm.app[each.value.vm].vmid
  target   = each.value.target
  schedule = "*/15"
}
