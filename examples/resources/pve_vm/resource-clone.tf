# A VM cloned from template 9000 onto pve2 (the template's node is looked
# up). Declared attributes override the template's and are managed from then
# on; undeclared ones are inherited and left alone. The template's cloud-init
# identity (user, keys, addresses, password) is never inherited.
resource "pve_vm" "app" {
  node  = "pve2"
  name  = "app-1"
  clone = { source_vmid = 9000, storage = "local-lvm" }

  cpu   = { cores = 4 }
  disks = { scsi0 = { storage = "local-lvm", size = 40 } } # grows the inherited disk

  cloud_init = {
    storage  = "local-lvm"
    user     = "app"
    ssh_keys = ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINwRDavxAe7i0Mj7PAiumqNjzq63vNtiuYGsrHpappVV admin@example.com"]
  }
}
