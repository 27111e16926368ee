import {
  to = pve_pool.production
  identity = {
    poolid = "production"
  }
}
