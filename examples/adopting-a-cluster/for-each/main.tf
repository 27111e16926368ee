# Adopt every guest tagged "prod" in one apply. The data sources select the
# guests; the import blocks and the resource blocks iterate over the same
# maps, keyed by VMID. The resource blocks declare what the cluster listing
# reports (node, tags, pool, power) and keep everything else as PVE has it.

data "pve_vms" "adopt" {
  tags     = ["prod"]
  template = false
}

data "pve_containers" "adopt" {
  tags     = ["prod"]
  template = false
}

locals {
  vms        = { for vm in data.pve_vms.adopt.vms : tostring(vm.vmid) => vm }
  containers = { for ct in data.pve_containers.adopt.containers : tostring(ct.vmid) => ct }
}

import {
  for_each = local.vms
  to       = pve_vm.all[each.key]
  id       = "${each.value.node}/${each.key}"
}

import {
  for_each = local.containers
  to       = pve_container.all[each.key]
  id       = "${each.value.node}/${each.key}"
}

resource "pve_vm" "all" {
  for_each = local.vms

  node    = each.value.node
  tags    = length(each.value.tags) > 0 ? each.value.tags : null
  pool    = each.value.pool
  started = each.value.status == "running"

  lifecycle {
    # A guest that leaves the selection would otherwise be destroyed.
    prevent_destroy = true
    # What the listing cannot tell: Terraform keeps the imported values.
    ignore_changes = [
      name, description, on_boot, protection, bios, machine, os_type,
      scsi_hardware, boot_order, cpu, memory, agent, disks, cdroms, network,
      efi_disk, tpm_state, pci_devices, cloud_init,
    ]
  }
}

resource "pve_container" "all" {
  for_each = local.containers

  node    = each.value.node
  tags    = length(each.value.tags) > 0 ? each.value.tags : null
  pool    = each.value.pool
  started = each.value.status == "running"

  lifecycle {
    # A guest that leaves the selection would otherwise be destroyed.
    prevent_destroy = true
    # What the listing cannot tell: Terraform keeps the imported values.
    ignore_changes = [
      hostname, description, on_boot, protection, unprivileged, cpu, memory,
      root_disk, mount_points, network, features, dns, console,
    ]
  }
}
