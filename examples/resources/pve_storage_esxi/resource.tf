variable "esxi_password" {
  type      = string
  sensitive = true
}

# An ESXi host to import VMs from.
resource "pve_storage_esxi" "esxi" {
  storage                = "esxi"
  server                 = "esxi.example.com"
  username               = "root"
  password_wo            = var.esxi_password
  password_wo_version    = 1
  skip_cert_verification = true
}
