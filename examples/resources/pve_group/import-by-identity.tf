import {
  to = pve_group.operators
  identity = {
    groupid = "operators"
  }
}
