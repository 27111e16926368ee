# A shared LVM volume group on a SAN LUN, for VM disks.
resource "pve_storage_lvm" "san" {
  storage = "san"
  vgname  = "vg_san"
  shared  = true
  content = ["images"]
}
