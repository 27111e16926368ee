# An alias of the cluster's firewall is imported as cluster/NAME,
terraform import pve_firewall_alias.office cluster/office

# an alias of a guest's firewall as guest/VMID/NAME.
terraform import pve_firewall_alias.backend guest/100/backend
