import {
  to = pve_group.operators
  id = "operators"
}
