# A subnet is imported as VNET/CIDR.
terraform import pve_sdn_subnet.web web/10.10.0.0/24
