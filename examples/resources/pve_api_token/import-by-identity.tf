import {
  to = pve_api_token.ci
  identity = {
    userid     = "automation@pve"
    token_name = "ci"
  }
}
