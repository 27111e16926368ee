import {
  to = pve_pci_mapping.gpu
  identity = {
    id = "gpu"
  }
}
