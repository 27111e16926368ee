# A pool is imported by its poolid.
terraform import pve_pool.production production
