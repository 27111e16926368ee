# One VM on each network. A NIC names its vnet as bridge; the VM waits for
# the applier, because a vnet exists on the nodes only once applied.
resource "pve_vm" "app" {
  for_each = local.networks

  node          = "pve1"
  name          = "${each.key}1"
  scsi_hardware = "virtio-scsi-single"
  memory        = { size = 1024 }
  disks = {
    scsi0 = { storage = "local-lvm", size = 8 }
  }
  network = {
    net0 = { bridge = pve_sdn_vnet.net[each.key].vnet }
  }

  depends_on = [pve_sdn_applier.this]
}
