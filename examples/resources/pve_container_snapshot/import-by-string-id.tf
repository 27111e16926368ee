import {
  to = pve_container_snapshot.before_upgrade
  id = "pve1/130/before_upgrade"
}
