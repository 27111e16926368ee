# A USB mapping is imported by its id.
terraform import pve_usb_mapping.dongle dongle
