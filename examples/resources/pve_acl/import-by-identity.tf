import {
  to = pve_acl.web_operators
  identity = {
    path  = "/pool/web"
    role  = "Operator"
    group = "web-ops"
  }
}
