# A security group for the web servers, and the web servers that use it.

resource "pve_firewall_security_group" "web" {
  name    = "web"
  comment = "HTTP and HTTPS from anywhere"
}

resource "pve_firewall_rules" "web_group" {
  security_group = pve_firewall_security_group.web.name
  rules = [
    { type = "in", action = "ACCEPT", macro = "HTTP" },
    { type = "in", action = "ACCEPT", macro = "HTTPS" },
  ]
}

locals {
  web_servers = {
    web1 = { node = "pve1" }
    web2 = { node = "pve1" }
  }
}

resource "pve_vm" "web" {
  for_each = local.web_servers

  node          = each.value.node
  name          = each.key
  scsi_hardware = "virtio-scsi-single"
  memory        = { size = 2048 }
  disks = {
    scsi0 = { storage = "local-lvm", size = 16 }
  }
  network = {
    net0 = { bridge = "vmbr0", firewall = true }
  }
}

# Each web server's own firewall: on, dropping what no rule accepts.
resource "pve_firewall_options" "web" {
  for_each = local.web_servers

  vmid       = pve_vm.web[each.key].vmid
  enabled    = true
  policy_in  = "DROP"
  mac_filter = true
}

# The addresses that may reach each web server's metrics port.
resource "pve_firewall_ipset" "web_scrapers" {
  for_each = local.web_servers

  vmid = pve_vm.web[each.key].vmid
  name = "scrapers"
  entries = {
    "10.0.20.6" = { comment = "monitoring" }
  }
}

resource "pve_firewall_rules" "web" {
  for_each = local.web_servers

  vmid = pve_vm.web[each.key].vmid
  rules = [
    { type = "group", action = pve_firewall_security_group.web.ref, iface = "net0" },
    { type = "in", action = "ACCEPT", proto = "tcp", dport = "9100", source = pve_firewall_ipset.web_scrapers[each.key].ref, comment = "metrics" },
    { type = "in", action = "ACCEPT", macro = "SSH", source = pve_firewall_alias.admin_net.ref },
  ]

  # A replaced VM starts with an empty firewall: its rules follow it.
  lifecycle {
    replace_triggered_by = [pve_vm.web[each.key].id]
  }
}
