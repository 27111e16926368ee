# A fabric is imported by its id (Datacenter → SDN → Fabrics).
terraform import pve_sdn_fabric.underlay under1
