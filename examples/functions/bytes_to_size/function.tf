# "32G"
output "size" {
  value = provider::pve::bytes_to_size(34359738368)
}

# "1536M": the largest unit that divides the size exactly, never a fraction.
output "one_and_a_half_gib" {
  value = provider::pve::bytes_to_size(1610612736)
}

# "40G": a disk 8 GiB larger than a 32G one.
output "grown" {
  value = provider::pve::bytes_to_size(provider::pve::size_to_bytes("32G") + 8 * 1024 * 1024 * 1024)
}
