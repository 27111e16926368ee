# Every VM template of the cluster, with each template as an import reads it.
list "pve_vm_template" "all" {
  provider         = pve
  include_resource = true
}
