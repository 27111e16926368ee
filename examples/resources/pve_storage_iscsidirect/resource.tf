# An iSCSI target reached through the user-mode library (libiscsi).
resource "pve_storage_iscsidirect" "lun" {
  storage = "lun"
  portal  = "10.0.0.40"
  target  = "iqn.2003-01.org.linux-iscsi.san:lun"
}
