# A GPU, at a different PCI address on each node that has one.
resource "pve_pci_mapping" "gpu" {
  id          = "gpu"
  description = "RTX 3090"

  map = {
    pve1 = { path = "0000:01:00", id = "10de:2204", iommu_group = 12 }
    pve2 = { path = "0000:41:00", id = "10de:2204", iommu_group = 30 }
  }
}

# A license dongle, found by its vendor and product id.
resource "pve_usb_mapping" "dongle" {
  id          = "dongle"
  description = "License key"

  map = {
    pve1 = { id = "0529:0001" }
    pve2 = { id = "0529:0001" }
  }
}

# A host directory shared with VMs through virtiofs.
resource "pve_dir_mapping" "datasets" {
  id          = "datasets"
  description = "Training data"

  map = {
    pve1 = { path = "/srv/datasets" }
    pve2 = { path = "/srv/datasets" }
  }
}
