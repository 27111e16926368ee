# A directory mapping is imported by its id.
terraform import pve_dir_mapping.datasets datasets
