import {
  to = pve_api_token.ci
  id = "automation@pve!ci"
}
