# Reboot VM 120 on demand, giving its OS two minutes before it is stopped:
#   terraform apply -invoke action.pve_guest_power.reboot_web
# A power action leaves what Terraform manages alone: a guest resource with
# started = true (the default) starts a guest that was shut down again at
# its next apply.
action "pve_guest_power" "reboot_web" {
  config {
    vmid      = 120
    operation = "reboot"
    timeout   = 120
  }
}
