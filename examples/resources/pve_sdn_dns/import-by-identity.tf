# Its key is not read: set key_wo and key_wo_version to send one at the
# next apply.
import {
  to = pve_sdn_dns.powerdns
  identity = {
    dns = "powerdns"
  }
}
