import {
  to = pve_pool.production
  id = "production"
}
