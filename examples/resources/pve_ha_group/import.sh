# An HA group is imported by its id.
terraform import pve_ha_group.web web
