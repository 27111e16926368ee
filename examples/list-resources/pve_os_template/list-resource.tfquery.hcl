# The container templates on the storage "local" of every node.
list "pve_os_template" "local" {
  provider = pve

  config {
    storage = "local"
  }
}
