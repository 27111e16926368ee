# The containers in the resource pool "prod": their identities only.
list "pve_container" "prod" {
  provider = pve

  config {
    pool = "prod"
  }
}
