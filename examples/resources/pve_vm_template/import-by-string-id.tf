import {
  to = pve_vm_template.debian
  id = "pve1/9000"
}
