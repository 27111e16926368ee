import {
  to = pve_dir_mapping.datasets
  identity = {
    id = "datasets"
  }
}
