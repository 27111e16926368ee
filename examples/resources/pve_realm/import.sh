# A realm is imported by its name; the built-in realms as pam and pve.
# Write-only secrets (password_wo, client_key_wo) are not imported.
terraform import pve_realm.corp corp
terraform import pve_realm.pam pam
