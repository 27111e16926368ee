# One GPU, at a different address on each node. VMs use it as
# hostpci "mapping=gpu", which an API token may do with Mapping.Use on
# /mapping/pci/gpu (a raw host address needs root@pam).
resource "pve_pci_mapping" "gpu" {
  id          = "gpu"
  description = "RTX 3090 for CI runners"

  map = {
    pve1 = {
      path        = "0000:01:00"
      id          = "10de:2204"
      iommu_group = 12
    }
    pve2 = {
      path         = "0000:41:00"
      id           = "10de:2204"
      subsystem_id = "1458:403b"
    }
  }
}
