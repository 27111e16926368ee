# A zone is imported by its id.
terraform import pve_sdn_zone.lab lab
