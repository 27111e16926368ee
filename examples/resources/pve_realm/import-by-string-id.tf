import {
  to = pve_realm.corp
  id = "corp"
}
