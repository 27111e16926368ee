# A VM with the GPU, the dongle and the shared directory, each through its
# mapping, with its disk on the ZFS pool.
resource "pve_vm" "trainer" {
  node          = "pve1"
  name          = "trainer"
  machine       = "q35"
  os_type       = "l26"
  scsi_hardware = "virtio-scsi-single"
  memory        = { size = 8192 }

  disks = {
    scsi0 = { storage = pve_storage_zfspool.fast.storage, size = 32 }
  }
  network = {
    net0 = { bridge = "vmbr0" }
  }

  pci_devices = {
    hostpci0 = { mapping = pve_pci_mapping.gpu.id, pcie = true }
  }
  usb_devices = {
    usb0 = { mapping = pve_usb_mapping.dongle.id, usb3 = true }
  }
  # The guest mounts it by the mapping's name:
  #   mount -t virtiofs datasets /mnt/datasets
  virtiofs = {
    virtiofs0 = { mapping = pve_dir_mapping.datasets.id, cache = "auto" }
  }
}
