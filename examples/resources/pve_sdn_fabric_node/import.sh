# A fabric node is imported as FABRIC/NODE.
terraform import 'pve_sdn_fabric_node.node["pve1"]' under1/pve1
