# The options of a firewall are imported by the firewall's id: cluster,
# node/NAME or guest/VMID. Every option PVE has set is imported.
terraform import pve_firewall_options.cluster cluster
terraform import pve_firewall_options.pve1 node/pve1
terraform import pve_firewall_options.web guest/120
