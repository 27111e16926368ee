import {
  to = pve_realm.corp
  identity = {
    realm = "corp"
  }
}
