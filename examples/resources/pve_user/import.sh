# A user is imported by its user id, USER@REALM.
terraform import pve_user.alice alice@pve
