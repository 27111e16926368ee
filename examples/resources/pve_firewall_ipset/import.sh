# An IP set of the cluster's firewall is imported as cluster/NAME, with all
# its entries,
terraform import pve_firewall_ipset.trusted cluster/trusted

# an IP set of a guest's firewall as guest/VMID/NAME.
terraform import pve_firewall_ipset.monitoring guest/100/monitoring
