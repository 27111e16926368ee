package wire

import (
	"crypto/sha1" //nolint:gosec // PVE's digest is SHA-1; it detects concurrent edits, it guards no secret
	"encoding/hex"
	"sort"
)

// FirewallListDigest is the digest PVE hands out with a firewall list (rules,
// aliases, ipset entries) and checks a delete or update against (W51): SHA-1, in
// hex, over every entry in order, each entry's keys sorted, each key and
// value written as "key:value\n" (pve-firewall src/PVE/Firewall.pm
// copy_list_with_digest; values are hashed as UTF-8). Give each entry as PVE
// lists it, values as PVE prints them ("1" for an enabled rule), without the
// keys PVE adds after hashing (pos, digest) and without non-scalar values (a
// rule's errors), which PVE leaves out of the hash.
//
// Together with ApplyRuleEdit it predicts the digest a list will have after
// a request, so a plan can send each request guarded by a digest without
// reading the list again.
func FirewallListDigest(entries []map[string]string) string {
	h := sha1.New() //nolint:gosec // see the import
	for _, entry := range entries {
		keys := make([]string, 0, len(entry))
		for k := range entry {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			// hash.Hash never returns an error from Write.
			_, _ = h.Write([]byte(k + ":" + entry[k] + "\n"))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
