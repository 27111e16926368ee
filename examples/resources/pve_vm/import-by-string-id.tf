import {
  to = pve_vm.web
  id = "pve1/120"
}
