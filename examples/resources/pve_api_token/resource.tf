# A token for a CI pipeline. The user must exist.
resource "pve_api_token" "ci" {
  userid     = "automation@pve"
  token_name = "ci"
  comment    = "CI pipeline"
  expire     = "2027-01-01T00:00:00Z"

  # Change this value to give the token a new secret (rotation).
  secret_version = 1
}

# The whole token string, ready for another provider configuration or a
# secret store. Sensitive: Terraform does not print it.
output "ci_api_token" {
  value     = pve_api_token.ci.api_token
  sensitive = true
}
