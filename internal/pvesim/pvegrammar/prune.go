package pvegrammar

import (
	"sort"
	"strings"
)

// PruneKeepAllConflict is the message pve-storage src/PVE/Storage/Plugin.pm
// validate_prune_backups dies with.
const PruneKeepAllConflict = "keep-all cannot be set together with other options.\n"

// ValidatePruneBackups is validate_prune_backups, the validator PVE runs on
// the 'prune-backups' property string after its per-key checks (keys
// keep-all, keep-last, keep-hourly, keep-daily, keep-weekly, keep-monthly,
// keep-yearly; booleans already 1/0, counts integers >= 0). When no keep-*
// count is above zero the result is {keep-all: 1}; otherwise keep-all is
// dropped, and a true keep-all is refused with PruneKeepAllConflict. The
// input map is not changed.
func ValidatePruneBackups(opts map[string]string) (map[string]string, string) {
	res := make(map[string]string, len(opts))
	for k, v := range opts {
		if k != "keep-all" {
			res[k] = v
		}
	}
	positive := false
	for _, v := range res {
		if perlPositive(v) {
			positive = true
		}
	}
	if !positive {
		return map[string]string{"keep-all": "1"}, ""
	}
	if keepAll, ok := opts["keep-all"]; ok && keepAll != "" && keepAll != "0" {
		return nil, PruneKeepAllConflict
	}
	return res, ""
}

// perlPositive is Perl's $v > 0 on a value that passed the integer check
// /^[+-]?\d+$/: positive when unsigned or '+' and some digit is not zero.
// Perl's \d also takes other scripts' digits on a decoded value; their
// numeric value is 0 in Perl's conversion, which reads only ASCII digits.
func perlPositive(v string) bool {
	v = strings.TrimSuffix(v, "\n")
	if strings.HasPrefix(v, "-") {
		return false
	}
	v = strings.TrimPrefix(v, "+")
	for _, c := range v {
		if c < '0' || c > '9' {
			return false // Perl's numeric conversion stops here
		}
		if c != '0' {
			return true
		}
	}
	return false
}

// PrintPruneBackups is pve-common src/PVE/JSONSchema.pm
// print_property_string for the 'prune-backups' format: the validator runs
// first, then every key is printed as k=v, sorted (all keys are optional
// and none is a default key). A value the validator refuses is returned
// with the refusal.
func PrintPruneBackups(opts map[string]string) (string, string) {
	res, msg := ValidatePruneBackups(opts)
	if msg != "" {
		return "", msg
	}
	keys := make([]string, 0, len(res))
	for k := range res {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, k+"="+res[k])
	}
	return strings.Join(parts, ","), ""
}
