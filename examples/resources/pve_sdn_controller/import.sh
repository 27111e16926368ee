# A controller is imported by its id (Datacenter → SDN → Options → Controllers).
terraform import pve_sdn_controller.evpn evpn1
