# An ISO image is imported as NODE/STORAGE/FILE. PVE does not record where a
# file came from, so url and source_file are empty afterwards; adding one to
# the configuration later does not replace the file.
terraform import pve_iso.debian pve1/local/debian-13.1.0-amd64-netinst.iso
