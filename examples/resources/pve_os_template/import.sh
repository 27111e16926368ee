# A container template is imported as NODE/STORAGE/FILE.
terraform import pve_os_template.debian pve1/shared-nfs/debian-13-standard_13.1-1_amd64.tar.zst
