package wire

import "testing"

// The vectors were computed by hand with sha1sum over the text PVE's
// copy_list_with_digest hashes: every entry in list order, its keys sorted,
// each as "key:value\n", values as UTF-8 bytes. For the two rules below that
// text is
//
//	action:ACCEPT\nenable:1\ntype:in\ncomment:café\ntype:out\n
//
// ("café" as the bytes 63 61 66 c3 a9), and
// printf 'action:ACCEPT\nenable:1\ntype:in\ncomment:caf\xc3\xa9\ntype:out\n' | sha1sum
// prints 350f956350feadf520e306b6abd7cbf5e2d6f8a2. An empty list hashes
// nothing: the SHA-1 of the empty string.
func TestFirewallListDigestW51(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		entries []map[string]string
		want    string
	}{
		{"empty list", nil, "da39a3ee5e6b4b0d3255bfef95601890afd80709"},
		{"one rule", []map[string]string{{"type": "in", "action": "ACCEPT", "enable": "1"}},
			"757e8778f5fb23d67f6b86c10db17bd1e5e624ee"},
		{"two rules, UTF-8 comment", []map[string]string{
			{"type": "in", "enable": "1", "action": "ACCEPT"},
			{"type": "out", "comment": "café"},
		}, "350f956350feadf520e306b6abd7cbf5e2d6f8a2"},
	}
	for _, tt := range tests {
		if got := FirewallListDigest(tt.entries); got != tt.want {
			t.Errorf("%s: FirewallListDigest = %s, want %s", tt.name, got, tt.want)
		}
	}
	// The order of the entries is part of the digest: a move changes it.
	a := map[string]string{"type": "in", "action": "ACCEPT"}
	b := map[string]string{"type": "out", "action": "DROP"}
	if FirewallListDigest([]map[string]string{a, b}) == FirewallListDigest([]map[string]string{b, a}) {
		t.Fatal("reordered entries give the same digest")
	}
}
