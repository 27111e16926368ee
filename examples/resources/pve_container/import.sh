# A container is imported by its VMID, or by NODE/VMID to skip the cluster lookup.
terraform import pve_container.db 130
terraform import pve_container.db pve1/130
