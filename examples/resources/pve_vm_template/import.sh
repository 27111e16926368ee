# A VM template is imported by its VMID, or by NODE/VMID to skip the cluster
# lookup. A guest that is not a template cannot be imported as one.
terraform import pve_vm_template.debian 9000
terraform import pve_vm_template.debian pve1/9000
