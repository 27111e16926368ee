# Its token is not read: set token_wo and token_wo_version to send one at
# the next apply.
import {
  to = pve_sdn_ipam.netbox
  identity = {
    ipam = "netbox"
  }
}
