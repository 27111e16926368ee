# A group is imported by its name.
terraform import pve_group.operators operators
