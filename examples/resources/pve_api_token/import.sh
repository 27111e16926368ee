# A token is imported by its full id, USER@REALM!NAME (quoted: '!' is special
# in interactive shells). PVE cannot show the secret again: value and
# api_token stay null until secret_version is changed.
terraform import pve_api_token.ci 'automation@pve!ci'
