# A container template downloaded by PVE onto shared storage, where every
# node can use it.
resource "pve_os_template" "debian" {
  node      = "pve1"
  storage   = "shared-nfs"
  file_name = "debian-13-standard_13.1-1_amd64.tar.zst"
  url       = "http://download.proxmox.com/images/system/debian-13-standard_13.1-1_amd64.tar.zst"
}
