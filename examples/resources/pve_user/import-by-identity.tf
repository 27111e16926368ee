import {
  to = pve_user.alice
  identity = {
    userid = "alice@pve"
  }
}
