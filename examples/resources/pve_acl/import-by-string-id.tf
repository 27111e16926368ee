import {
  to = pve_acl.web_operators
  id = "/pool/web|group|web-ops|Operator"
}
