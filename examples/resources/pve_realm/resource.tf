variable "ldap_bind_password" {
  type      = string
  sensitive = true
}

variable "oidc_client_secret" {
  type      = string
  sensitive = true
}

# An LDAP directory, synced into PVE once after it is created and again
# whenever sync_trigger changes. The bind password is write-only: it is
# written when password_wo_version changes and never stored in the state.
resource "pve_realm" "corp" {
  realm     = "corp"
  type      = "ldap"
  comment   = "Corporate directory"
  server1   = "ldap1.example.com"
  server2   = "ldap2.example.com"
  mode      = "ldaps"
  verify    = true
  base_dn   = "ou=people,dc=example,dc=com"
  user_attr = "uid"

  bind_dn             = "cn=pve,ou=services,dc=example,dc=com"
  password_wo         = var.ldap_bind_password
  password_wo_version = 1

  group_dn        = "ou=groups,dc=example,dc=com"
  group_name_attr = "cn"
  sync_attributes = { email = "mail", firstname = "givenName", lastname = "sn" }

  # Used by syncs started in PVE, and by the sync below where it leaves
  # an option out.
  sync_defaults = {
    scope           = "both"
    remove_vanished = ["acl", "entry", "properties"]
    enable_new      = true
  }

  # Users and groups the sync creates are not managed by Terraform.
  sync         = {}
  sync_trigger = "2026-01"
}

# Active Directory.
resource "pve_realm" "ad" {
  realm   = "ad"
  type    = "ad"
  server1 = "dc1.example.com"
  domain  = "example.com"
  mode    = "ldap+starttls"
}

# OpenID Connect. PVE returns the client secret on every read; the
# provider keeps it out of the state.
resource "pve_realm" "sso" {
  realm                 = "sso"
  type                  = "openid"
  issuer_url            = "https://id.example.com/realms/corp"
  client_id             = "pve"
  client_key_wo         = var.oidc_client_secret
  client_key_wo_version = 1
  username_claim        = "email"
  autocreate            = true
  groups_claim          = "groups"
  groups_autocreate     = true
  default               = true
}

# The built-in pve realm: its settings are adopted; destroying the
# resource restores PVE's defaults.
resource "pve_realm" "pve" {
  realm   = "pve"
  type    = "pve"
  comment = "Local service accounts"
  tfa     = { type = "oath", digits = 6, step = 30 }
}
