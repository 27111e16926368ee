# A disk image is imported as NODE/STORAGE/FILE.
terraform import pve_disk_image.debian_cloud pve1/local/debian-13-genericcloud-amd64.qcow2
