import {
  to = pve_container.db
  id = "pve1/130"
}
