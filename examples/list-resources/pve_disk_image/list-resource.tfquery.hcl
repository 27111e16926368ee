# The qcow2 disk images of the cluster, with each image as an import reads
# it (for -generate-config-out).
list "pve_disk_image" "qcow2" {
  provider         = pve
  include_resource = true

  config {
    file_name = "*.qcow2"
  }
}
