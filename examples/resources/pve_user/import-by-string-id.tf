import {
  to = pve_user.alice
  id = "alice@pve"
}
