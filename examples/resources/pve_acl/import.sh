# An ACL entry is imported by PATH|TYPE|UGID|ROLE, TYPE being user, group or token.
terraform import pve_acl.auditor_vm_100 '/vms/100|user|alice@pve|PVEAuditor'
