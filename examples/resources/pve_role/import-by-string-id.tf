import {
  to = pve_role.operator
  id = "Operator"
}
