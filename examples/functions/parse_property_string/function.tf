# { bridge = "vmbr0", firewall = "1", virtio = "BC:24:11:2A:3B:4C" }
output "nic" {
  value = provider::pve::parse_property_string("virtio=BC:24:11:2A:3B:4C,bridge=vmbr0,firewall=1")
}

# A bare value (a part without "=") is returned under the key given as the
# second argument: { file = "local-lvm:vm-100-disk-0", discard = "on",
# size = "32G" }.
output "drive" {
  value = provider::pve::parse_property_string("local-lvm:vm-100-disk-0,discard=on,size=32G", "file")
}

# The size of that drive in bytes: 34359738368.
output "drive_bytes" {
  value = provider::pve::size_to_bytes(
    provider::pve::parse_property_string("local-lvm:vm-100-disk-0,discard=on,size=32G", "file")["size"]
  )
}
