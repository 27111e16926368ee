# A DNS server is imported by its id (Datacenter → SDN → DNS); its key is
# not read: set key_wo and key_wo_version to send one at the next apply.
terraform import pve_sdn_dns.powerdns powerdns
