data "pve_guests_not_backed_up" "missing" {}

# Fail the plan when a guest has no backup job.
check "every_guest_backed_up" {
  assert {
    condition     = length(data.pve_guests_not_backed_up.missing.guests) == 0
    error_message = "Guests without a backup job: ${join(", ", [for g in data.pve_guests_not_backed_up.missing.guests : "${g.vmid} (${coalesce(g.name, "unnamed")})"])}"
  }
}
