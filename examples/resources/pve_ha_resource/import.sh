# An HA resource is imported by its sid, or by the guest's VMID.
terraform import pve_ha_resource.web vm:100
terraform import pve_ha_resource.db 101
