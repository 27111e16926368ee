package schema

// backup-fleecing's validator: pve-guest-common src/PVE/VZDump/Common.pm
// verify_backup_fleecing, run on the parsed property string.
func init() {
	hashValidators["backup-fleecing"] = func(f map[string]string) string {
		if !perlTruthy(f["storage"]) && perlTruthy(f["enabled"]) {
			return "'storage' parameter is required when 'enabled' is set\n"
		}
		return ""
	}
}
