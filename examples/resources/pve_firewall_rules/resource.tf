resource "pve_vm" "web" {
  node          = "pve1"
  name          = "web-1"
  scsi_hardware = "virtio-scsi-single"
  memory        = { size = 2048 }
  disks = {
    scsi0 = { storage = "local-lvm", size = 16 }
  }
  network = {
    net0 = { bridge = "vmbr0", firewall = true }
  }
}

resource "pve_firewall_security_group" "web" {
  name = "web"
}

resource "pve_firewall_ipset" "admins" {
  name = "admins"
  entries = {
    "10.0.10.0/24" = {}
  }
}

# The rules of one VM's firewall, in the order PVE evaluates them.
resource "pve_firewall_rules" "web" {
  vmid = pve_vm.web.vmid

  rules = [
    # A security group shared by the web servers.
    { type = "group", action = pve_firewall_security_group.web.ref, iface = "net0" },
    { type = "in", action = "ACCEPT", macro = "SSH", source = pve_firewall_ipset.admins.ref, comment = "admins only" },
    { type = "in", action = "ACCEPT", proto = "tcp", dport = "9100", source = "10.0.10.0/24", comment = "metrics" },
    { type = "in", action = "DROP", log = "info", enabled = false },
  ]

  # The guest's firewall goes with the guest: when the VM is replaced,
  # its rules are created again on the new one.
  lifecycle {
    replace_triggered_by = [pve_vm.web.id]
  }
}

# The rules of the cluster's firewall (they apply to every node).
resource "pve_firewall_rules" "cluster" {
  rules = [
    { type = "in", action = "ACCEPT", macro = "Ping" },
    { type = "in", action = "ACCEPT", proto = "tcp", dport = "8006", source = "10.0.0.0/16", comment = "web UI" },
  ]
}

# The rules of a security group.
resource "pve_firewall_rules" "web_group" {
  security_group = pve_firewall_security_group.web.name

  rules = [
    { type = "in", action = "ACCEPT", macro = "HTTP" },
    { type = "in", action = "ACCEPT", macro = "HTTPS" },
  ]
}
