# The applier has nothing of its own in PVE: an import adopts it with the id
# "sdn", and the next apply lists its objects from the configuration and
# applies what of them is pending.
terraform import pve_sdn_applier.this sdn
