# A vnet is imported by its id.
terraform import pve_sdn_vnet.staff staff
