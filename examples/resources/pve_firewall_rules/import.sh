# The cluster's rules, a node's, a guest's (by VMID) or a security group's.
terraform import pve_firewall_rules.cluster cluster
terraform import pve_firewall_rules.node node/pve1
terraform import pve_firewall_rules.web guest/100
terraform import pve_firewall_rules.web_group group/web
