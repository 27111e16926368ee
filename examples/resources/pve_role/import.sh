# A role is imported by its roleid; PVE's built-in roles cannot be imported.
terraform import pve_role.operator Operator
