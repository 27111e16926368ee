# A container template is imported by its VMID, or by NODE/VMID to skip the
# cluster lookup. A container that is not a template cannot be imported as
# one.
terraform import pve_container_template.debian 9100
terraform import pve_container_template.debian pve1/9100
