package pvesim

import "testing"

// The digests are SHA-1 over "key:value\n" with the keys sorted
// (pve-firewall src/PVE/Firewall.pm copy_list_with_digest,
// copy_opject_with_digest); the expected values are computed by hand.
// Wire rules: W51.
func TestFirewallDigestsOverSortedKeys(t *testing.T) {
	t.Parallel()
	list := []map[string]any{
		{"name": "web", "comment": "front"},
		// A parser's errors are a hash, which the digest leaves out.
		{"cidr": "dc/gone", "errors": map[string]string{"cidr": "no such alias 'gone'"}, "nomatch": 1},
	}
	if got, want := firewallListDigest(list), sha1Hex("comment:front\nname:web\ncidr:dc/gone\nnomatch:1\n"); got != want {
		t.Errorf("list digest = %s, want %s", got, want)
	}
	if got, want := firewallListDigest(nil), sha1Hex(""); got != want {
		t.Errorf("empty list digest = %s, want %s", got, want)
	}
	options := map[string]string{"policy_in": "DROP", "enable": "1"}
	if got, want := firewallObjectDigest(options), sha1Hex("enable:1\npolicy_in:DROP\n"); got != want {
		t.Errorf("options digest = %s, want %s", got, want)
	}
}
