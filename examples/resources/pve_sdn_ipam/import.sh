# An IPAM is imported by its id (Datacenter → SDN → IPAM); its token is not
# read: set token_wo and token_wo_version to send one at the next apply.
terraform import pve_sdn_ipam.netbox netbox
