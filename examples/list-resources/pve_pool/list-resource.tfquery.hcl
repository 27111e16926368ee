# The pool prod and the pools nested in it, with each pool as an import
# reads it (for -generate-config-out).
list "pve_pool" "prod" {
  provider         = pve
  include_resource = true

  config {
    poolid = "prod*"
  }
}
