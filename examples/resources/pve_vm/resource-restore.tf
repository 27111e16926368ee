# A VM restored from a vzdump backup archive on its node. Every disk of the
# archive comes back as a new volume on `storage`; a declared disk is
# managed from then on (here: grown to 40 GiB), undeclared ones are kept.
resource "pve_vm" "web_restored" {
  node = "pve1"
  name = "web-restored"

  restore = {
    archive = "local:backup/vzdump-qemu-120-2026_11_01-00_00_00.vma.zst"
    storage = "local-lvm"
  }

  cpu   = { cores = 4 }
  disks = { scsi0 = { storage = "local-lvm", size = 40 } }
}
