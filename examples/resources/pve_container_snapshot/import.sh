# A container snapshot is imported by NODE/VMID/NAME, or by VMID/NAME (the
# container's node is looked up).
terraform import pve_container_snapshot.before_upgrade pve1/130/before_upgrade
terraform import pve_container_snapshot.before_upgrade 130/before_upgrade
