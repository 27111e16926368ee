# The container templates whose name starts with "base-".
list "pve_container_template" "base" {
  provider = pve

  config {
    name = "base-*"
  }
}
