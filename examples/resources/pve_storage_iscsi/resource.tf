# An iSCSI target whose LUNs are used directly (content "none" when an
# LVM storage is built on top of it).
resource "pve_storage_iscsi" "lun" {
  storage = "lun"
  portal  = "10.0.0.40"
  target  = "iqn.2003-01.org.linux-iscsi.san:lun"
  content = ["none"]
}
