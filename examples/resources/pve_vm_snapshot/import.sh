# A VM snapshot is imported by NODE/VMID/NAME, or by VMID/NAME (the VM's
# node is looked up).
terraform import pve_vm_snapshot.before_upgrade pve1/120/before_upgrade
terraform import pve_vm_snapshot.before_upgrade 120/before_upgrade
