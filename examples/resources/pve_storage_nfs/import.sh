# A storage definition is imported by its storage ID (Datacenter → Storage, column ID);
# importing a storage of another type names the resource type to use.
terraform import pve_storage_nfs.isos isos
