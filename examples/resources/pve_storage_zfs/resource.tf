# ZFS over iSCSI on a Linux LIO target.
resource "pve_storage_zfs" "zfsiscsi" {
  storage       = "zfsiscsi"
  portal        = "10.0.0.30"
  target        = "iqn.2003-01.org.linux-iscsi.san:pve"
  pool          = "tank"
  blocksize     = "8k"
  iscsiprovider = "LIO"
  lio_tpg       = "tpg1"
  sparse        = true
}
