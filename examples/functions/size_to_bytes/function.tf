# 34359738368
output "disk_bytes" {
  value = provider::pve::size_to_bytes("32G")
}

# 1610612736: a fraction is allowed, the units are powers of 1024.
output "fraction" {
  value = provider::pve::size_to_bytes("1.5G")
}

# Whether one size is larger than another, whatever their units.
output "grows" {
  value = provider::pve::size_to_bytes("40960M") > provider::pve::size_to_bytes("32G")
}
