# A security group by its name.
terraform import pve_firewall_security_group.web web
