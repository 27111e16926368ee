resource "pve_pool" "production" {
  poolid  = "production"
  comment = "Customer-facing services"
}

# Nested pools name their parent first (at most three levels).
resource "pve_pool" "production_web" {
  poolid = "${pve_pool.production.poolid}/web"
}
