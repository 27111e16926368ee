import {
  to = pve_role.operator
  identity = {
    roleid = "Operator"
  }
}
