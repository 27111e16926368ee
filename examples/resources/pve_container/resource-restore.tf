# A container restored from a vzdump backup archive on its node. The
# archive's configuration and data come back; declared attributes override
# the archive's, undeclared ones are kept. Without root_disk the root file
# system gets the size the archive recorded.
resource "pve_container" "cache" {
  node     = "pve1"
  hostname = "cache-restored"

  restore = {
    archive = "local:backup/vzdump-lxc-130-2026_11_01-00_00_00.tar.zst"
    storage = "local-lvm"
    unique  = true # new MAC addresses
  }

  cpu = { cores = 2 }
}
