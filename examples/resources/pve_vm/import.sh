# A VM is imported by its VMID, or by NODE/VMID to skip the cluster lookup.
terraform import pve_vm.web 120
terraform import pve_vm.web pve1/120
