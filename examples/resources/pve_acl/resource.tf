# A custom role, granted to a group on every guest of the "web" pool.
resource "pve_role" "operator" {
  roleid     = "Operator"
  privileges = ["VM.Audit", "VM.Console", "VM.PowerMgmt"]
}

resource "pve_acl" "web_operators" {
  path  = "/pool/web"
  role  = pve_role.operator.roleid
  group = "web-ops"
}

# One user may only look at one guest, not below it.
resource "pve_acl" "auditor_vm_100" {
  path      = "/vms/100"
  role      = "PVEAuditor"
  user      = "alice@pve"
  propagate = false
}

# An API token with privilege separation gets its own entry (it holds at
# most what its user holds).
resource "pve_acl" "ci_storage" {
  path  = "/storage/local"
  role  = "PVEDatastoreUser"
  token = "ci@pve!deploy"
}
