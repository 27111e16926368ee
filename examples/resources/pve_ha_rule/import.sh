# An HA rule is imported by its id; the rules PVE 9 made from HA groups are
# named ha-group-GROUP.
terraform import pve_ha_rule.web_nodes web-nodes
terraform import pve_ha_rule.prod ha-group-prod
