# A PCI mapping is imported by its id.
terraform import pve_pci_mapping.gpu gpu
