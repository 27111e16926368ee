data "pve_version" "current" {}

output "pve_release" {
  value = data.pve_version.current.release
}
